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
    # oracle: gap (Python decides this; the tool leaves it undecided today)
    from acme import helpers

    return helpers.upper()


def probe_overload_only_stub_function_exists():
    from acme.stubs import parse

    return parse(1)


def probe_star_import_cycle_finds_the_name():
    from acme.ring_a import from_b

    return from_b(1)


def probe_star_import_cycle_binds_the_call():
    from acme.ring_a import from_b

    return from_b(1, legacy=2)


def probe_star_import_cycle_missing_name():
    from acme.ring_a import from_c

    return from_c


def probe_from_a_submodule_named_as_a_package_binding():
    # oracle: gap (Python decides this; the tool leaves it undecided today)
    from acme.typing import is_classvar  # imports the submodule: the package binding loses

    return is_classvar(1)


def probe_the_package_binding_itself():  # oracle: unknown
    # the stdlib module, unless something imported the submodule acme.typing before (which
    # rebinds the attribute): an order of imports no static reading knows
    from acme import typing

    return typing.Any


def probe_a_name_the_stub_omits_but_the_module_defines():
    from acme.stubs import _private_helper

    return _private_helper(1)


def probe_a_name_removed_from_the_module_not_in_the_stub():
    from acme.stubs import old_public

    return old_public(1)


def probe_star_import_takes_all():
    from acme.starred import exported

    return exported()


def probe_star_import_leaves_out_what_all_does_not_list():
    from acme.starred import not_exported

    return not_exported()


def probe_star_import_of_an_all_a_function_extends():
    from acme.starred import added_at_run_time

    return added_at_run_time()


def probe_a_name_bound_to_a_function_binds_like_it():
    from acme import aliases

    return aliases.ib(1, convert=int)


def probe_module_attributes_the_import_system_sets():
    # oracle: gap (Python decides this; the tool leaves it undecided today)
    return acme.__name__, acme.__file__, acme.__spec__, acme.__path__


def probe_names_bound_by_unpacking_exist():
    from acme.unpacked import COLLECT, WARN, deeper, rest

    return COLLECT, WARN, deeper, rest


def probe_names_bound_by_loop_with_and_walrus_exist():
    from acme import unpacked

    return unpacked.loop_name, unpacked.opened, unpacked.walrus, unpacked.counter


def probe_a_name_unpacked_in_one_release_only_is_gone():
    from acme.unpacked import old_pair

    return old_pair


def probe_a_name_no_statement_binds_is_missing():
    from acme import unpacked

    return unpacked.never_bound
