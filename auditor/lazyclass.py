# Maintainers: `dataclass`, the standard one, with the methods it writes compiled when first
# called instead of when the class is made.
#
# Owns: start-up time. `dataclasses.dataclass` writes each class's methods as source text
# and compiles it on the spot (Python 3.10 to 3.12: one compile per method, ~0.07 ms each): the
# 36 frozen classes of model.py and guardmodel.py cost ~15 ms of every run, most of them
# methods a run never calls (`__repr__`, `__setattr__` and `__delattr__`, which only raise on
# a frozen class, `__eq__`, `__hash__`). Here every method but `__init__` is a stand-in that
# compiles the very text dataclasses wrote, with the same globals and locals, on its first
# call, then puts the real method in its place on the class: the class is what
# `dataclasses.dataclass` makes (fields, params, slots, pickling, `replace`), each method
# does what the standard one does. `__init__` is compiled at once (every class is made, and
# `inspect.signature` reads it). Where dataclasses has no `_create_fn` (3.13 compiles a
# class's methods in one go) or DRIFT_AUDIT_NO_LAZY_METHODS=1, this is dataclasses.dataclass.
# Takes: the class and dataclass's options. Gives: the class. Imports nothing of auditor.
# Modules use it at run time only (`if TYPE_CHECKING: from dataclasses import dataclass`), so
# the type checker sees the standard decorator.
"""`dataclass` with its generated methods compiled on first use."""

from __future__ import annotations

import dataclasses
import os
import threading
from typing import Any

SWITCH = "DRIFT_AUDIT_NO_LAZY_METHODS"
EAGER = frozenset({"__init__"})  # compiled at once: always called, and read by inspect
_STANDARD = getattr(dataclasses, "_create_fn", None)
_LOCK = threading.RLock()


def dataclass(cls: Any = None, /, **options: Any) -> Any:
    """`dataclasses.dataclass(cls, **options)`, its methods but `__init__` compiled lazily."""

    def wrap(klass: Any) -> Any:
        if _STANDARD is None or os.environ.get(SWITCH):
            return dataclasses.dataclass(**options)(klass)
        with _LOCK:
            before = dataclasses._create_fn  # type: ignore[attr-defined]
            dataclasses._create_fn = _create_fn  # type: ignore[attr-defined]
            try:
                return dataclasses.dataclass(**options)(klass)
            finally:
                dataclasses._create_fn = before  # type: ignore[attr-defined]

    return wrap if cls is None else wrap(cls)


def _create_fn(name: str, args: Any, body: Any, **how: Any) -> Any:
    """What dataclasses' `_create_fn` gives, compiled now (`__init__`) or on first call."""
    assert _STANDARD is not None
    if name in EAGER:
        return _STANDARD(name, args, body, **how)
    made: list[Any] = []

    def real() -> Any:
        if not made:
            method = _STANDARD(name, args, body, **how)
            method.__qualname__ = stand_in.__qualname__  # as dataclasses named the stand-in
            made.append(method)
        return made[0]

    def stand_in(self: Any, *rest: Any, **named: Any) -> Any:
        method = real()
        for klass in type(self).__mro__:  # the class that holds the stand-in gets the method
            if klass.__dict__.get(name) is stand_in:
                setattr(klass, name, method)
                break
        return method(self, *rest, **named)

    stand_in.__name__ = name
    return stand_in
