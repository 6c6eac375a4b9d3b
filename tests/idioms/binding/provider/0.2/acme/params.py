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
