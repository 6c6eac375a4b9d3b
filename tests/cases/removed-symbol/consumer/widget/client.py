"""Talks to acme.api.

A name whose import is reported is not reported again where it is used (use_gone()).
"""

from __future__ import annotations

import acme.api
from acme.api import gone  # expect: removed-symbol
from acme.api import kept, moved_helper  # near-miss: moved_helper moved, still re-exported


def call_gone_by_path() -> str:
    return acme.api.gone()  # expect: removed-symbol


def use_gone() -> str:
    return gone()


def read_limit() -> int:
    limit = acme.api.GONE_CONST  # expect: removed-symbol
    return limit


def read_kept_limit() -> int:
    limit = acme.api.KEPT_CONST  # near-miss
    return limit


def old_method_ref() -> object:
    return acme.api.Client.old_method  # expect: removed-symbol


def fetch_ref() -> object:
    return acme.api.Client.fetch  # near-miss: the method is still there


def double() -> int:
    return moved_helper(2) + len(kept())  # near-miss


def open_session() -> object:
    return acme.api.Session("s1")  # near-miss: Session moved to acme.session, re-exported
