def mean(values, axis=None):
    return 0


def median(values):
    return 0
