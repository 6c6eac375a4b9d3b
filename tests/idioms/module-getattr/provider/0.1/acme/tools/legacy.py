def convert(x):
    return x
