def helper(a, b=None):
    return a


def another():
    return None
