"""Two modules that star-import each other (Python: each gets what the other had so far)."""

from acme.ring_b import *  # noqa: F403


def from_a(x):
    return x
