import acme


def probe_a_function_moved_to_a_module_a_package_imports():
    from acme.config import load

    return load("p")


def probe_a_function_that_stayed():
    from acme.config import dump

    return dump(1)


def probe_a_module_renamed_private():
    from acme.utils.testing import assert_close

    return assert_close(1, 1)


def probe_the_new_home():
    from acme.utils import assert_close

    return assert_close(1, 1)
