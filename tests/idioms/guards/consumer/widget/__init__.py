import logging

import acme

logger = logging.getLogger(__name__)


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
