def parse(x):
    return x
