import warnings


def swap(x, y):
    return x


def rename(path, mode="r"):
    return path


def move(a, b, c=0):
    return a


def maybe_old(data, legacy=None):
    if legacy is not None:
        warnings.warn("legacy is deprecated", DeprecationWarning, stacklevel=2)
    return data


class Plain:
    def __init__(self, size):
        self.size = size


class Cloning:
    def __init__(self, size):
        self.size = size

    def copy(self):
        return type(self)(self.size)
