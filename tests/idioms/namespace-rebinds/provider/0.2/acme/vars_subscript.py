"""vars()["run"] = _impl at the top level."""

def run(a, b=1, old=2):
    return a


def _impl(a, b=1, new=3):
    return a


vars()["run"] = _impl
