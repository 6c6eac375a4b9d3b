"""Fast helpers: 0.2 broke this module (an unclosed bracket), so no Python can parse it."""


def scale(values, factor=2:
    return [v * factor for v in values]
