"""acme 0.2: the package itself still parses."""


def run(a, b=1):
    return a + b
