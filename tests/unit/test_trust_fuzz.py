"""Fuzzing the consumer scanner: generated and mutated sources never make it raise or hang.

Generated: a small grammar of what consumers do with a provider `acme` (every import form,
calls of every shape, attribute chains, subclasses calling super(), instances, guards,
decorators, comprehensions, lambdas, async, match) spread over a few modules that import each
other. Mutated: the consumer files of tests/cases/ with bytes flipped, cut short, lines
dropped, duplicated, swapped or re-indented. Each example must scan without an exception; a
per-example alarm (generous: HANG_SECONDS) only detects a hang, it is no speed test.

    DRIFT_AUDIT_FUZZ_EXAMPLES=20000 python -m pytest -q tests/unit/test_trust_fuzz.py
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from auditor.model import ConsumerScan
from auditor.scan import scan_consumer
from auditor.sources.trees import decode_source

if TYPE_CHECKING:
    from collections.abc import Iterator

# per property in CI; DRIFT_AUDIT_FUZZ_EXAMPLES=20000 runs more, once, by hand
GENERATED_EXAMPLES = MUTATED_EXAMPLES = int(os.environ.get("DRIFT_AUDIT_FUZZ_EXAMPLES", "300"))
HANG_SECONDS = 10
CASES = Path(__file__).resolve().parents[1] / "cases"
ATTRS = ["run", "Engine", "Client", "config", "make", "Deep", "stop", "x", "__init__"]
LOCALS = ["e", "c", "obj", "self", "run", "Engine", "ac", "helper", "item", "cls"]


class Hang(Exception):
    """An example ran longer than HANG_SECONDS."""


@contextlib.contextmanager
def hang_detector(seconds: int = HANG_SECONDS) -> Iterator[None]:
    def alarm(signum: int, frame: object) -> None:
        raise Hang(f"scan_consumer still running after {seconds}s")

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


class BytesTree:
    """A consumer's SourceTree in memory, decoding strictly as a real consumer tree does."""

    def __init__(self, files: dict[str, bytes]) -> None:
        self.files = files

    def read_text(self, path: str) -> str | None:
        data = self.files.get(path)
        return None if data is None else decode_source(data, strict=True)

    def is_dir(self, path: str) -> bool:
        return any(k.startswith(path + "/") for k in self.files)

    def walk(self) -> Iterator[str]:
        return iter(sorted(self.files))


def scan(files: dict[str, bytes]) -> ConsumerScan:
    with hang_detector():
        result = scan_consumer(BytesTree(files), ["widget"], ["acme"])
    assert isinstance(result, ConsumerScan)
    assert set(result.files) <= set(files)
    return result


# --------------------------------------------------------------------------- a small grammar
# Driven by a seeded random.Random (hypothesis draws the seed): generating stays cheap, and a
# failing example is reproduced from its seed.


def expression(rng: random.Random, depth: int = 0) -> str:
    """A provider reference, a call of some shape, or something around one."""
    kind = rng.randint(0, 9 if depth < 3 else 3)
    if kind == 0:
        return rng.choice(LOCALS)
    if kind == 1:
        owner = rng.choice(["acme", "ac", "acme.core", "self", "e", "h", "E"])
        return owner + "." + ".".join(rng.choices(ATTRS, k=rng.randint(1, 4)))
    if kind == 2:
        return rng.choice(["1", "'s'", "None", "...", "b'x'", "1.5j", "[]", "{}", "f'{x!r}'"])
    if kind == 3:
        return f"super().{rng.choice(ATTRS)}"

    def inner() -> str:
        return expression(rng, depth + 1)

    if kind in (4, 5):
        args = [inner() for _ in range(rng.randint(0, 3))]
        keywords = [f"{k}={inner()}" for k in rng.sample(ATTRS, rng.randint(0, 3))]
        stars = rng.choice([[], ["*xs"], ["**kw"], ["*xs", "**kw"], ["*[1, 2]"]])
        return f"{inner()}({', '.join([*args, *keywords, *stars])})"
    if kind == 6:
        return f"[{inner()} for {rng.choice(LOCALS)} in {inner()} if {inner()}]"
    if kind == 7:
        return f"(lambda {rng.choice(LOCALS)}=1, *a, **k: {inner()})"
    if kind == 8:
        return f"({inner()} if {inner()} else {inner()})"
    return f"({rng.choice(LOCALS)} := {inner()})"


IMPORTS = [
    "import acme",
    "import acme.core",
    "import acme.core as ac",
    "from acme import run, Engine as E",
    "from acme.core import *",
    "from acme import sub",
    "from acme.sub.deep import Deep",
    "from . import helpers",
    "from .helpers import make",
    "from .. import nothing",
    "from widget.helpers import *",
    "import widget.helpers as h",
    "from typing import TYPE_CHECKING",
    "import functools, contextlib, sys",
]


def statement(rng: random.Random, indent: int = 0, depth: int = 0) -> list[str]:
    pad = "    " * indent
    kind = rng.randint(0, 14 if depth < 3 else 4)
    if kind == 0:
        return [pad + rng.choice(IMPORTS)]
    if kind == 1:
        return [f"{pad}{rng.choice(LOCALS)} = {expression(rng)}"]
    if kind == 2:
        return [pad + expression(rng)]
    if kind == 3:
        return [f"{pad}{rng.choice(LOCALS)}.{rng.choice(ATTRS)} = {expression(rng)}"]
    if kind == 4:
        return [pad + rng.choice(["pass", "del x", "global g", "x += 1", "raise", "return"])]

    def block() -> list[str]:
        parts = [statement(rng, indent + 1, depth + 1) for _ in range(rng.randint(1, 3))]
        return [line for part in parts for line in part]

    if kind == 5:
        handler = rng.choice([" ImportError", " (ImportError, AttributeError)", " Exception", ""])
        return [f"{pad}try:", *block(), f"{pad}except{handler}:", *block()]
    if kind == 6:
        base = rng.choice(["acme.Engine", "Engine", "E", "ac.Client", "object", "h.Base"])
        method = [
            f"{pad}    def __init__(self, *a, **k):",
            f"{pad}        super().__init__({expression(rng)}, *a, **k)",
        ]
        return [f"{pad}class C{indent}({base}):", *method, *block()]
    if kind == 7:
        decorator = rng.choice(["", "@acme.deco", "@functools.wraps(run)", "@property"])
        prefix = rng.choice(["", "async "])
        head = f"{pad}{prefix}def f{indent}(a, /, b=1, *c, d, **e) -> acme.Engine:"
        return [*([pad + decorator] if decorator else []), head, *block()]
    if kind == 8:
        return [f"{pad}if TYPE_CHECKING:", *block()]
    if kind == 9:
        return [f"{pad}if sys.version_info >= (3, 11):", *block(), f"{pad}else:", *block()]
    if kind == 10:
        return [f"{pad}with acme.ctx({expression(rng)}) as {rng.choice(LOCALS)}:", *block()]
    if kind == 11:
        return [f"{pad}for {rng.choice(LOCALS)} in {expression(rng)}:", *block()]
    if kind == 12:
        cases = [f"{pad}    case acme.Engine(x=1):", *("    " + line for line in block())]
        return [f"{pad}match {expression(rng)}:", *cases, f"{pad}    case _:", f"{pad}        pass"]
    if kind == 13:
        return [f"{pad}while {expression(rng)}:", *block()]
    return [f"{pad}with contextlib.suppress(ImportError):", *block()]


def generated(seed: int) -> dict[str, bytes]:
    """A consumer package of one to four modules, from a seed."""
    rng = random.Random(seed)
    extra = ["widget/helpers.py", "widget/sub/__init__.py", "widget/sub/x.py", "widget/t.pyi"]
    files = {}
    for path in ["widget/__init__.py", *rng.sample(extra, rng.randint(0, 3))]:
        lines = [line for _ in range(rng.randint(0, 10)) for line in statement(rng)]
        files[path] = ("\n".join(lines) + "\n").encode()
    return files


@settings(max_examples=GENERATED_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.integers(0, 2**32))
def test_scanning_generated_sources_never_raises_or_hangs(seed: int) -> None:
    files = generated(seed)
    result = scan(files)
    assert all(u.path in files for u in result.unparsable)


def test_the_grammar_makes_code_that_parses_and_reaches_the_provider() -> None:
    """The fuzzing is worth something: its sources parse and reference acme."""
    scans = [scan(generated(seed)) for seed in range(40)]
    assert sum(len(s.unparsable) for s in scans) <= 2
    assert sum(len(s.sites) for s in scans) > 200


# --------------------------------------------------------------------------- mutations


def real_consumers() -> list[bytes]:
    return [p.read_bytes() for p in sorted(CASES.glob("*/consumer/**/*.py"))]


CORPUS = real_consumers()


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    data = draw(st.sampled_from(CORPUS))
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.integers(0, 6))
        lines = data.splitlines(keepends=True) or [b""]
        at = draw(st.integers(0, max(len(data) - 1, 0)))
        row = draw(st.integers(0, len(lines) - 1))
        if op == 0 and data:  # flip bits of one byte
            data = data[:at] + bytes([data[at] ^ draw(st.integers(1, 255))]) + data[at + 1 :]
        elif op == 1:  # cut short
            data = data[:at]
        elif op == 2:  # drop a line
            data = b"".join(lines[:row] + lines[row + 1 :])
        elif op == 3:  # duplicate a line
            data = b"".join(lines[: row + 1] + lines[row:])
        elif op == 4:  # swap two lines
            other = draw(st.integers(0, len(lines) - 1))
            lines[row], lines[other] = lines[other], lines[row]
            data = b"".join(lines)
        elif op == 5:  # re-indent a line
            lines[row] = b" " * draw(st.integers(0, 9)) + lines[row].lstrip()
            data = b"".join(lines)
        else:  # insert a token
            token = draw(
                st.sampled_from([b"(", b")", b":", b"\\", b'"""', b"\x00", b"\xff", b"\t"])
            )
            data = data[:at] + token + data[at:]
    return data


@pytest.mark.skipif(not CORPUS, reason="no consumer files under tests/cases")
@settings(max_examples=MUTATED_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(mutated(), st.sampled_from(["widget/__init__.py", "widget/mod.py"]))
def test_scanning_mutated_real_consumers_never_raises_or_hangs(data: bytes, path: str) -> None:
    files = {path: data, "widget/other.py": CORPUS[0]}
    result = scan(files)
    assert "widget/other.py" not in {u.path for u in result.unparsable}


def test_the_hang_detector_fires() -> None:
    import time

    with pytest.raises(Hang), hang_detector(1):
        time.sleep(3)
