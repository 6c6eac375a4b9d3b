def shared(a):
    return a


def only_first(a):
    return a
