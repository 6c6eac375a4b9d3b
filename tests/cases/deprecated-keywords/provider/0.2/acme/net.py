import warnings


def fetch(url, timeout=None, retries=0, **options):
    if retries:
        warnings.warn("retries is deprecated; use a Retry policy", DeprecationWarning, stacklevel=2)
    if "verify" in options:
        warnings.warn("verify= is deprecated", DeprecationWarning, stacklevel=2)
    return (url, timeout, retries, options)


def resolve(host, family=None):
    if host.endswith(".local"):
        warnings.warn("mDNS names are deprecated", DeprecationWarning, stacklevel=2)
    return (host, family)
