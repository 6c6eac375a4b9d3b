"""jsontext.loads(): what json.loads reads, read the same (orjson where it can, json else)."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from auditor import jsontext

# Values as drift-audit's records hold them: no integer past 64 bits (the one case the two
# parsers read differently: orjson gives a float; jsontext's comment block says why that
# is only ever a miss).
scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(), inner, max_size=5),
    max_leaves=30,
)


@given(values, st.booleans(), st.booleans())
def test_it_reads_what_json_writes_as_json_reads_it(value: object, ascii_: bool, raw: bool) -> None:
    text = json.dumps(value, ensure_ascii=ascii_)
    given_ = text.encode("utf-8", "surrogatepass") if raw else text
    assert repr(jsontext.loads(given_)) == repr(json.loads(given_))


@pytest.mark.parametrize(
    "text",
    [
        b'"\\udcff"',  # a lone surrogate's escape: json.dumps writes it for a bad file name
        b'{"a": NaN, "b": Infinity}',
        b"1e400",
        b'\xef\xbb\xbf{"a": 1}',  # a byte-order mark
        '{"a": 1}'.encode("utf-16"),
        b'{"a": 1, "a": 2}',
    ],
)
def test_what_orjson_refuses_json_reads(text: bytes) -> None:
    found, expected = jsontext.loads(text), json.loads(text)
    assert repr(found) == repr(expected) or (
        isinstance(found, float) and math.isinf(found) and math.isinf(expected)
    )


@pytest.mark.parametrize("text", [b"", b"{", b"[1,]", b"\xff\xfe\xfa", b"nul", "[" * 100_000])
def test_what_neither_reads_raises_as_json_does(text: bytes | str) -> None:
    with pytest.raises((ValueError, RecursionError)) as ours:
        jsontext.loads(text)
    with pytest.raises((ValueError, RecursionError)) as theirs:
        json.loads(text)
    assert isinstance(ours.value, type(theirs.value)) or isinstance(theirs.value, type(ours.value))


def test_orjson_does_the_reading_where_it_can() -> None:
    import orjson  # a dependency: installed with drift-audit

    assert orjson.loads(b"[1]") == [1]


# What the scan's records hold: no floats (dumps() is only for values without them).
plain = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(), inner, max_size=5),
    max_leaves=30,
)


@given(plain)
def test_dumps_writes_what_json_reads_back_as_the_value(value: object) -> None:
    """Whether orjson writes it or json does (a surrogate, an integer past 64 bits)."""
    written = jsontext.dumps(value)
    assert isinstance(written, bytes)
    assert json.loads(written) == value
    assert jsontext.loads(written) == value or any(  # orjson reads a big integer as a float
        isinstance(v, int) and abs(v) >= 2**63 for v in _leaves(value)
    )


def test_dumps_hands_what_orjson_refuses_to_json() -> None:
    for value in ({"path": "caf\udce9.py"}, [2**70], {1: "a"}):
        assert jsontext.dumps(value) == json.dumps(value, separators=(",", ":")).encode()
    with pytest.raises(TypeError):
        jsontext.dumps({"a": {1, 2}})  # neither writes a set


def _leaves(value: object) -> list[object]:
    if isinstance(value, list):
        return [leaf for v in value for leaf in _leaves(v)]
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in _leaves(v)]
    return [value]
