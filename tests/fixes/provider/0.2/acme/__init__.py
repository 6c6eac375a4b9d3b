"""acme 0.2: names moved, keywords renamed or gone, parameters keyword-only."""

import warnings

from acme.utils.math import cdiv as _cdiv  # noqa: F401  (the package uses it itself)


def run(model, retries=3):
    return model


def build(model, *, block, dtype):
    return (model, block, dtype)


def start(job, *, deadline=10, **kwargs):
    if "timeout" in kwargs:
        warnings.warn("timeout= is deprecated; pass deadline=", DeprecationWarning, stacklevel=2)
        deadline = kwargs.pop("timeout")
    if kwargs:
        raise TypeError(f"unexpected keywords {sorted(kwargs)}")
    return (job, deadline)


def fetch(url, deadline=30):
    return url


def plan(jobs, *, limit=1, budget):
    return jobs


def stream(items, size=4):
    return items


def train(data, vector_size=100, epochs=5, shrink_windows=True):
    return (vector_size, epochs)
