import functools
from contextlib import contextmanager

from acme._deco import Traced, identity, keyword_only_soon, logged, maybe, opaque, plain_forwarder, renamed, traced, updated


@identity
def ident(a):
    return a


@logged
def wrapped(a):
    return a


@updated
def updated_fn(a):
    return a


@plain_forwarder
def forwarded(a):
    return a


@maybe(enabled=False)
def conditional(a):
    return a


@Traced("x")
def traced_by_class(a):
    return a


@traced()
def traced_by_partial(a):
    return a


@functools.lru_cache(maxsize=None)
def cached(a):
    return a


@contextmanager
def session(name):
    yield name


@renamed(height="h")
def resize(width, h=1):
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
