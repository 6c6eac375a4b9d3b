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


def probe_import_of_a_gone_submodule_ignores_getattr():
    import acme.tools.legacy  # the import system finds submodules; __getattr__ is not asked

    return acme.tools.legacy


def probe_from_a_gone_submodule_ignores_getattr():
    from acme.tools.legacy import convert

    return convert(1)


def probe_from_package_import_goes_through_getattr():  # oracle: unknown
    from acme.tools import legacy  # getattr(acme.tools, "legacy"): a body not followed

    return legacy


def probe_class_getattr_serves_its_property():
    from acme import props

    return props.version


def probe_class_getattr_property_gone():
    from acme import props

    return props.OLD_URL


def probe_class_getattr_refuses_the_rest():
    from acme.props import never_defined

    return never_defined


def probe_module_with_an_opaque_call_at_import_time():
    from acme.props import plain

    return plain()


def probe_name_from_a_table_a_function_fills():
    # oracle: gap (Python decides this; the tool leaves it undecided today)
    import acme.filled

    return acme.filled.HOME_DIR


def probe_name_from_a_global_a_function_rebinds():
    # oracle: gap (Python decides this; the tool leaves it undecided today)
    import acme.filled

    return acme.filled.USER_DIR


def probe_builtin_alias_served_then_refused():
    import acme.np

    return acme.np.float


def probe_future_scalar_warned_then_refused():
    import acme.np

    return acme.np.bool


def probe_type_a_star_import_web_carries():
    import acme.np

    return acme.np.float64


def probe_type_from_the_part_of_the_table_not_read():
    # oracle: gap (Python decides this; the tool leaves it undecided today)
    import acme.np

    return acme.np.double


def probe_name_nothing_serves():
    import acme.np

    return acme.np.nothing  # oracle: unknown


def probe_builtin_where_it_is_imported():
    from acme.np import types

    return types.float
