def g(x, y=1):
    return x + y


def k(x):
    return x
