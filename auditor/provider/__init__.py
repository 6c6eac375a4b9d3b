"""Provider API: griffe, static only, lazily per module -> our own Symbol and Signature types.

griffe stays behind this package's door: `api.py` loads modules and answers lookups,
`functions.py` turns griffe functions into Signatures, `classes.py` derives constructors
(plain `__init__`, dataclasses, pydantic, attrs, msgspec, NamedTuple, TypedDict, Enum and
`dataclass_transform`), `exprs.py` reads griffe expressions. Nothing else imports griffe.
"""

from __future__ import annotations

from auditor.provider.api import ProviderAPI

__all__ = ["ProviderAPI"]
