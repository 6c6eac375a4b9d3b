import acme


def probe_renamed_function_import():
    from acme import old_run

    return old_run(1)


def probe_renamed_class_attribute():
    return acme.OldThing(3)


def probe_renamed_class_wrong_call():
    return acme.OldThing(3, 4)


def probe_lazy_submodule_call():
    return acme.plugins.load("x")


def probe_lazy_submodule_keyword():
    return acme.plugins.load("x", strict=True)


def probe_no_longer_lazy():
    return acme.extras.extra(1)


def probe_constant():
    return acme.ANSWER + 1


def probe_constant_from_update():
    return acme.NAME


def probe_version():
    return acme.__version__


def probe_refused_name():
    return acme.nothing_here


def probe_private_served():
    return acme._secret


def probe_private_gone():
    return acme._hidden


def probe_defined_names_still_bind():
    return acme.run(1, b=2)
