def fetch(url, timeout=None):
    return url


def modern(x):
    return x


class Client:
    def send(self, data):
        return data
