def is_classvar(x):
    return False
