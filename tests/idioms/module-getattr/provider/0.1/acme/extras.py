def extra(x):
    return x
