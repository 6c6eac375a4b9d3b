from acme.starred import _extra

__all__ = ["base"]


def base():
    return 0


def _extend_all(module):
    for name in module.__all__:
        if name not in __all__:
            __all__.append(name)


from acme.starred._extra import *  # noqa: E402, F403

_extend_all(_extra)
