"""A file that imports another distribution: its classes may have the method."""

import acme
import otherlib


def spread(frame):
    return frame.mad()  # near-miss: otherlib may define mad


def load():
    return acme.load(True), otherlib
