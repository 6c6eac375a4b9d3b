def std(values, ddof=0):
    return 0
