import acme


def probe_an_attribute_the_stdlib_base_sets_at_run_time():
    # oracle: by-difference (typeshed does not declare _outcome; cases.py is the same file)
    return acme.Case()._outcome


def probe_a_data_key_of_an_unchanged_class():
    # oracle: by-difference (a data key is the program's; cases.py is the same file)
    return acme.Keyed(colour="red").colour


def probe_a_function_of_the_module_that_changed():
    return acme.tools.helper(1)
