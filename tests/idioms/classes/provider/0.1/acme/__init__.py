"""Classes beyond __init__: __new__, metaclass members, class and instance attributes."""


class Point:
    """Made by __new__ alone."""

    def __new__(cls, x, y=0):
        return super().__new__(cls)


class Both:
    """__new__ and __init__: a call must fit both."""

    def __new__(cls, *args, **kwargs):
        return super().__new__(cls)

    def __init__(self, a, b=1):
        self.a = a


class Meta(type):
    REGISTRY = {}

    @property
    def label(cls):
        return cls.__name__


class Plugin(metaclass=Meta):
    NAME = "plugin"
    TIMEOUT = 3

    def __init__(self, host):
        self.host = host
        self.port = 80

    def connect(self, retries=1):
        self.session = object()
        return self


class Param:
    def __init__(self, name):
        self.name = name

    def describe(self, verbose=False):
        return self.name


class Sig:
    def __init__(self):
        self.params: list[Param] = [Param("a")]
        self.by_name: dict[str, Param] = {"a": Param("a")}


def make_plugin(host) -> Plugin:
    return Plugin(host)
