"""acme.speedups 0.1: pure Python. In 0.2 the module is compiled, with no stub beside it."""


def fast_sum(values):
    return sum(values)


def legacy_mean(values):
    return sum(values) / len(values)
