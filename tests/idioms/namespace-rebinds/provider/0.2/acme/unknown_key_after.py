"""a write whose key is not known, after the def: undecided."""

import os


def run(a, b=1, old=2):
    return a


def _impl(a, b=1, new=3):
    return a


for _key in sorted(os.environ)[:0]:
    globals()[_key] = _impl
