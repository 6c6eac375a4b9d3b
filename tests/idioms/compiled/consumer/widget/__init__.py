"""Probes of a provider whose core is a compiled module known by its stub (torch's _C,
numpy.random's mtrand): what the stub lists is checked, what it leaves out is unknown
unless the baseline's stub listed it."""

import acme


def probe_overloaded_method() -> object:
    # oracle: gap (Python decides this; the tool leaves it undecided today)
    return acme.Tensor().size(0)


def probe_variadic_method() -> object:
    # oracle: gap (Python decides this; the tool leaves it undecided today)
    return acme.Tensor().view(2, 3)


def probe_method_through_a_python_subclass() -> object:
    # oracle: gap (Python decides this; the tool leaves it undecided today)
    return acme.Param().size()


def probe_method_of_a_returned_instance() -> object:
    # oracle: gap (Python decides this; the tool leaves it undecided today)
    return acme.ones().size()


def probe_method_the_stub_leaves_out() -> object:
    # oracle: gap (Python decides this; the tool leaves it undecided today)
    return acme.Tensor().secret()


def probe_method_neither_has() -> object:  # oracle: unknown
    return acme.Tensor().nope()


def probe_overloaded_method_removed_later() -> object:  # oracle: differential
    # oracle: gap (Python decides this; the tool leaves it undecided today)
    return acme.Tensor().gone_later()


def probe_overloaded_constructor() -> object:
    # oracle: gap (Python decides this; the tool leaves it undecided today)
    return acme.Device("cpu")


def probe_overloaded_constructor_two_arguments() -> object:
    # oracle: gap (Python decides this; the tool leaves it undecided today)
    return acme.Device("cuda", 0)


def probe_keyword_the_c_code_aliases() -> object:
    return acme.argmax([3, 1], axis=0)


def probe_keyword_renamed_in_the_stub() -> object:  # oracle: differential
    return acme.scale(2, factor=3)


def probe_method_moved_to_a_base_after_a_compiled_one() -> object:
    # oracle: gap (Python decides this; the tool leaves it undecided today)
    return acme.Array().constructor()


def probe_a_module_compiled_with_no_stub_still_has_its_function():
    # oracle: gap (Python decides this; the tool leaves it undecided today)
    from acme.speedups import fast_sum

    return fast_sum([1, 2])


def probe_a_name_gone_from_a_module_compiled_with_no_stub():  # oracle: unknown
    # Python fails at 0.2 (the compiled module dropped it); with no stub there is nothing to
    # read: what it defines is unknown, never "removed"
    from acme.speedups import legacy_mean

    return legacy_mean([1, 2])


def probe_an_attribute_of_a_module_compiled_with_no_stub():
    # oracle: gap (Python decides this; the tool leaves it undecided today)
    import acme.speedups

    return acme.speedups.fast_sum((3,))
