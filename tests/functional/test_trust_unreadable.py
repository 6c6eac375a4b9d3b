"""Trust, round three: nothing unreadable is a pass (items 3 to 6 of the review).

A consumer file or a provider module the tool cannot read must never turn into "no drift
found": code nested as deeply as CPython accepts is read (deep.py), what cannot be read fails
the gate (`unparsable`, `unparsable-provider`: errors), running out of memory is the audit
that could not run (exit 2, nothing kept), and a kept parse never serves another Python.
Every verdict is checked against the interpreter: the consumer is run against acme 0.2.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.trust import acme

if TYPE_CHECKING:
    from collections.abc import Callable

REPO_ROOT = Path(__file__).resolve().parents[2]
BREAK = "acme.run(1, old=5)"  # binds against acme 0.1, TypeError against 0.2


def elifs(n: int) -> str:
    branches = "".join(f"    elif x == {i}:\n        return {i}\n" for i in range(1, n))
    return f"import acme\n\n\ndef go(x=0):\n    if x == 0:\n        return {BREAK}\n{branches}"


def unary(n: int) -> str:
    return f"import acme\n\n\ndef go():\n    return {'-' * n}{BREAK}\n"


def ternaries(n: int) -> str:
    chain = " if x else ".join(["0"] * (n - 1) + [BREAK])
    return f"import acme\n\n\ndef go(x=0):\n    return {chain}\n"


def subscripts(n: int) -> str:
    return f"import acme\n\n\ndef go():\n    return {BREAK}{'[0]' * n}\n"


def python_says(root: Path, provider: Path, python: str = sys.executable) -> str:
    """What Python does importing widget and calling go() with `provider` on the path: the
    last line of its error, or "ok"."""
    code = "import widget; widget.go()"
    env = {**os.environ, "PYTHONPATH": f"{provider}{os.pathsep}{root}"}
    done = subprocess.run(
        [python, "-c", code], env=env, capture_output=True, text=True, timeout=120, check=False
    )
    return "ok" if done.returncode == 0 else done.stderr.strip().splitlines()[-1]


def audit(
    root: Path,
    *args: str,
    cache: Path | None = None,
    python: Callable[[], list[str]] | None = None,
    limit: int | None = None,
    fmt: str = "json",
) -> subprocess.CompletedProcess[str]:
    """drift-audit on widget/ (JSON on stdout), as a process of its own (`limit`: its address
    space in bytes), against acme 0.2 with baseline 0.1 unless `args` says otherwise."""
    command = [*(python() if python else [sys.executable, "-m", "auditor"]), str(root / "widget")]
    command += [*args] if args else acme.folder_args(root)
    command += ["--format", fmt, "--cache-dir", str(cache or root / "cache")]

    def capped() -> None:
        if limit is not None:
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    env = {**os.environ, "PIP_CONFIG_FILE": os.devnull, "NO_COLOR": "1"}
    return subprocess.run(
        command, env=env, capture_output=True, text=True, timeout=300, check=False,
        preexec_fn=capped, cwd=root,
    )  # fmt: skip


def kinds(done: subprocess.CompletedProcess[str]) -> list[tuple[str, str, str]]:
    """(kind, severity, status) of each finding; no traceback, no internal error."""
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr, done.stderr
    assert done.returncode in (0, 1), (done.returncode, done.stderr)
    report = json.loads(done.stdout)
    return [(f["kind"], f["severity"], f["status"]) for f in report["findings"]]


def consumer(root: Path, text: str) -> Path:
    acme.consumer(root)
    (root / "widget" / "__init__.py").write_text(text, encoding="utf-8")
    return root


# --------------------------------------------------------------------------- item 4


@pytest.mark.parametrize(
    ("shape", "depth"),
    [(elifs, 400), (elifs, 1900), (unary, 500), (unary, 1900), (ternaries, 500),
     (ternaries, 1900), (subscripts, 1900)],
    ids=lambda v: getattr(v, "__name__", str(v)),
)  # fmt: skip
def test_code_nested_as_deeply_as_python_accepts_is_read(
    tmp_path: Path, shape: Callable[[int], str], depth: int
) -> None:
    root = consumer(tmp_path, shape(depth))
    _, new = acme.provider_folders(tmp_path)
    assert "TypeError" in python_says(root, new)
    done = audit(root)
    assert kinds(done) == [("unexpected-keyword", "error", "new")]
    assert done.returncode == 1


def test_code_nested_beyond_what_python_parses_fails_the_gate(tmp_path: Path) -> None:
    root = consumer(tmp_path, unary(40_000))
    _, new = acme.provider_folders(tmp_path)
    assert "TypeError" not in python_says(root, new)  # Python cannot run it either
    done = audit(root)
    assert kinds(done) == [("unparsable", "error", "new")]
    assert done.returncode == 1


def test_a_consumer_file_that_does_not_parse_fails_the_gate_and_says_why(tmp_path: Path) -> None:
    root = consumer(tmp_path, f"import acme\n\n\ndef go(:\n    return {BREAK}\n")
    _, new = acme.provider_folders(tmp_path)
    assert "SyntaxError" in python_says(root, new)
    done = audit(root)
    assert kinds(done) == [("unparsable", "error", "new")]
    assert done.returncode == 1
    finding = json.loads(done.stdout)["findings"][0]
    assert finding["line"] == 4 and "SyntaxError" in finding["parameter"]


# --------------------------------------------------------------------------- item 5


def test_running_out_of_memory_while_parsing_is_an_error_and_is_never_kept(tmp_path: Path) -> None:
    big = ",".join("1" for _ in range(400_000))
    root = consumer(tmp_path, f"import acme\n\n\ndef go():\n    return {BREAK}\n\n\nT = ({big})\n")
    _, new = acme.provider_folders(tmp_path)
    assert "TypeError" in python_says(root, new)
    starved = audit(root, limit=250 << 20, fmt="text")  # the audit needs ~150 MiB, the parse ~450
    assert starved.returncode == 2, starved.stderr
    assert starved.stdout == ""
    lines = starved.stderr.strip().splitlines()
    assert lines[0].startswith("drift-audit: error: ran out of memory parsing widget/"), lines
    assert "Traceback" not in starved.stderr and len(lines) == 2
    again = audit(root)  # the same cache, memory enough: the file is read, the break found
    assert kinds(again) == [("unexpected-keyword", "error", "new")]


# --------------------------------------------------------------------------- item 3


def provider(tmp_path: Path, old_text: str, new_text: str) -> list[str]:
    """acme 0.1 and 0.2 with these __init__.py texts; the --against/--baseline arguments."""
    folders = []
    for version, text in (("0.1", old_text), ("0.2", new_text)):
        folder = tmp_path / f"p-{version}"
        (folder / "acme").mkdir(parents=True)
        (folder / "acme" / "__init__.py").write_text(text, encoding="utf-8")
        folders.append(folder)
    old, new = (f"acme @ {folder.as_uri()}" for folder in folders)
    return ["--against", new, "--baseline", old]


OLD_RUN = "def run(a, b=1, old=2):\n    return a\n"
NEW_RUN = "def run(a, b=1, new=3):\n    return a\n"
DEEP_TAIL = "x = 0\nif x == -1:\n    pass\n" + "".join(
    f"elif x == {i}:\n    pass\n" for i in range(400)
)


def test_a_provider_module_nested_deeply_is_read(tmp_path: Path) -> None:
    root = acme.consumer(tmp_path)
    args = provider(tmp_path, OLD_RUN, NEW_RUN + DEEP_TAIL)
    assert "TypeError" in python_says(root, tmp_path / "p-0.2")
    for _ in ("cold", "warm"):
        done = audit(root, *args)
        assert kinds(done) == [("unexpected-keyword", "error", "new")]


@pytest.mark.parametrize(
    "broken",
    ["def run(a, b=1, new=3:\n    return a\n",  # a syntax error Python rejects too
     NEW_RUN + "type Alias = int\n" if sys.version_info < (3, 12) else NEW_RUN + "def f(:\n"],
    ids=["syntax-error", "syntax-newer-than-this-python"],
)  # fmt: skip
def test_a_provider_module_that_does_not_parse_is_never_a_pass(tmp_path: Path, broken: str) -> None:
    root = acme.consumer(tmp_path)
    args = provider(tmp_path, OLD_RUN, broken)
    for run in ("cold", "warm"):  # the second run answers from the lookup memo
        done = audit(root, *args)
        assert kinds(done) == [("unparsable-provider", "error", "new")], run
        assert done.returncode == 1
        finding = json.loads(done.stdout)["findings"][0]
        assert finding["parameter"] == "acme" and "SyntaxError" in finding["suggestion"]
        assert finding["line"] == 1  # the import; the call that uses it is folded in


def test_a_provider_module_unreadable_in_both_releases_is_still_new(tmp_path: Path) -> None:
    root = acme.consumer(tmp_path)
    args = provider(tmp_path, "def run(a, b=1, old=2:\n", "def run(a, b=1, new=3:\n")
    done = audit(root, *args)
    assert kinds(done) == [("unparsable-provider", "error", "new")]
    assert done.returncode == 1


# --------------------------------------------------------------------------- item 6


def other_python() -> str | None:
    """A CPython 3.12 or newer on this machine, other than the one running the tests."""
    names = [f"python3.{minor}" for minor in range(12, 16)]
    found = [shutil.which(n) for n in names]
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    found += [str(p) for p in sorted(pyenv.glob("3.1[2-9]*/bin/python3"))]
    for candidate in filter(None, found):
        done = subprocess.run(
            [candidate, "-c", "import sys; print(sys.version_info[:2] >= (3, 12), sys.version)"],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        fits = done.returncode == 0 and done.stdout.startswith("True")
        if fits and done.stdout.split(" ", 1)[1].strip() != sys.version:
            return candidate
    return None


def test_a_cache_shared_by_two_pythons_never_gives_one_the_others_parse(tmp_path: Path) -> None:
    python = other_python()
    if python is None:
        pytest.skip("no second CPython (3.12+) on this machine")
    # the other Python runs drift-audit from this checkout and this environment's libraries
    site = [p for p in sys.path if p.endswith("site-packages")]
    path = os.pathsep.join([str(REPO_ROOT), *site])
    root = consumer(tmp_path, f"import acme\ntype Alias = int\n\n\ndef go():\n    return {BREAK}\n")
    _, new = acme.provider_folders(tmp_path)
    assert "TypeError" in python_says(root, new, python)

    def other() -> list[str]:
        return ["env", f"PYTHONPATH={path}", python, "-m", "auditor"]

    def annotations(done: subprocess.CompletedProcess[str]) -> list[str]:
        assert done.returncode in (0, 1) and "Traceback" not in done.stderr, done.stderr
        return [line.split("title=", 1)[1].split("::")[0] for line in done.stdout.splitlines()]

    shared = tmp_path / "shared-cache"
    ours = annotations(audit(root, cache=shared, fmt="github"))  # github: no fixes, no libcst
    if sys.version_info < (3, 12):
        assert [t.split(" ")[0] for t in ours] == ["unparsable"], ours
    theirs = annotations(audit(root, cache=shared, python=other, fmt="github"))
    assert [t.split(" ")[0] for t in theirs] == ["unexpected-keyword"], theirs
    assert annotations(audit(root, cache=shared, fmt="github")) == ours  # each keeps its own
