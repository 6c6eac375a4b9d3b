"""Fast helpers, plain Python in 0.1."""


def scale(values, factor=2):
    return [v * factor for v in values]
