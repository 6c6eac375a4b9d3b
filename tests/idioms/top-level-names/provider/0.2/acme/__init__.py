"""acme 0.2 ships acme only: pkg_legacy is retired, its run moved into acme.legacy."""

from acme import legacy


def ok():
    return 1
