"""A metaclass set by a class decorator (six.add_metaclass's idiom), with properties."""


def add_metaclass(metaclass):
    def wrapper(cls):
        body = dict(cls.__dict__)
        body.pop("__dict__", None)
        body.pop("__weakref__", None)
        return metaclass(cls.__name__, cls.__bases__, body)

    return wrapper


class _RetryMeta(type):
    @property
    def DEFAULT_ALLOWED(cls):
        return frozenset({"GET"})


@add_metaclass(_RetryMeta)
class Retry:
    def __init__(self, total=10):
        self.total = total
