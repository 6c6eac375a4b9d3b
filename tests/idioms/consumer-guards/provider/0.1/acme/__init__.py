__version__ = "0.1"
version_info = (0, 1)


def fetch(url, verify=True, timeout=None):
    return url


def legacy(x):
    return x


class Legacy:
    pass


class Base:
    def ping(self):
        return 1


class Sub(Base):
    def extra(self, n):
        return n


def make():
    return Sub()
