"""acme 0.1: __getattr__ delegates to a helper; acme.compat's comes from a factory;
acme.legacy warns flask-style (an import inside __getattr__)."""

from acme._lazy import lazy_attribute


def tool(x):
    return x


def __getattr__(name):
    return lazy_attribute(name)
