"""setattr(sys.modules[__name__], "run", _impl)."""

import sys


def run(a, b=1, old=2):
    return a


def _impl(a, b=1, new=3):
    return a


setattr(sys.modules[__name__], "run", _impl)
