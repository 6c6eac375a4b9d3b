import functools
from contextlib import contextmanager

from acme._deco import Traced, identity, keyword_only_soon, logged, maybe, opaque, plain_forwarder, renamed, traced, updated


@identity
def ident(a, b=1):
    return a


@logged
def wrapped(a, b=1):
    return a


@updated
def updated_fn(a, b=1):
    return a


@plain_forwarder
def forwarded(a, b=1):
    return a


@maybe(enabled=False)
def conditional(a, b=1):
    return a


@Traced("x")
def traced_by_class(a, b=1):
    return a


@traced()
def traced_by_partial(a, b=1):
    return a


@functools.lru_cache(maxsize=None)
def cached(a, b=1):
    return a


@contextmanager
def session(name, timeout=1):
    yield name


def resize(width, height=1):
    return width


@keyword_only_soon
def plot(x, *, color=None, size=None):
    return x


@opaque
def hidden(x, y):
    return x


from acme._deco import registered


@registered
def lookup(key):
    return key
