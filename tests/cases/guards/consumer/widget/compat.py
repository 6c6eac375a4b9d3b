"""Code written to survive acme's changes: import fallbacks, version checks, dynamic access.

0.2 moved Engine from acme.old to acme.new, removed acme.legacy, acme.gone and acme.extras,
replaced api.make_legacy(size) with api.make(*, size) and gave api.Pool a required `name`.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

import acme
import acme.api

try:
    from acme.new import Engine  # near-miss: missing in 0.1, the fallback covered it
except ImportError:
    from acme.old import Engine  # near-miss: gone in 0.2, but acme.new resolves

try:
    from acme.core import Engine as CoreEngine
except ModuleNotFoundError:
    from acme.legacy import Engine as CoreEngine  # near-miss: the alternative resolves

if TYPE_CHECKING:
    from acme.gone import Token  # near-miss: never imported at run time

with contextlib.suppress(ImportError):
    from acme.extras import warp  # near-miss: a failed import is suppressed

ACME_VERSION = tuple(int(part) for part in acme.__version__.split("."))


def engines() -> tuple[Engine, CoreEngine]:
    return Engine(workers=2), CoreEngine()  # near-miss


def check(token: Token | None = None) -> bool:
    return token is None  # near-miss: Token is only an annotation


def build() -> dict[str, int]:
    if acme.__version__ >= "0.2":
        return acme.api.make(size=1)  # near-miss: preexisting, but guarded by the check
    else:
        return acme.api.make_legacy(1)  # near-miss: the branch for older versions


def build_by_tuple() -> dict[str, int]:
    if ACME_VERSION < (0, 2):
        return acme.api.make_legacy(2)  # near-miss: guarded by a version check
    return acme.api.make(size=2)  # near-miss


def build_dynamic() -> dict[str, int]:
    name = "make" if hasattr(acme.api, "make") else "make_legacy"
    if name == "make":
        return getattr(acme.api, name)(size=3)  # near-miss: dynamic getattr
    return getattr(acme.api, name)(3)  # near-miss


def make_pool(**kwargs: Any) -> acme.api.Pool:
    return acme.api.Pool(**kwargs)  # near-miss: **kwargs may supply `name`


def pool() -> acme.api.Pool:
    return make_pool(name="p", workers=2)  # near-miss: a consumer function


def turbo() -> str | None:
    try:
        from acme.extras import turbo
    except ImportError:
        return None
    return turbo()  # near-miss
