"""Builds acme's Event (a Schema subclass) and Row (made by RecordMeta).

Both get their constructors from their fields through dataclass_transform; in 0.2 Event
gained the required `source` and Row the required `table`.
"""

from __future__ import annotations

from acme.schema import Event, Row


def event() -> Event:
    return Event(name="boot", level=1)  # expect: missing-argument


def sourced_event() -> Event:
    return Event(name="boot", source="kernel")  # near-miss: passes the new field


def row() -> Row:
    return Row("k", value=1)  # expect: missing-argument


def table_row() -> Row:
    return Row("k", table="t")  # near-miss
