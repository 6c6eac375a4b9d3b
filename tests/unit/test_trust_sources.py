"""Hostile and broken source files, on both sides: the audit of the rest goes on.

Consumer side: each bad file is an `unparsable` finding (or is scanned, when Python would run
it), never a traceback. Provider side: a module that cannot be read is unknown, so calls into
it are not reported as breaks, and nothing crashes.
"""

from __future__ import annotations

import json
import os
import sys
from typing import TYPE_CHECKING

import pytest

from auditor.sources.trees import FolderTree, decode_source
from tests.trust.cli import invoke

if TYPE_CHECKING:
    from pathlib import Path

    from click.testing import Result

PROVIDER = {
    "acme/__init__.py": "from acme.core import run\n",
    "acme/core.py": "def run(x, *, fast=False):\n    return x\n",
}
GOOD = "from acme import run\n\nrun(1, slow=True)\n"
BIG_FUNCTION = "def f_{i}(a, b=1):\n    # " + "x" * 400 + "\n    return a + b\n\n\n"


def big_file(megabytes: float) -> bytes:
    """A module of many functions, then one call into the provider (the last line)."""
    count = int(megabytes * 1e6 / len(BIG_FUNCTION.format(i=0)))
    body = "".join(BIG_FUNCTION.format(i=i) for i in range(count))
    return f"from acme import run\n\n\n{body}run(1, slow=True)\n".encode()


# path -> (content, what the report says about it: a reason fragment, or a finding line)
HOSTILE_CONSUMER: dict[str, tuple[bytes, str | int]] = {
    "syntax.py": (b"def f(:\n    pass\n", "SyntaxError"),
    "python2.py": (b'print "x"\nexec "y = 1"\n', "Missing parentheses in call to 'print'"),
    "latin1_declared.py": (
        b'# -*- coding: latin-1 -*-\nfrom acme import run\ns = "caf\xe9"\nrun(s, slow=True)\n',
        4,
    ),
    "latin1_undeclared.py": (
        b'from acme import run\ns = "caf\xe9"\nrun(s, slow=True)\n',
        "invalid continuation byte at line 2 (byte 0xe9, read as utf-8)",
    ),
    "unknown_coding.py": (b"# coding: no-such-codec\nx = 1\n", "unknown encoding: no-such-codec"),
    "bom_and_latin1.py": (b"\xef\xbb\xbf# coding: latin-1\nx = 1\n", "encoding problem"),
    "nul_bytes.py": (b"x = 1\n\x00\nfrom acme import run\n", "null bytes"),
    "deep_parens.py": (b"x = " + b"(" * 1000 + b")" * 1000 + b"\n", "too many nested parentheses"),
    "deep_unary.py": (b"x = " + b"-" * 100_000 + b"1\n", "nested too deeply"),
    "deep_chain.py": (
        b"from acme import run\nx = " + b" + ".join([b"run(1)"] * 50_000) + b"\n",
        "recursion depth exceeded",  # Python cannot compile it either
    ),
    "deep_indent.py": (
        b"".join(b" " * i + b"if x:\n" for i in range(120)) + b" " * 120 + b"pass\n",
        "too many levels of indentation",
    ),
    "invalid_escape.py": (b'from acme import run\nPATTERN = "\\d+"\nrun(PATTERN, slow=1)\n', 3),
    "crlf_and_cr.py": (b"from acme import run\r\n\r\nx = 1\rrun(1, slow=True)\r\n", 4),
    "bom.py": (b"\xef\xbb\xbffrom acme import run\nrun(1, slow=True)\n", 2),
    "empty.py": (b"", "-"),
    "only_comments.py": (b"# nothing here\n# drift-audit: ignore[\n", "-"),
    "unicode_names.py": ("from acme import run as rún\nrún(1, slow=True)\n".encode(), 2),
    "long_line.py": (b"from acme import run\nx = [" + b"1, " * 300_000 + b"]\n", "-"),
    "huge.py": (big_file(5), "last"),
}


@pytest.fixture
def provider(tmp_path: Path) -> str:
    root = tmp_path / "provider"
    for rel, text in PROVIDER.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return f"acme @ {root.as_uri()}"


def findings(result: Result) -> list[dict[str, object]]:
    assert result.exit_code in (0, 1), (result.exit_code, result.output, result.exception)
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr
    found: list[dict[str, object]] = json.loads(result.stdout)["findings"]
    return found


def test_hostile_consumer_files_are_unparsable_or_scanned_and_the_rest_is_audited(
    tmp_path: Path, provider: str
) -> None:
    widget = tmp_path / "consumer" / "widget"
    widget.mkdir(parents=True)
    (widget / "__init__.py").write_text(GOOD, encoding="utf-8")
    for name, (content, _) in HOSTILE_CONSUMER.items():
        (widget / name).write_bytes(content)
    result = invoke(
        str(widget), "--against", provider, "--cache-dir", str(tmp_path / "cache"),
        "--format", "json", "--fail-on", "never",
    )  # fmt: skip
    by_path: dict[str, list[dict[str, object]]] = {}
    for finding in findings(result):
        by_path.setdefault(str(finding["path"]), []).append(finding)
    assert [(f["kind"], f["line"]) for f in by_path.pop("widget/__init__.py")] == [
        ("unexpected-keyword", 3)
    ]
    for name, (content, expected) in HOSTILE_CONSUMER.items():
        got = by_path.pop(f"widget/{name}", [])
        if expected == "-":
            assert got == [], name
        elif isinstance(expected, int) or expected == "last":
            line = content.count(b"\n") if expected == "last" else expected
            assert [(f["kind"], f["line"]) for f in got] == [("unexpected-keyword", line)], name
        else:
            assert [f["kind"] for f in got] == ["unparsable"], (name, got)
            assert expected in str(got[0]["message"]), (name, got[0]["message"])
    assert by_path == {}


def test_a_latin1_file_with_its_coding_line_is_read_as_latin1(tmp_path: Path) -> None:
    content, _ = HOSTILE_CONSUMER["latin1_declared.py"]
    (tmp_path / "w").mkdir()
    (tmp_path / "w" / "x.py").write_bytes(content)
    for strict in (False, True):
        text = FolderTree(tmp_path, packages=("w",), strict=strict).read_text("w/x.py")
        assert text is not None and 's = "café"' in text


def test_strict_decoding_refuses_what_python_refuses_and_lenient_never_fails() -> None:
    for name, (content, expected) in HOSTILE_CONSUMER.items():
        assert isinstance(decode_source(content), str), name
        python_reads = _python_decodes(content)
        try:
            decode_source(content, strict=True)
        except UnicodeDecodeError:
            assert not python_reads, name
        else:
            assert python_reads, name
        del expected


def _python_decodes(content: bytes) -> bool:
    """Whether CPython gets past decoding `content` (compile, with every other error ignored)."""
    try:
        compile(content, "<x>", "exec", dont_inherit=True)
    except SyntaxError as exc:
        decoding = ("encoding", "codec", "unicode error", "decode")
        return not any(word in str(exc.msg) for word in decoding)
    except (ValueError, RecursionError, MemoryError):
        return True
    return True


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_a_fifo_or_a_device_named_like_source_is_not_read(tmp_path: Path, provider: str) -> None:
    widget = tmp_path / "consumer" / "widget"
    widget.mkdir(parents=True)
    (widget / "__init__.py").write_text(GOOD, encoding="utf-8")
    os.mkfifo(widget / "pipe.py")  # reading it would block forever
    (widget / "pipe_link.py").symlink_to(widget / "pipe.py")  # a link inside: still a FIFO
    (widget / "zero.py").symlink_to("/dev/zero")  # reading it would never end
    result = invoke(
        str(widget), "--against", provider, "--cache-dir", str(tmp_path / "cache"),
        "--format", "json", "--fail-on", "never",
    )  # fmt: skip
    got = {(f["path"], f["kind"]) for f in findings(result)}
    assert got == {
        ("widget/__init__.py", "unexpected-keyword"),
        ("widget/pipe.py", "unparsable"),
        ("widget/pipe_link.py", "unparsable"),
    }  # zero.py leaves the tree: skipped with a warning, never read
    assert "a FIFO, not a regular file" in result.stderr
    assert "skipping widget/zero.py: a link to outside the tree" in result.stderr


# --------------------------------------------------------------------------- provider side

HOSTILE_PROVIDER: dict[str, bytes] = {
    "syntax": b"def broken(:\n    pass\n",
    "python2": b'def old(a):\n    print "x"\n',
    "latin1": b'# -*- coding: latin-1 -*-\nS = "caf\xe9"\n\ndef lat(a):\n    return a\n',
    "undeclared": b'S = "caf\xe9"\n\ndef und(a):\n    return a\n',
    "nul": b"def nul(a):\n    return a\n\x00\n",
    "deep": b"X = " + b" + ".join([b"1"] * 50_000) + b"\n\ndef deep(a):\n    return a\n",
    "unary": b"X = " + b"-" * 100_000 + b"1\n",
    "elifs": b"def elifs(a):\n    if a: pass\n" + b"    elif a: pass\n" * 2000,
    "huge": big_file(2).replace(b"from acme import run\n", b""),
    "badcoding": b"# coding: no-such-codec\ndef bad(a):\n    return a\n",
}
# Modules griffe reads all the same (and so does Python, but for `undeclared` and `badcoding`,
# which the provider side decodes leniently: undecodable bytes become U+FFFD). A call that
# binds wrongly into them is a real finding; into the others, it is unknown.
# `deep` (a 50,000-term sum) is read on a deep stack (auditor/deep.py), though Python at its
# default recursion limit could not compile it: a call that binds wrongly there fails anyway.
READABLE = ("latin1", "undeclared", "deep", "elifs", "huge", "badcoding")
PROVIDER_CALLS = {
    "syntax": "broken(1, 2, 3, nope=1)",
    "python2": "old(1, 2, 3, nope=1)",
    "latin1": "lat(1, 2, 3)",  # readable: a real break
    "undeclared": "und(1, 2, 3)",
    "nul": "nul(1, 2, 3)",
    "deep": "deep(1, 2, 3)",
    "unary": "X(1)",
    "elifs": "elifs(1, 2, 3)",
    "huge": "f_1(1, 2, 3, 4)",
    "badcoding": "bad(1, 2, 3)",
}


def test_hostile_provider_modules_are_unknown_and_never_crash(tmp_path: Path) -> None:
    root = tmp_path / "provider"
    (root / "acme").mkdir(parents=True)
    (root / "acme" / "__init__.py").write_text(PROVIDER["acme/__init__.py"], encoding="utf-8")
    (root / "acme" / "core.py").write_text(PROVIDER["acme/core.py"], encoding="utf-8")
    for module, content in HOSTILE_PROVIDER.items():
        (root / "acme" / f"{module}.py").write_bytes(content)
    widget = tmp_path / "consumer" / "widget"
    widget.mkdir(parents=True)
    lines = ["from acme import run", "run(1, slow=True)"]
    for module, call in PROVIDER_CALLS.items():
        name = call.split("(", 1)[0]
        lines += [f"from acme.{module} import {name} as {module}_{name}", f"{module}_{call}"]
    (widget / "__init__.py").write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = invoke(
        str(widget), "--against", f"acme @ {root.as_uri()}", "--cache-dir",
        str(tmp_path / "cache"), "--format", "json", "--fail-on", "never",
    )  # fmt: skip
    got = sorted((f["line"], f["kind"]) for f in findings(result))
    calls = list(PROVIDER_CALLS)
    readable = [(4 + 2 * calls.index(m), "too-many-positional") for m in READABLE]
    # the others cannot be checked: their imports say so (nothing unreadable is a pass), and
    # the calls through them are folded into that finding
    unread = [(3 + 2 * calls.index(m), "unparsable-provider") for m in calls if m not in READABLE]
    assert got == sorted([(2, "unexpected-keyword"), *readable, *unread])
    for module in set(HOSTILE_PROVIDER) - set(READABLE):
        assert f"provider module acme.{module} could not be read" in result.stderr, module
    assert sys.getrecursionlimit() < 10**6  # nothing raised it for good
