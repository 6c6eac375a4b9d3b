__all__ = ["exported"]


def exported():
    return 1


def not_exported():  # `import *` takes __all__: this one stays behind
    return 2
