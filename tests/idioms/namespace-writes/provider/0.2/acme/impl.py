def mapped(x):
    return x


def gone(x):
    return x
