"""a function called at import time writes it."""

def run(a, b=1, old=2):
    return a


def _impl(a, b=1, new=3):
    return a


def _install():
    globals()["run"] = _impl


_install()
