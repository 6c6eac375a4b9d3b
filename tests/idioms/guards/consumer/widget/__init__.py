import logging

import acme

logger = logging.getLogger(__name__)
VERIFY_REMOVED = acme.version_info >= (0, 2)  # a name standing for a version test


def probe_import_with_an_alternative():
    try:
        from acme import legacy as convert
    except ImportError:
        from acme import modern as convert
    return convert(1)


def probe_import_whose_alternative_fails_too():
    try:
        from acme import legacy as convert
    except ImportError:
        from acme import ancient as convert
    return convert(1)


def probe_module_not_found_does_not_catch_a_missing_name():
    try:
        from acme import legacy
    except ModuleNotFoundError:
        legacy = None
    return legacy


def probe_type_error_fallback_call():
    try:
        return acme.fetch("u", verify=False)
    except TypeError:
        return acme.fetch("u")


def probe_broad_handler_that_logs_and_returns_the_error():
    try:
        return acme.fetch("u", verify=False)
    except Exception as error:
        logger.warning("fetch failed: %s", error)
        return error


def probe_broad_handler_that_wraps_the_error():
    try:
        return acme.legacy(1)
    except Exception as error:
        raise RuntimeError("cannot convert") from error


def probe_broad_handler_with_an_alternative_value():
    try:
        value = acme.Client().send(b"x", retries=2)
    except Exception:
        value = acme.Client().send(b"x")
    return value


def probe_bare_handler_that_logs_an_import():
    try:
        from acme import legacy
    except BaseException as error:  # noqa: BLE001
        logger.exception("no legacy")
        return error
    return legacy(1)


def probe_plain_call_still_fits():
    return acme.fetch("u", timeout=3)


def probe_version_test_keeps_the_old_keyword_in_its_branch():
    if acme.version_info >= (0, 2):
        return acme.fetch("u")
    else:
        return acme.fetch("u", verify=False)


def probe_version_flag_keeps_the_old_keyword_in_its_branch():
    if not VERIFY_REMOVED:
        return acme.fetch("u", verify=False)
    return acme.fetch("u")


def probe_version_test_then_early_return():
    if acme.version_info[:2] >= (0, 2):
        return acme.fetch("u")
    return acme.fetch("u", verify=False)


def probe_version_test_with_a_bound_that_still_lets_it_run():
    if acme.version_info >= (0, 1):
        return acme.fetch("u", verify=False)
    return acme.fetch("u")


def probe_version_test_left_undecided_still_binds():
    # `>` against a tuple whose length is not known: (0, 2, 0) > (0, 2) in Python, so the
    # analysis does not decide it and binds the call as it always did
    if acme.version_info > (0, 2):
        return acme.fetch("u")
    return acme.fetch("u", verify=False)
