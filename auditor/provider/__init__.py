"""Provider API: griffe, static only, lazily per module -> our own Symbol and Signature types.

griffe stays behind this package's door: `api.py` answers lookups, built in parts
(`loading.py` visits modules, `resolution.py` walks dotted paths, `members.py` class members,
`exports.py` `__all__`, `signatures.py` Symbols, `moves.py` where a gone name went, `lookup.py`
their shared vocabulary), `functions.py` turns griffe functions into Signatures,
`classes.py` derives constructors (plain `__init__`, dataclasses, pydantic, attrs, msgspec,
NamedTuple, TypedDict, Enum and `dataclass_transform`), `exprs.py` reads griffe expressions.
`memo.py` answers repeated lookups from a persistent memo without importing griffe at all.
Nothing else imports griffe.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from auditor.provider.memo import Absent, MemoizedProvider, ResolutionMemo

if TYPE_CHECKING:
    from auditor.provider.api import ProviderAPI

__all__ = ["Absent", "MemoizedProvider", "ProviderAPI", "ResolutionMemo"]


def __getattr__(name: str) -> Any:
    if name == "ProviderAPI":  # imported on first use: it brings griffe
        from auditor.provider.api import ProviderAPI

        return ProviderAPI
    raise AttributeError(f"module 'auditor.provider' has no attribute {name!r}")
