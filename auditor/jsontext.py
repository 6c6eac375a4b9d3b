# Maintainers: JSON text read back, the one way the cache's records, the memo and the index's
# JSON pages are parsed; and the compact JSON the biggest of those records are written as.
#
# Owns: loads(), orjson's parser where it reads the text (strict JSON in UTF-8: all that
# drift-audit writes, and what an index serves), json's where it does not (NaN, a number
# past 64 bits or past a float, a byte-order mark, UTF-16, a lone surrogate's escape:
# json.dumps writes one for a file name that is not UTF-8). orjson parses a record about
# twice as fast (the 36-release timeline's 73 listing and digest files: 34 ms -> 15 ms;
# importing it after the pipeline costs ~0.4 ms); without it (no wheel for the platform),
# json does it all.
# dumps(): compact JSON in UTF-8, orjson's where it writes the value (a kept scan's 5 MB in
# 4 ms, json.dumps 25 ms), json's where it refuses it (a lone surrogate, an integer past 64
# bits, a key that is not a string). Only for values without floats (orjson writes NaN as
# null): the consumer scan's records (scan/store.py).
# Takes: bytes or text. Gives: the value, or ValueError (RecursionError when nested past
# either parser's depth) as json.loads raises for what neither reads.
#
# The two agree on every text both read, but for one case: an integer past 64 bits, which
# orjson reads as a float. Nothing drift-audit writes holds one, and every reader checks
# its fields' types, so from a hostile record that is a miss, as any misshapen field is.
from __future__ import annotations

import json
from typing import Any

try:
    import orjson
except ImportError:  # pragma: no cover - a platform without its wheel
    orjson = None  # type: ignore[assignment]


def loads(raw: bytes | str) -> Any:
    """`raw` parsed as JSON (see the comment block above)."""
    if orjson is not None:
        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError:
            pass  # json reads what orjson refuses, or raises as it always did
    return json.loads(raw)


def dumps(value: Any) -> bytes:
    """`value` as compact JSON in UTF-8 (see the comment block above)."""
    if orjson is not None:
        try:
            return orjson.dumps(value)
        except TypeError:
            pass  # json writes what orjson refuses (escaping a surrogate), or raises
    return json.dumps(value, separators=(",", ":")).encode()
