def ttest(a, b):
    return 0
