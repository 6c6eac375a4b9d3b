__version__ = "0.2"
version_info = (0, 2)


def fetch(url, timeout=None):
    return url


def modern(x):
    return x
