"""Flags computed once, imported by the other modules."""
import acme

from widget._introspect import minversion

ACME_LT_0_2 = not minversion(acme, "0.2.dev0")
ACME_V2 = acme.__version__.startswith("0.2")
HAS_MODERN = hasattr(acme, "modern")
AT_LEAST_0_2 = not ACME_LT_0_2


def acme_is_new():
    return acme.version_info >= (0, 2)
