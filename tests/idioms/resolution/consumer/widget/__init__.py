import acme


def probe_wildcard_last_wins():
    return acme.shared(1, b=2)


def probe_wildcard_only_in_the_first():
    return acme.only_first(1)


def probe_compiled_module_does_not_hide_the_fallback():
    return acme.escape("x", quote=False)


def probe_public_name_survives_its_private_home():
    return acme.public_name(1, b=3)


def probe_private_home_itself_is_gone():
    from acme import _private_home

    return _private_home


def probe_package_name_shadows_the_submodule():
    from acme import helpers

    return helpers.upper()


def probe_overload_only_stub_function_exists():
    from acme.stubs import parse

    return parse(1)
