def shared(a):
    return a
