"""attrs classes: classic `attr.s`/`attr.ib` and `define`/`frozen`/`field`."""

from __future__ import annotations

import attr
from attrs import define, field, frozen


@attr.s
class Legacy:
    key = attr.ib()
    value = attr.ib(default=None)
    ttl = attr.ib(default=0)
    note: str = "n"  # no attr.ib and no auto_attribs: a class attribute, not a field


@attr.s(auto_attribs=True)
class Entry:
    key: str
    weight: float = 1.0


@define
class Conn:
    host: str
    _retries: int = 3


@frozen
class Version:
    major: int
    minor: int = 0
    patch: int = 0


@define
class Pool:
    _size: int = field(default=4, alias="capacity")
    limit: int = field(default=1)


@define
class Store:
    name: str
    cache: dict = field(factory=dict)


@define
class Opts:
    verbose: bool = False
    level: int = 0


@define
class Request:
    url: str
    timeout: float = field(default=1.0)
