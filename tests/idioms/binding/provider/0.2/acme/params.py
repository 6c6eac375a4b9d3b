"""Keywords handed on through **kwargs, as click's argument() -> Argument -> Parameter."""


class Parameter:
    def __init__(self, decls, required=False, default=None):
        self.decls = decls


class Argument(Parameter):
    def __init__(self, decls, required=None, **attrs):
        super().__init__(decls, required=required, **attrs)


def argument(*decls, **attrs):
    cls = attrs.pop("cls", None) or Argument
    return cls(decls, **attrs)


def loose(*decls, **attrs):
    attrs["extra"] = 1  # the dict is changed: where its keys go is not followed
    return Argument(decls, **{k: v for k, v in attrs.items() if k != "extra"})


class Custom(Parameter):
    def __init__(self, decls, completion=None, **attrs):
        super().__init__(decls, **attrs)


class Command:
    def __init__(self, name, help=None):
        self.name = name


class Group(Command):
    def __init__(self, name, chain=False, **attrs):
        super().__init__(name, **attrs)


def command(name=None, cls=None, **attrs):
    if cls is None:
        cls = Command
    return cls(name, **attrs)


def group(name=None, **attrs):
    attrs["cls"] = Group  # the wrapper picks the class by a keyword it adds itself
    return command(name, **attrs)
