import acme


def probe_a_testcase_method_from_the_stdlib_base():
    return acme.Case().assertEqual(1, 1)


def probe_an_override_the_stdlib_base_still_provides():
    return acme.Case().shortDescription()


def probe_a_method_only_the_provider_defined():
    # oracle: by-difference (what typeshed leaves out is unknown without a baseline)
    return acme.Case().assertSame(1, 1)


def probe_a_dict_method_from_the_base():
    # oracle: gap (dict's constructor is an @overload set in its stub)
    return acme.Table(a=1).keys()


def probe_a_dict_override_dropped():
    # oracle: gap (dict's constructor is an @overload set in its stub)
    return acme.Table(a=1).copy()


def probe_a_method_of_the_subclass_dropped():
    # oracle: gap (dict's constructor is an @overload set in its stub)
    return acme.Table().lookup("a")


def probe_an_exception_constructor_that_lost_a_keyword():
    error = acme.Failure("boom", code=2)
    return str(error)


def probe_an_exception_constructor_by_position():
    error = acme.Failure("boom")
    return str(error)


def probe_an_exception_attribute_from_the_base():
    return acme.Failure("boom").args


def probe_an_enum_member_dropped():
    return acme.Colour.GREEN


def probe_an_enum_member_kept():
    # oracle: gap (an enum member's type, its class, is not followed)
    return acme.Colour.RED.name


def probe_a_method_through_two_stdlib_bases():
    # oracle: gap (dict's constructor is an @overload set in its stub)
    return acme.Counts().move_to_end


def probe_a_stdlib_function_re_exported():
    return acme.dumps({"a": 1}, sort_keys=True)


def probe_a_stdlib_function_called_with_a_keyword_it_lacks():
    # oracle: unknown (a call bound only against a stub is reported release to release)
    return acme.dedent("  a", strip=True)


def probe_a_stdlib_function_called_by_position():
    # oracle: gap (quote is an @overload set in its stub)
    return acme.quote("a b", "/")


def probe_a_method_of_a_returned_str():
    # oracle: gap (str.upper is an @overload set in its stub)
    return acme.label().upper()


def probe_a_missing_method_of_a_returned_str():
    # oracle: gap (what typeshed leaves out is unknown; the same in both releases)
    return acme.label().no_such_method()
