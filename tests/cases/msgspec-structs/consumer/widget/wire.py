"""Builds acme's msgspec Structs.

In 0.2 Packet lost `checksum`; Ack gained the required `stream`; Options became kw_only;
Record lost `tags` (its `record_id` is encoded as "id", but passed as record_id).
"""

from __future__ import annotations

import msgspec

from acme import wire
from acme.wire import Ack, Options, Packet


def packet_checksum() -> Packet:
    return Packet("data", checksum=7)  # expect: unexpected-keyword


def packet_positional() -> Packet:
    return Packet("data", 2, b"x", 7)  # expect: too-many-positional


def packet() -> Packet:
    return Packet("data", 2, b"x")  # near-miss: inherited fields first, then payload


def ack() -> Ack:
    return Ack(3, window=8)  # expect: missing-argument


def ack_stream() -> Ack:
    return Ack(3, stream="s")  # near-miss: passes the new field


def options_positional() -> Options:
    return Options(True)  # expect: too-many-positional


def options() -> Options:
    return Options(compress=True, level=9)  # near-miss: keywords fit kw_only


def record_tags() -> wire.Record:
    return wire.Record("r1", tags=["a"])  # expect: unexpected-keyword


def record() -> wire.Record:
    return wire.Record(record_id="r1")  # near-miss: `name="id"` renames the encoding only


def decode() -> object:
    return msgspec.json.decode(b'{"kind": "k"}', type=Packet)  # near-miss: not acme's call
