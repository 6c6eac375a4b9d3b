__version__ = "0.1"
version_info = (0, 1)


def fetch(url, verify=True, timeout=None):
    return url


def legacy(x):
    return x


class Legacy:
    pass
