"""Classes whose constructors come from a base class or a metaclass marked dataclass_transform."""

from __future__ import annotations

import dataclasses
from typing import Any

from typing_extensions import dataclass_transform


@dataclass_transform()
class Schema:
    """Every subclass becomes a stdlib dataclass."""
    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        dataclasses.dataclass(cls)


@dataclass_transform()
class RecordMeta(type):
    """Every class made with this metaclass (but the root) becomes a stdlib dataclass."""
    def __new__(mcs, name: str, bases: tuple[type, ...], namespace: dict[str, Any]) -> type:
        cls = super().__new__(mcs, name, bases, namespace)
        return dataclasses.dataclass(cls) if bases else cls


class Record(metaclass=RecordMeta):
    pass


class Event(Schema):
    name: str
    level: int = 0


class Row(Record):
    key: str
    value: int = 0
