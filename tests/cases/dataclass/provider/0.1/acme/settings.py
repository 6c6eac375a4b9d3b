"""Settings objects whose constructors come from their fields."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import somelib


@dataclass
class RunSettings:
    name: str
    steps: int = 10
    tags: list[str] = field(default_factory=list)
    legacy_mode: bool = False
    cache: dict[str, int] = field(init=False, default_factory=dict)


@dataclasses.dataclass(frozen=True)
class Limits:
    max_tokens: int = 256
    max_batch: int = 8


@somelib.model
class Record:
    """Its constructor is made by somelib: it cannot be known from acme's source."""

    key: str
    value: int = 0
