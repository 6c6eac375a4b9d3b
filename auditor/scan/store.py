# Maintainers: the consumer scan kept between runs.
#
# Owns: where a scan is kept in the cache (`scan/<version>/<key>.json` for what the sites
# stage needs, `<key>.graph.json` for the definitions and edges only a call graph reads), the
# key (a hash of the scan code, the import names, the exclude globs and every selected file's
# path and text: any change to any of them is a new key), and the JSON form of the model
# types a ConsumerScan holds, read back by their type hints and checked field by field (the
# cache is untrusted: anything that does not fit is a miss, never an error).
# Takes: a ConsumerScan to keep; a key to look up. Gives: its parts back, or None.
from __future__ import annotations

import contextlib
import dataclasses
import enum
import hashlib
import logging
import operator
import types
import typing
from functools import cache, lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from auditor import model
from auditor.files import confined
from auditor.jsontext import dumps

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

logger = logging.getLogger("drift_audit")
FORMAT = 1
MAX_BYTES = 512 << 20


@lru_cache(maxsize=1)
def scan_version() -> str:
    """A hash of the code a scan depends on and of the Python running it (model.interpreter):
    a kept scan never outlives a change to either, nor serves another Python."""
    here = Path(__file__).resolve().parent
    digest = hashlib.sha256(f"{FORMAT}\0{model.interpreter()}".encode())
    files = [
        *here.glob("*.py"),
        *(here.parent / "provider").glob("*.py"),
        *(here.parent / "sources").glob("*.py"),  # what a release's tree holds
        here.parent / "model.py",
        here.parent / "guardmodel.py",  # model's guard types, kept in scans too
    ]
    for path in sorted(files):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def scan_key(
    packages: Sequence[str],
    providers: Iterable[str],
    exclude: Sequence[str],
    digests: Mapping[str, str],
) -> str:
    """`<consumer>-<content>`: a hash of what the scan is of (the consumer's and the
    provider's import names, the exclude globs) and one of everything its output depends on
    (that, and every file's path and text; `digests`: path -> model.text_digest() of its
    text, or of why it could not be read). A newer scan of the same consumer replaces the
    older one (consumer_of() the key)."""
    digest = hashlib.sha256()
    for part in (scan_version(), ",".join(packages), ",".join(sorted(providers))):
        digest.update(part.encode() + b"\0")
    digest.update("\0".join(exclude).encode() + b"\1")
    consumer = digest.hexdigest()[:16]
    for path in sorted(digests):
        digest.update(path.encode("utf-8", "surrogatepass") + b"\0")
        digest.update(digests[path].encode() + b"\0")
    return f"{consumer}-{digest.hexdigest()[:40]}"


def consumer_of(key: str) -> str:
    """The part of a scan key that names the consumer (what it is a scan of)."""
    return key.split("-", 1)[0]


class ScanStore:
    """Scans kept under the cache folder; every failure to read or write is only a miss."""

    def __init__(self, cache_root: Path) -> None:
        self.root = cache_root
        self.folder = f"scan/{scan_version()}"

    def load(self, key: str, part: str) -> dict[str, Any] | None:
        fs, rel = confined(self.root / self.folder / f"{key}{part}.json", self.root)
        data = fs.read_json(rel, limit=MAX_BYTES)
        return data if data.get("format") == FORMAT else None

    def save(self, key: str, part: str, data: dict[str, Any]) -> None:
        fs, rel = confined(self.root / self.folder / f"{key}{part}.json", self.root)
        try:
            fs.write(rel, dumps({"format": FORMAT, **data}))
        except (OSError, ValueError) as error:
            logger.warning("could not keep the consumer scan: %s", error)

    def names(self) -> list[str]:
        """The names of the records kept (of every consumer), sorted."""
        fs, _ = confined(self.root / self.folder / "x", self.root)
        return fs.listdir(self.folder)

    def forget_others(self, key: str) -> None:
        """Remove the older scans of the same consumer (a big one keeps ~40 MB per scan: an
        edit-audit loop would otherwise pile them up)."""
        fs, _ = confined(self.root / self.folder / "x", self.root)
        consumer = consumer_of(key) + "-"
        for name in fs.listdir(self.folder):
            if name.startswith(consumer) and not name.startswith(key + "."):
                with contextlib.suppress(OSError):  # only a memo
                    fs.remove(f"{self.folder}/{name}")


# --------------------------------------------------------------------------- the codec


def encode(value: Any) -> Any:
    """A model value as JSON: a dataclass as the list of its fields, an enum as its value,
    tuples and frozensets as lists (frozensets sorted)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [encode(getattr(value, f.name)) for f in dataclasses.fields(value)]
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, (tuple, list)):
        return [encode(v) for v in value]
    if isinstance(value, frozenset):
        return sorted(encode(v) for v in value)
    return value


def encode_list(values: Iterable[Any], hint: Any) -> list[Any]:
    """encode() of each value of type `hint`, by a function made once for the type."""
    item = _encoder(hint)
    return [item(v) for v in values]


Encoder = typing.Callable[[Any], Any]


@cache
def _encoder(hint: Any) -> Encoder:
    """encode() specialised to one type (a big consumer's scan: ~80,000 sites)."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        real = [o for o in typing.get_args(hint) if o is not type(None)]
        inner = _encoder(real[0]) if len(real) == 1 else encode
        return lambda value: None if value is None else inner(value)
    if origin is tuple:
        args = typing.get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            each = _encoder(args[0])
            return lambda value: [each(v) for v in value]
        parts = tuple(_encoder(a) for a in args)
        return lambda value: [f(v) for f, v in zip(parts, value, strict=True)]
    if origin is frozenset:
        each = _encoder(typing.get_args(hint)[0])
        return lambda value: sorted(each(v) for v in value)
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return lambda value: value.value
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return _dataclass_encoder(hint)
    return _same if hint in (str, int, bool) else encode


def _same(value: Any) -> Any:
    return value


def _dataclass_encoder(cls: type) -> Encoder:
    hints = typing.get_type_hints(cls, vars(model))
    names = [f.name for f in dataclasses.fields(cls)]
    parts = [_encoder(hints[name]) for name in names]
    fields = operator.attrgetter(*names) if len(names) > 1 else lambda v: (getattr(v, names[0]),)
    if all(p is _same for p in parts):
        return lambda value: list(fields(value))
    return lambda value: [p(v) for p, v in zip(parts, fields(value), strict=True)]


class Mismatch(ValueError):
    """Stored data that does not have the shape of the type it should be."""


def decode(data: Any, hint: Any) -> Any:
    """`data` (from encode()) back as a value of type `hint`; Mismatch when it does not fit."""
    return _decoder(hint)(data)


Decoder = typing.Callable[[Any], Any]


@cache
def _decoder(hint: Any) -> Decoder:
    """A function that decodes one value of type `hint`, made once per type (a big
    consumer's scan holds ~80,000 sites: the type is not looked at again for each)."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return _optional(hint)
    if origin is tuple:
        args = typing.get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            return _sequence(_decoder(args[0]), tuple)
        return _fixed(tuple(_decoder(a) for a in args))
    if origin is frozenset:
        return _sequence(_decoder(typing.get_args(hint)[0]), frozenset)
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return _enum(hint)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return _dataclass(hint)
    if hint in (str, int, bool):
        return _plain(hint)
    raise TypeError(f"no codec for {hint}")


def _optional(hint: Any) -> Decoder:
    options = typing.get_args(hint)
    real = [o for o in options if o is not type(None)]
    if len(real) != 1 or len(options) != 2:
        raise TypeError(f"no codec for {hint}")
    inner = _decoder(real[0])
    return lambda data: None if data is None else inner(data)


def _sequence(item: Decoder, make: Any) -> Decoder:
    def decode_sequence(data: Any) -> Any:
        if type(data) is not list:
            raise Mismatch("expected a list")
        return make([item(v) for v in data])

    return decode_sequence


def _fixed(items: tuple[Decoder, ...]) -> Decoder:
    def decode_fixed(data: Any) -> tuple[Any, ...]:
        if type(data) is not list or len(data) != len(items):
            raise Mismatch("a tuple of another length")
        return tuple(f(v) for f, v in zip(items, data, strict=True))

    return decode_fixed


def _enum(cls: type[enum.Enum]) -> Decoder:
    def decode_enum(data: Any) -> Any:
        try:
            return cls(data)
        except ValueError as error:
            raise Mismatch(str(error)) from error

    return decode_enum


def _plain(kind: type) -> Decoder:
    def decode_plain(data: Any) -> Any:
        if type(data) is not kind:
            raise Mismatch(f"expected {kind.__name__}, got {type(data).__name__}")
        return data

    return decode_plain


def _dataclass(cls: type) -> Decoder:
    """Fields of a plain type (or None) checked in place, the others decoded."""
    hints = typing.get_type_hints(cls, vars(model))
    plain: list[tuple[int, type, bool]] = []  # (index, type, None allowed)
    nested: list[tuple[int, Decoder]] = []
    for i, f in enumerate(dataclasses.fields(cls)):
        hint = hints[f.name]
        union = typing.get_origin(hint) in (typing.Union, types.UnionType)
        options = typing.get_args(hint) if union else ()
        real = [o for o in options if o is not type(None)]
        if hint in (str, int, bool):
            plain.append((i, hint, False))
        elif len(options) == 2 and len(real) == 1 and real[0] in (str, int, bool):
            plain.append((i, real[0], True))
        else:
            nested.append((i, _decoder(hint)))
    count = len(plain) + len(nested)

    def decode_dataclass(data: Any) -> Any:
        if type(data) is not list or len(data) != count:
            raise Mismatch(f"expected the {count} fields of {cls.__name__}")
        for i, kind, optional in plain:
            value = data[i]
            if type(value) is not kind and not (optional and value is None):
                raise Mismatch(f"{cls.__name__}: expected {kind.__name__} in field {i}")
        if nested:
            data = list(data)
            for i, decoder in nested:
                data[i] = decoder(data[i])
        return cls(*data)

    return decode_dataclass


def encoder(hint: Any) -> Encoder:
    """encode() for values of type `hint`, made once (for a codec built on this one)."""
    return _encoder(hint)


def decoder(hint: Any) -> Decoder:
    """decode() for values of type `hint`, made once: Mismatch for data of another shape."""
    return _decoder(hint)


def decode_list(data: Any, hint: Any) -> list[Any]:
    if type(data) is not list:
        raise Mismatch("expected a list")
    item = _decoder(hint)
    return [item(v) for v in data]


# A graph record's edges: each end the index of its definition among the record's definition
# rows, or its name where it has none (a tenth of the text: langchain-community's edges
# 2.8 MB of names -> 0.3 MB).


def encode_edges(pairs: Iterable[tuple[str, str]], names: Sequence[str]) -> list[list[Any]]:
    """Each (caller, callee) as [end, end], an end the index of its name in `names`."""
    at: dict[str, int] = {}
    for index, name in enumerate(names):
        at.setdefault(name, index)
    return [[at.get(caller, caller), at.get(callee, callee)] for caller, callee in pairs]


def decode_edges(data: Any, names: Sequence[str]) -> list[tuple[str, str]]:
    """encode_edges() read back; Mismatch for anything else."""
    if type(data) is not list:
        raise Mismatch("expected the edges")
    count = len(names)
    pairs: list[tuple[str, str]] = []
    for row in data:
        if type(row) is not list or len(row) != 2:
            raise Mismatch("expected an edge")
        ends = []
        for end in row:
            if type(end) is int and 0 <= end < count:
                ends.append(names[end])
            elif type(end) is str:
                ends.append(end)
            else:
                raise Mismatch("expected a definition's index or a name")
        pairs.append((ends[0], ends[1]))
    return pairs
