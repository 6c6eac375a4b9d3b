"""a write in a branch that may not run: undecided."""

import os


def run(a, b=1, old=2):
    return a


def _impl(a, b=1, new=3):
    return a


if os.environ.get("ACME_NEW_RUN"):
    globals()["run"] = _impl
