import warnings


def swap(y, x):
    return x


def rename(filename, mode="r"):
    return filename


def move(b, a, c=0):
    return a


def maybe_old(data, legacy=None):
    if legacy is not None:
        warnings.warn("legacy is deprecated", DeprecationWarning, stacklevel=2)
    return data


class Plain:
    def __init__(self, size, *, color="red"):
        self.size = size


class Cloning:
    def __init__(self, size, *, color="red"):
        self.size = size
        self.color = color

    def copy(self):
        return type(self)(self.size, color=self.color)
