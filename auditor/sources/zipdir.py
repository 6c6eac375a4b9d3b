# Maintainers: the zip format as data, for reading single members of a remote wheel.
#
# Owns: finding the end-of-central-directory record (and the zip64 locator and record) in the
#       tail of an archive, parsing the central directory into `Member`s (name, where its local
#       record starts and ends, sizes, method, CRC), merging members into byte spans to fetch,
#       and turning the bytes of one local record into the member's content (stored or
#       deflated, never inflated past its declared size; the CRC checked). A wheel's RECORD is
#       parsed here too (path -> sha256), and a member checked against it.
# Takes: bytes and offsets. Gives: Directory, Member, Span, member bytes. No I/O at all.
# Anything malformed raises ArchiveError; a layout we do not read (encryption, a compression
# method other than stored/deflate, a split archive) raises Unsupported so the caller can fall
# back to downloading the whole file.
"""Zip central directories and local records, parsed from bytes."""

from __future__ import annotations

import base64
import hashlib
import io
import logging
import struct
import zlib
from dataclasses import dataclass
from stat import S_ISLNK
from typing import TYPE_CHECKING, NamedTuple

from auditor.errors import ArchiveError
from auditor.sources import limits

if TYPE_CHECKING:
    from collections.abc import Iterable

log = logging.getLogger("drift_audit")

EOCD = b"PK\x05\x06"
EOCD64_LOCATOR = b"PK\x06\x07"
EOCD64 = b"PK\x06\x06"
CENTRAL = b"PK\x01\x02"
LOCAL = b"PK\x03\x04"
_EOCD_SIZE = 22
_LOCATOR_SIZE = 20
_EOCD64_SIZE = 56
_CENTRAL_SIZE = 46
_LOCAL_SIZE = 30
_MAX_COMMENT = 0xFFFF
_MAX_LOCAL_EXTRA = 2 * 0xFFFF + 24  # a local header's name and extra field, a data descriptor
_UTF8_FLAG = 0x800
_ENCRYPTED_FLAG = 0x1
STORED, DEFLATED = 0, 8
READABLE_METHODS = (STORED, DEFLATED)


class Unsupported(Exception):
    """A valid archive this reader does not handle; download the whole file instead."""


class Member(NamedTuple):  # a tuple: thousands are loaded from the cache on every run
    """One file in the archive: its local record spans [offset, end) of the archive."""

    name: str
    offset: int  # where its local header starts
    end: int  # where the next local record (or the central directory) starts
    compressed: int
    size: int
    method: int
    crc: int
    flags: int = 0
    external: int = 0  # external attributes: the high 16 bits are the Unix mode

    @property
    def is_dir(self) -> bool:
        return self.name.endswith("/")

    @property
    def is_link(self) -> bool:
        return S_ISLNK(self.external >> 16)


@dataclass(frozen=True)
class Directory:
    """Where the central directory is, once the end record has been read."""

    offset: int
    size: int
    entries: int


@dataclass(frozen=True)
class Span:
    """A byte range to fetch, [start, end), covering one or more members."""

    start: int
    end: int
    members: tuple[Member, ...]


# --------------------------------------------------------------------------- end records


def find_directory(tail: bytes, tail_start: int, total: int) -> Directory | int:
    """The central directory's place, from the archive's last bytes (`tail` starts at
    `tail_start` in an archive of `total` bytes); or the offset from which the tail must
    start instead (a zip64 record that lies before it). ArchiveError for records that are
    cut short or point outside the archive."""
    try:
        return _find_directory(tail, tail_start, total)
    except struct.error as exc:
        raise ArchiveError(f"the zip end records are truncated: {exc}") from None


def _find_directory(tail: bytes, tail_start: int, total: int) -> Directory | int:
    at = _find_eocd(tail)
    disk, cd_disk, _, entries, size, offset = struct.unpack_from("<4xHHHHII", tail, at)
    if disk != 0 or cd_disk != 0:
        raise Unsupported("a split (multi-disk) archive")
    if entries == 0xFFFF or 0xFFFFFFFF in (size, offset):
        return _zip64_directory(tail, tail_start, at)
    return _checked(Directory(offset, size, entries), total)


def _find_eocd(tail: bytes) -> int:
    lowest = max(0, len(tail) - _EOCD_SIZE - _MAX_COMMENT)
    at = tail.rfind(EOCD, lowest)
    while at >= 0:
        comment = struct.unpack_from("<H", tail, at + 20)[0] if at + _EOCD_SIZE <= len(tail) else -1
        if at + _EOCD_SIZE + comment == len(tail):
            return at
        at = tail.rfind(EOCD, lowest, at)
    raise ArchiveError(
        "no zip end-of-central-directory record in the archive's last bytes",
        hint="the file is not a zip archive, or it is truncated",
    )


def _zip64_directory(tail: bytes, tail_start: int, eocd_at: int) -> Directory | int:
    locator = eocd_at - _LOCATOR_SIZE
    if locator < 0 or tail[locator : locator + 4] != EOCD64_LOCATOR:
        raise ArchiveError("a zip64 archive without its zip64 locator")
    record_offset: int = struct.unpack_from("<8xQ", tail, locator)[0]
    at = record_offset - tail_start
    if at < 0:
        return record_offset
    if tail[at : at + 4] != EOCD64:
        raise ArchiveError("the zip64 end record is not where its locator says")
    if at + _EOCD64_SIZE > len(tail):
        raise ArchiveError("the zip64 end record is truncated")
    entries, size, offset = struct.unpack_from("<32xQQQ", tail, at)
    return _checked(Directory(offset, size, entries), tail_start + at)


def _checked(directory: Directory, limit: int) -> Directory:
    if directory.offset + directory.size > limit:
        raise ArchiveError("the zip central directory runs past the end of the archive")
    if directory.size > limits.MAX_DIRECTORY_BYTES:
        raise ArchiveError(
            f"the zip central directory is {directory.size} bytes, over the limit of "
            f"{limits.MAX_DIRECTORY_BYTES}",
            hint=limits.BOMB_HINT,
        )
    return directory


# --------------------------------------------------------------------------- central directory


def parse_directory(data: bytes, directory: Directory) -> list[Member]:
    """Every member listed in the central directory `data`, in archive order; ArchiveError
    for entries or extra fields cut short."""
    try:
        return _parse_directory(data, directory)
    except struct.error as exc:
        raise ArchiveError(f"the zip central directory is truncated: {exc}") from None


def _parse_directory(data: bytes, directory: Directory) -> list[Member]:
    raw: list[tuple[str, int, int, int, int, int, int, int]] = []
    pos = 0
    for _ in range(directory.entries):
        if data[pos : pos + 4] != CENTRAL:
            raise ArchiveError("the zip central directory is corrupt (bad entry signature)")
        flags, method, crc, compressed, size, name_len, extra_len, comment_len = struct.unpack_from(
            "<8xHH4xIIIHHH", data, pos
        )
        external, offset = struct.unpack_from("<38xII", data, pos)
        name_at = pos + _CENTRAL_SIZE
        name_bytes = data[name_at : name_at + name_len]
        extra = data[name_at + name_len : name_at + name_len + extra_len]
        compressed, size, offset = _zip64_sizes(extra, compressed, size, offset)
        name = name_bytes.decode("utf-8" if flags & _UTF8_FLAG else "cp437", errors="replace")
        raw.append((name, offset, compressed, size, method, crc, flags, external))
        pos = name_at + name_len + extra_len + comment_len
    return _with_ends(raw, directory.offset)


def _zip64_sizes(extra: bytes, compressed: int, size: int, offset: int) -> tuple[int, int, int]:
    """Sizes and offset from the zip64 extra field, where the 32-bit fields are saturated."""
    pos = 0
    while pos + 4 <= len(extra):
        tag, length = struct.unpack_from("<HH", extra, pos)
        if tag == 0x0001:
            values = list(struct.unpack_from(f"<{length // 8}Q", extra, pos + 4))
            wanted = [v == 0xFFFFFFFF for v in (size, compressed, offset)]
            if sum(wanted) > len(values):
                raise ArchiveError("a zip64 extra field is shorter than the sizes it replaces")
            taken = iter(values)
            size, compressed, offset = (
                next(taken) if w else v
                for v, w in zip((size, compressed, offset), wanted, strict=True)
            )
            break
        pos += 4 + length
    return compressed, size, offset


def _with_ends(
    raw: list[tuple[str, int, int, int, int, int, int, int]], limit: int
) -> list[Member]:
    by_offset = sorted(raw, key=lambda r: r[1])
    members = []
    for index, (name, offset, compressed, size, method, crc, flags, external) in enumerate(
        by_offset
    ):
        end = by_offset[index + 1][1] if index + 1 < len(by_offset) else limit
        if end < offset + _LOCAL_SIZE + compressed or end > limit:
            raise ArchiveError(f"the zip member {name!r} overlaps the next one")
        end = min(end, offset + _LOCAL_SIZE + compressed + _MAX_LOCAL_EXTRA)  # skip any gap
        members.append(Member(name, offset, end, compressed, size, method, crc, flags, external))
    return members


# --------------------------------------------------------------------------- spans and members


def merge_spans(members: Iterable[Member], gap: int) -> list[Span]:
    """Members in archive order, grouped into spans wherever less than `gap` bytes lie between."""
    spans: list[Span] = []
    for member in sorted(members, key=lambda m: m.offset):
        if spans and member.offset - spans[-1].end < gap:
            last = spans[-1]
            spans[-1] = Span(last.start, max(last.end, member.end), (*last.members, member))
        else:
            spans.append(Span(member.offset, member.end, (member,)))
    return spans


def check_readable(member: Member) -> None:
    """ArchiveError for an encrypted member (no wheel or sdist is encrypted: it cannot be
    installed either); Unsupported for a compression method we do not inflate."""
    if member.flags & _ENCRYPTED_FLAG:
        raise ArchiveError(
            f"the zip member {member.name!r} is encrypted; a release never is",
            hint="the archive is broken or hostile; check where it comes from",
        )
    if member.method not in READABLE_METHODS:
        raise Unsupported(f"{member.name} uses zip compression method {member.method}")


def member_bytes(member: Member, blob: bytes, blob_start: int) -> bytes:
    """The content of `member` from `blob`, the archive's bytes from `blob_start` on."""
    at = member.offset - blob_start
    header = blob[at : at + _LOCAL_SIZE]
    if len(header) < _LOCAL_SIZE or header[:4] != LOCAL:
        raise ArchiveError(f"the zip member {member.name!r} has no local header where listed")
    name_len, extra_len = struct.unpack_from("<26xHH", header)
    start = at + _LOCAL_SIZE + name_len + extra_len
    data = blob[start : start + member.compressed]
    if len(data) != member.compressed:
        raise ArchiveError(f"the zip member {member.name!r} is truncated")
    content = _inflate(member, data)
    if len(content) != member.size or zlib.crc32(content) != member.crc:
        raise ArchiveError(f"the zip member {member.name!r} fails its CRC check")
    return content


def _inflate(member: Member, data: bytes) -> bytes:
    """The member's content, never more than one byte past its declared size."""
    check_readable(member)
    if member.method == STORED:
        return data
    inflater = zlib.decompressobj(-15)
    try:
        content = inflater.decompress(data, member.size + 1)
    except zlib.error as exc:
        raise ArchiveError(f"the zip member {member.name!r} does not inflate: {exc}") from exc
    if len(content) > member.size or inflater.unconsumed_tail:
        raise ArchiveError(
            f"the zip member {member.name!r} inflates past its declared {member.size} bytes",
            hint=limits.BOMB_HINT,
        )
    return content


# --------------------------------------------------------------------------- RECORD


def check_record(name: str, data: bytes, hashes: dict[str, bytes], filename: str) -> None:
    """ArchiveError when the wheel's RECORD gives `name` a sha256 that `data` does not have."""
    expected = hashes.get(name)
    if expected is None:
        log.debug("%s in %s has no sha256 in RECORD", name, filename)
        return
    if hashlib.sha256(data).digest() != expected:
        raise ArchiveError(
            f"{name} in {filename} does not match the sha256 in the wheel's RECORD",
            hint="retry; if it persists the index or a proxy serves a corrupt file",
        )


def parse_record(text: str) -> dict[str, bytes]:
    """A wheel's RECORD: member path -> sha256 digest (rows without a sha256 are left out)."""
    import csv

    hashes: dict[str, bytes] = {}
    for row in csv.reader(io.StringIO(text)):
        if len(row) < 2 or not row[1].startswith("sha256="):
            continue
        encoded = row[1].removeprefix("sha256=")
        try:
            hashes[row[0]] = base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4))
        except ValueError:
            continue
    return hashes
