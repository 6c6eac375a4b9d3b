"""A provider class consumers subclass (httpx.Client's shape)."""


class Client:
    def __init__(self, base=None, timeout=5, proxies=None):
        self.base = base
