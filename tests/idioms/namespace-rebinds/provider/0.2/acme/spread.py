"""globals().update(**names): undecided."""

def run(a, b=1, old=2):
    return a


def _impl(a, b=1, new=3):
    return a


globals().update(**{"run": _impl})
