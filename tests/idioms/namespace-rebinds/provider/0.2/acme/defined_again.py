"""the write comes before a def of the same name: the def wins."""

def run(a, b=1, old=2):
    return a


def _impl(a, b=1, new=3):
    return a


globals()["run"] = _impl


def run(a, b=1, old=2):
    return a
