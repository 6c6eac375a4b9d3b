def shared(a, b=1):
    return a
