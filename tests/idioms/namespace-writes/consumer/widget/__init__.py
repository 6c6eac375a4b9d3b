import acme


def probe_enum_member_exported():
    from acme.colors import GREEN

    return GREEN


def probe_enum_member_removed():
    from acme.colors import BLUE

    return BLUE


def probe_update_from_comprehension():
    from acme import colors

    return colors.op_add


def probe_update_removed_key():
    from acme import colors

    return colors.op_sub


def probe_loop_written():
    from acme.colors import ALPHA

    return ALPHA


def probe_loop_written_removed():
    from acme.colors import BETA

    return BETA


def probe_setattr_on_the_module():
    from acme import colors

    return colors.DEFAULT


def probe_vars_written_then_gone():
    from acme import colors

    return colors.LEGACY


def probe_never_written():
    from acme import colors

    return colors.PURPLE


def probe_unknown_writes_are_undecided():
    from acme import dynamic

    return dynamic.HOME  # oracle: unknown


def probe_unknown_writes_keep_defined_names():
    from acme import dynamic

    return dynamic.helper()


def probe_locals_written_in_a_loop():
    # oracle: gap (Python decides this; the tool leaves it undecided today)
    from acme.windows import hamming

    return hamming(4)


def probe_locals_written_then_gone():
    # oracle: gap (Python decides this; the tool leaves it undecided today)
    from acme import windows

    return windows.hann(4)


def probe_a_name_a_called_function_imports_as_a_global():
    from acme.globalimports import mapped

    return mapped(1)


def probe_a_name_that_function_no_longer_imports():
    from acme import globalimports

    return globalimports.gone(1)


def probe_a_call_to_it_with_a_keyword_it_lacks():
    from acme import globalimports

    return globalimports.mapped(1, y=2)
