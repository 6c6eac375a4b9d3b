"""Trust, round four (issue 34), items 2 and 9: --fix changes its edit and nothing else.

Item 2: a safe --fix wrote the file as libcst's whole-module round trip writes it, and after a
line holding only a backslash that round trip indents the next statement: `VERSION = "1.0"`
moved into the function above it, after its `return`; the file parsed, so it was written, and
the re-audit said "no drift found", exit 0. Item 9: the same round trip dropped a file's last
line end (a trailing lone CR, CR-only line ends, a last comment ending in a backslash). Now
each edited call's new text is spliced into the file's own bytes, and the file is written
only if its AST is the old one's but at the edited calls. Each test runs the CLI and checks
the bytes written, what --diff showed, and, where it is fixed, what Python then runs.
tests/unit/test_fix_roundtrip.py proves the writer on random programs.
"""

from __future__ import annotations

import difflib
import os
import subprocess
import sys
from typing import TYPE_CHECKING

import pytest

from tests.trust import acme, machine
from tests.trust.cli import invoke

if TYPE_CHECKING:
    from pathlib import Path

    from click.testing import Result

# the repro of item 2 (f_fix_moves_statement.sh): the fix drops `old=2`, the old default
MOVES = 'import acme\n\n\ndef go():\n    return acme.run(1, old=2)\n\\\nVERSION = "1.0"\n'
# more shapes of it: in a class's method, a CRLF file, a continuation after the backslash,
# two lone backslashes, a comment ending in one
MOVES_TOO = {
    "method": "import acme\n\n\nclass C:\n    def go(self):\n        return acme.run(1, old=2)\n"
    '\\\nVERSION = "1.0"\n',
    "crlf": MOVES.replace("\n", "\r\n"),
    "continued": MOVES.replace('VERSION = "1.0"', 'VERSION = \\\n    "1.0"'),
    "twice": MOVES.replace('\\\nVERSION = "1.0"\n', '\\\nVERSION = "1.0"\n\\\nX = 2\n'),
    "comment": MOVES.replace("\\\nVERSION", "# see \\\n\\\nVERSION"),
}
# the repro of item 9 (f_fix_drops_final_line_end.sh): the fix renames old= to new=
ENDS = {
    "cr_only": b"import acme\rdef go():\r    return acme.run(1, old=5)\rX = 1\r",
    "lf_then_cr": b"import acme\ndef go():\n    return acme.run(1, old=5)\n\r",
    "backslash_comment_lf": b"import acme\ndef go():\n    return acme.run(1, old=5)\n# see \\\n",
    "backslash_comment_crlf": b"import acme\r\ndef go():\r\n    return acme.run(1, old=5)\r\n"
    b"# see \\\r\n",
    "no_end": b"import acme\ndef go():\n    return acme.run(1, old=5)\n# see \\",
    "mixed": b"import acme\r\ndef go():\r    return acme.run(1, old=5)\n# c\r\n\r",
}


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch) -> None:
    machine.isolate(monkeypatch)


def dropping_provider(root: Path) -> list[str]:
    """acme 0.1 `run(a, b=1, old=2)`, 0.2 `run(a, b=1)`: dropping `old=2` is a safe fix."""
    old, new = acme.provider_folders(root)
    (new / "acme" / "__init__.py").write_text("def run(a, b=1):\n    return a\n")
    return ["--against", f"acme @ {new.as_uri()}", "--baseline", f"acme @ {old.as_uri()}"]


def project(root: Path, data: bytes) -> Path:
    source = acme.consumer(root) / "widget" / "__init__.py"
    source.write_bytes(data)
    return source


def audit(source: Path, args: list[str], *more: str) -> Result:
    cache = source.parents[2] / "cache"
    result = invoke(str(source.parent), *args, "--cache-dir", str(cache), *more)
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr
    return result


def python(source: Path, provider: Path, code: str) -> str:
    """What Python prints running `code` with the consumer and `provider` importable."""
    done = subprocess.run(
        [sys.executable, "-c", code],
        env={"PYTHONPATH": f"{provider}{os.pathsep}{source.parents[1]}",
             "PATH": os.environ["PATH"], "PYTHONDONTWRITEBYTECODE": "1"},
        capture_output=True, text=True, check=False, cwd=source.parents[2],
    )  # fmt: skip
    return (done.stdout + done.stderr).strip()


def diff_of(before: bytes, after: bytes, name: str = "widget/__init__.py") -> str:
    """difflib's unified diff of two LF or CRLF texts, as --diff prints it."""
    return "".join(
        difflib.unified_diff(
            before.decode().splitlines(keepends=True), after.decode().splitlines(keepends=True),
            fromfile=f"a/{name}", tofile=f"b/{name}",
        )
    )  # fmt: skip


# --------------------------------------------------------------------------- item 2


@pytest.mark.parametrize("shape", ["repro", *MOVES_TOO])
def test_a_fix_never_moves_a_statement_after_a_lone_backslash(tmp_path: Path, shape: str) -> None:
    """Item 2: the module-level statement after a line holding only a backslash stays at
    module level; the file is the old one but for the call, byte for byte; --diff showed
    exactly that; and Python runs it: go() works and VERSION is still the module's."""
    text = MOVES if shape == "repro" else MOVES_TOO[shape]
    source = project(tmp_path / "project", text.encode())
    args = dropping_provider(tmp_path / "providers")
    provider = tmp_path / "providers" / "acme-0.2"
    owner = "widget.C().go()" if shape == "method" else "widget.go()"
    check = f"import widget; {owner}; print(widget.VERSION)"
    assert python(source, provider, check).endswith("TypeError: run() got an unexpected "
                                                    "keyword argument 'old'")  # fmt: skip
    before = source.read_bytes()
    shown = audit(source, args, "--diff")
    assert shown.exit_code == 1 and source.read_bytes() == before
    fixed = audit(source, args, "--fix")
    assert fixed.exit_code == 0, fixed.output
    assert "fixed 1 finding in 1 file" in fixed.stderr and "warning" not in fixed.stderr
    assert source.read_bytes() == before.replace(b"acme.run(1, old=2)", b"acme.run(1)")
    assert shown.stdout_bytes.decode() == diff_of(before, source.read_bytes())
    assert python(source, provider, check) == "1.0"


def test_a_call_libcst_does_not_place_as_python_does_is_left_with_a_warning(
    tmp_path: Path,
) -> None:
    """Item 2, where libcst misreads the edited code itself: a call after the lone
    backslash, which libcst sees one block in. The fix is proposed (from the text), but
    --fix writes nothing: one warning names the file and why, the finding stays (exit 1),
    and --diff shows nothing."""
    text = MOVES.replace('VERSION = "1.0"', "VALUE = acme.run(2, old=2)")
    source = project(tmp_path / "project", text.encode())
    args = dropping_provider(tmp_path / "providers")
    before = source.read_bytes()
    shown = audit(source, args, "--diff")
    assert shown.exit_code == 1 and "VALUE = acme.run(2)" not in shown.stdout
    fixed = audit(source, args, "--fix", "--format", "json")
    assert fixed.exit_code == 1
    warned = [line for line in fixed.stderr.splitlines() if "warning" in line]
    assert len(warned) == 1 and "widget/__init__.py" in warned[0], fixed.stderr
    assert "libcst does not read the code at the edit as Python does" in warned[0]
    assert source.read_bytes() == before


def test_a_fixed_text_whose_ast_moved_a_statement_is_never_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Item 2, the last look: with the splice undone (the writer made to write back the
    whole module as libcst does, as it did before), the file whose statement would move is
    refused, with a warning naming it, and left byte for byte; --diff shows nothing."""
    import libcst as cst

    from auditor import fixes

    real = fixes.spliced

    def round_trip(text: str, splices: object) -> str | None:
        made = real(text, splices)  # type: ignore[arg-type]
        return cst.parse_module(made).code if made is not None else None

    monkeypatch.setattr(fixes, "spliced", round_trip)
    monkeypatch.setenv("DRIFT_AUDIT_NO_FIX_KEEP", "1")
    source = project(tmp_path / "project", MOVES.encode())
    args = dropping_provider(tmp_path / "providers")
    before = source.read_bytes()
    assert audit(source, args, "--diff").stdout == ""
    fixed = audit(source, args, "--fix")
    assert fixed.exit_code == 1
    warned = [line for line in fixed.stderr.splitlines() if "warning" in line]
    assert len(warned) == 1 and "widget/__init__.py" in warned[0], fixed.stderr
    assert "would change more than the edited calls" in warned[0]
    assert source.read_bytes() == before


# --------------------------------------------------------------------------- item 9


@pytest.mark.parametrize("shape", list(ENDS))
def test_a_fix_keeps_every_line_end_and_the_last_comment(tmp_path: Path, shape: str) -> None:
    """Item 9: the file after --fix is the old one with `old=5` renamed, every other byte
    kept (a trailing lone CR, CR-only line ends, a last comment ending in a backslash, no
    final line end); --diff showed the one line changed; Python runs the fixed code."""
    source = project(tmp_path / "project", ENDS[shape])
    args = acme.folder_args(tmp_path / "providers")
    before = source.read_bytes()
    shown = audit(source, args, "--diff", "--unsafe-fixes")
    assert shown.exit_code == 1 and source.read_bytes() == before
    changed = [line for line in shown.stdout.splitlines() if line[:1] in "+-"]
    assert [line.removesuffix("\\x0d") for line in changed[2:]] == [
        "-    return acme.run(1, old=5)",
        "+    return acme.run(1, new=5)",
    ]
    fixed = audit(source, args, "--fix", "--unsafe-fixes")
    assert fixed.exit_code == 0, fixed.output
    assert "warning" not in fixed.stderr
    assert source.read_bytes() == before.replace(b"old=5", b"new=5")
    provider = tmp_path / "providers" / "acme-0.2"
    assert python(source, provider, "import widget; print(widget.go())") == "7"  # 1 + 1 + 5
