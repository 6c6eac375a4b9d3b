def parse(x):
    return x


def _private_helper(x):  # the stub beside this file does not declare it
    return x


def old_public(x):  # declared in neither stub; removed in 0.2
    return x
