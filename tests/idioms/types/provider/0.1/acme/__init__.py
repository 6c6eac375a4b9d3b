"""Values the provider gives no type: module-level instances, attributes stored by methods,
methods that return `self` or another method's result."""

from acme import frames, hooks, hub
from acme.est import Estimator, Plain, Settable
from acme.hub import Api, api, create, make_repo
from acme.loose import Cell, Sheet, open_any
from acme.models import Manager, Model, Registered, Request

__all__ = [
    "Api", "Cell", "Estimator", "Manager", "Model", "Plain", "Registered", "Request", "Settable", "Sheet",
    "api", "create", "hub", "make_repo", "open_any",
]  # fmt: skip
