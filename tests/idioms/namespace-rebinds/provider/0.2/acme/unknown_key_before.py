"""a write whose key is not known, before the def."""

import os


def _impl(a, b=1, new=3):
    return a


for _key in sorted(os.environ)[:0]:
    globals()[_key] = _impl


def run(a, b=1, old=2):
    return a
