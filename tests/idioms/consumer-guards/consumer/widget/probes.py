import importlib.util
from typing import TYPE_CHECKING

import acme

from widget import compat
from widget.compat import AT_LEAST_0_2, ACME_LT_0_2, HAS_MODERN, acme_is_new

IS_V2 = acme.__version__.startswith("0.2")  # this module's own vague flag


def probe_imported_flag_keeps_the_removed_name_in_its_branch():
    if ACME_LT_0_2:
        return acme.legacy(1)
    return acme.modern(1)


def probe_imported_flag_read_through_its_module():
    if not compat.ACME_LT_0_2:
        return acme.fetch("u")
    return acme.fetch("u", verify=False)


def probe_imported_flag_then_early_return():
    if ACME_LT_0_2:
        return acme.fetch("u", verify=False)
    return acme.fetch("u")


def probe_flag_defined_from_another_flag():
    if AT_LEAST_0_2:
        return acme.fetch("u")
    return acme.fetch("u", verify=False)


def probe_vague_imported_flag_guards_a_removed_name():
    if compat.ACME_V2:
        return acme.modern(1)
    return acme.legacy(1)


def probe_vague_local_flag_guards_a_removed_name():
    if not IS_V2:
        return acme.legacy(1)
    return acme.modern(1)


def probe_imported_feature_flag():
    if HAS_MODERN:
        return acme.modern(1)
    return acme.legacy(1)


def probe_helper_returning_a_version_test():
    if acme_is_new():
        return acme.fetch("u")
    return acme.fetch("u", verify=False)


def probe_hasattr_feature_test():
    if hasattr(acme, "legacy"):
        return acme.legacy(1)
    return acme.modern(1)


def probe_find_spec_feature_test():
    if importlib.util.find_spec("acme.extras") is not None:
        from acme.extras import thing

        return thing
    return None


def probe_type_checking_block_with_a_fallback_import():
    if TYPE_CHECKING:
        try:
            from acme import Legacy
        except ImportError:
            Legacy = None
        return Legacy
    return 1


def probe_local_annotation_is_never_evaluated():
    value: acme.Legacy = None
    return value


def probe_flag_still_lets_a_real_break_through():
    if AT_LEAST_0_2:
        return acme.fetch("u", verify=False)
    return acme.fetch("u")


def probe_conditional_expression_on_an_imported_flag():
    return acme.legacy(1) if ACME_LT_0_2 else acme.modern(1)


def probe_isinstance_narrows_to_a_subclass():
    item: acme.Base = acme.make()
    if isinstance(item, acme.Sub):
        return item.extra(1)
    return item.ping()


def probe_isinstance_narrows_after_an_early_return():
    item: acme.Base = acme.make()
    if not isinstance(item, acme.Sub):
        return item.ping()
    return item.extra(2)


def probe_hasattr_of_another_object_guards_nothing():
    value = object()
    if hasattr(value, "__jsondump__"):
        return value
    return acme.legacy(1)
