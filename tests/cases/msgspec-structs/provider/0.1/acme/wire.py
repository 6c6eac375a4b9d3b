"""msgspec Structs: their constructors come from their fields."""

from __future__ import annotations

import msgspec


class Header(msgspec.Struct):
    kind: str
    version: int = 1


class Packet(Header):
    """Inherits Header's fields first."""

    payload: bytes = b""
    checksum: int = 0


class Ack(msgspec.Struct):
    seq: int
    window: int = 16


class Options(msgspec.Struct):
    compress: bool = False
    level: int = 0


class Record(msgspec.Struct, frozen=True):
    record_id: str = msgspec.field(name="id")
    tags: list[str] = msgspec.field(default_factory=list)
