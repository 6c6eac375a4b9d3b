"""The legacy top-level package of the acme distribution."""


def run(a):
    return a
