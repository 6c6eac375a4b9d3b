"""Builds acme models whose constructors come from their base classes."""

from __future__ import annotations

import acme.models
from acme.models import Custom, Derived


def encoder() -> Derived:
    # Derived has no __init__: Base.__init__ gained the required `dtype` in 0.2
    return Derived("encoder")  # expect: missing-argument


def encoder_updated() -> Derived:
    return Derived("encoder", "float16")  # near-miss: passes the new parameter


def special() -> acme.models.Special:
    return acme.models.Special("decoder", device="cuda")  # expect: missing-argument


def custom() -> Custom:
    return Custom("adapter")  # near-miss: its own __init__ gives dtype a default


def layer() -> object:
    # torch.nn.Module's constructor is outside acme: nothing can be known, nothing is said
    return acme.models.Layer(4, hidden=8)  # near-miss


def head() -> object:
    # built on Base in 0.1, on torch.nn.Module in 0.2: unknown in the target, so silent
    return acme.models.Head("head")  # near-miss
