"""Probes: a provider function rebound through the module namespace (globals() and kin)."""

import acme


def probe_subscript():
    from acme import subscript

    return subscript.run(1, old=5)


def probe_update_keyword():
    from acme import update_keyword

    return update_keyword.run(1, old=5)


def probe_update_dict():
    from acme import update_dict

    return update_dict.run(1, old=5)


def probe_vars_subscript():
    from acme import vars_subscript

    return vars_subscript.run(1, old=5)


def probe_setattr_module():
    from acme import setattr_module

    return setattr_module.run(1, old=5)


def probe_module_dict():
    from acme import module_dict

    return module_dict.run(1, old=5)


def probe_in_a_function():
    from acme import in_a_function

    return in_a_function.run(1, old=5)


def probe_defined_again():
    from acme import defined_again

    return defined_again.run(1, old=5)


def probe_another_name():
    from acme import another_name

    return another_name.run(1, old=5)


def probe_setdefault():
    from acme import setdefault

    return setdefault.run(1, old=5)


def probe_itself():
    from acme import itself

    return itself.run(1, old=5)


def probe_never_called():
    from acme import never_called

    return never_called.run(1, old=5)


def probe_unknown_key_before():
    from acme import unknown_key_before

    return unknown_key_before.run(1, old=5)


def probe_unknown_key_after():
    from acme import unknown_key_after

    return unknown_key_after.run(1, old=5)  # oracle: unknown


def probe_maybe():
    from acme import maybe

    return maybe.run(1, old=5)  # oracle: unknown


def probe_spread():
    from acme import spread

    return spread.run(1, old=5)
