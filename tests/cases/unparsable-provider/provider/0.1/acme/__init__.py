"""acme 0.1."""


def run(a, b=1):
    return a + b
