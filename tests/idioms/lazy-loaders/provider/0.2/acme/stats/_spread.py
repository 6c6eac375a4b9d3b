def std(values):
    return 0
