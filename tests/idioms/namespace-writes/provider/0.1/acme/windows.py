"""Functions made at import time by a factory, one per name, through locals()."""


def _window(name):
    def make(size, sym=True):
        return [name] * size

    make.__name__ = name
    return make


_NAMES = ("hann", "hamming", "blackman")

for _name in _NAMES:
    locals()[_name] = _window(_name)
