__version__ = "0.1"
version_info = (0, 1)


def fetch(url, timeout=None, verify=True):
    return url


def legacy(x):
    return x


def modern(x):
    return x


class Client:
    def send(self, data, retries=0):
        return data
