"""globals()["run"] = _impl: rebinds run, as `run = _impl` does."""

def run(a, b=1, old=2):
    return a


def _impl(a, b=1, new=3):
    return a


globals()["run"] = _impl
