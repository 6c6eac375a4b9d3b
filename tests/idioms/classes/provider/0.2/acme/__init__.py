class Point:
    def __new__(cls, x, *, y=0):
        return super().__new__(cls)


class Both:
    def __new__(cls, *args, **kwargs):
        return super().__new__(cls)

    def __init__(self, a):
        self.a = a


class Meta(type):
    @property
    def title(cls):
        return cls.__name__


class Plugin(metaclass=Meta):
    NAME = "plugin"

    def __init__(self, host):
        self.host = host

    def connect(self, retries=1):
        self.session = object()
        return self


class Param:
    def __init__(self, name):
        self.name = name

    def describe(self):
        return self.name


class Sig:
    def __init__(self):
        self.params: list[Param] = [Param("a")]
        self.by_name: dict[str, Param] = {"a": Param("a")}


def make_plugin(host) -> Plugin:
    return Plugin(host)
