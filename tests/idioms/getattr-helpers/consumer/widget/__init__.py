import acme


def probe_helper_served_class():
    return acme.Widget(2)


def probe_helper_served_class_bad_call():
    return acme.Widget(2, 3, 4)


def probe_helper_moved_function():
    return acme.make("box", size=2)


def probe_helper_warns():
    return acme.legacy_mode


def probe_helper_refuses():
    return acme.missing_thing


def probe_defined_function():
    return acme.tool(1)


def probe_factory_served():
    from acme.compat import PI

    return PI


def probe_factory_refused_later():
    from acme import compat

    return compat.E


def probe_flask_style_deprecated():
    from acme.legacy import _stack

    return _stack


def probe_flask_style_plain_name():
    from acme.legacy import current

    return current()


def probe_numpy_style_removed():
    from acme import former

    return former.float_


def probe_numpy_style_expired():
    from acme import former

    return former.product


def probe_numpy_style_defined_alias():
    from acme import former

    return former.Inf


def probe_numpy_style_kept():
    from acme import former

    return former.prod(2)
