"""Trust, round four, item 12: a provider that rebinds a function through its namespace.

acme 0.2 defines `run(a, b=1, old=2)` and then writes `globals()["run"] = _impl`, whose
signature is `(a, b=1, new=3)`: the consumer's `acme.run(1, old=5)` raises TypeError, and
the audit said "no drift found", exit 0, while the same rebinding written `run = _impl` was
reported. Now a namespace write whose key is written out (a subscript, a keyword, a dict
display, spread or not) rebinds the name exactly as the assignment does; one that may not
run, or writes what is not followed, leaves the name undecided (counted, listed with
--show-unknown). A write whose key is computed leaves a name the module defines standing:
the model issue 36 states (a name is what the module defines unless a write can be shown
to name it). The tests of a
break fail on cf43118 (the commit before the fix); the near misses pass on both.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import TYPE_CHECKING, Any

import pytest

from tests.trust import acme, machine
from tests.trust.cli import invoke

if TYPE_CHECKING:
    from pathlib import Path


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch) -> None:
    machine.isolate(monkeypatch)


DEFS = "def run(a, b=1, old=2):\n    return a\n\n\ndef _impl(a, b=1, new=3):\n    return a\n\n\n"
BREAKS = {
    "an assignment (as it was)": "run = _impl\n",
    "a subscript of globals()": 'globals()["run"] = _impl\n',
    "globals().update with a keyword": "globals().update(run=_impl)\n",
    "globals().update with a dict": 'globals().update({"run": _impl})\n',
    "setattr on the module": 'import sys\n\nsetattr(sys.modules[__name__], "run", _impl)\n',
    "names spread in": 'globals().update(**{"run": _impl})\n',
}
RUNS = {  # near misses: the def stands, and Python runs `acme.run(1, old=5)` against 0.2
    "a def after the write": 'globals()["run"] = _impl\n\n\n' + DEFS.split("\n\n\n")[0] + "\n",
    "a write of another name": 'globals()["helper"] = _impl\n',
    "setdefault of a bound name": 'globals().setdefault("run", _impl)\n',
    "a write in a function never called": 'def _install():\n    globals()["run"] = _impl\n',
    # a computed key is not followed: the def is what the module defines (issue 36's model)
    "a key not known": (
        "import os\n\nfor _k in sorted(os.environ)[:0]:\n    globals()[_k] = _impl\n"
    ),
}
UNDECIDED = {  # nothing says what run is: undecided, whatever Python does
    "a write that may not run": (
        'import os\n\nif os.environ.get("X"):\n    globals()["run"] = _impl\n'
    ),
    "a value not followed": 'import os\n\nglobals()["run"] = os.environ.get("RUN") or _impl\n',
}


def _provider(tmp_path: Path, tail: str) -> Path:
    folder = tmp_path / "0.2"
    (folder / "acme").mkdir(parents=True)
    (folder / "acme" / "__init__.py").write_text(DEFS + tail, encoding="utf-8")
    return folder


def _python(project: Path, provider: Path) -> str:
    """ "" when `widget.go()` runs against the release's folder, else its last error line."""
    done = subprocess.run(
        [sys.executable, "-c", "import widget; widget.go()"],
        env={"PYTHONPATH": f"{project}{os.pathsep}{provider}", "PATH": os.environ["PATH"]},
        capture_output=True, text=True, check=False, timeout=60,
    )  # fmt: skip
    return "" if done.returncode == 0 else done.stderr.strip().splitlines()[-1]


def _audit(tmp_path: Path, tail: str, *more: str) -> tuple[str, int, dict[str, Any]]:
    """What Python says of the fixture's consumer against this 0.2 (baseline 0.1), the
    exit status of the audit, and its JSON report."""
    project = acme.consumer(tmp_path / "project")
    old, _ = acme.provider_folders(tmp_path / "providers")
    new = _provider(tmp_path, tail)
    result = invoke(
        str(project), "--against", f"acme @ {new.as_uri()}", "--baseline", f"acme @ {old.as_uri()}",
        "--cache-dir", str(tmp_path / "cache"), "--format", "json", *more,
    )  # fmt: skip
    assert result.exit_code in (0, 1), (result.output, result.exception)
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr
    assert _python(project, old) == ""
    return _python(project, new), result.exit_code, json.loads(result.stdout)


@pytest.mark.parametrize("tail", BREAKS.values(), ids=BREAKS.keys())
def test_a_function_rebound_through_the_namespace_is_checked_as_rebound(
    tmp_path: Path, tail: str
) -> None:
    python, status, report = _audit(tmp_path, tail)
    assert python == "TypeError: _impl() got an unexpected keyword argument 'old'"
    assert status == 1
    found = [(f["kind"], f["line"], f["status"], f["symbol"]) for f in report["findings"]]
    assert found == [("unexpected-keyword", 5, "new", "acme._impl")]
    assert report["findings"][0]["target_signature"] == "(a, b=1, new=3)"


@pytest.mark.parametrize("tail", RUNS.values(), ids=RUNS.keys())
def test_a_write_that_leaves_the_def_in_place_stays_silent(tmp_path: Path, tail: str) -> None:
    python, status, report = _audit(tmp_path, tail, "--show-unknown")
    assert (python, status) == ("", 0)
    assert report["findings"] == [] and report["undecided"] == []


@pytest.mark.parametrize("tail", UNDECIDED.values(), ids=UNDECIDED.keys())
def test_a_write_that_may_rebind_the_name_leaves_the_call_undecided(
    tmp_path: Path, tail: str
) -> None:
    _, status, report = _audit(tmp_path, tail, "--show-unknown")
    assert status == 0 and report["findings"] == []
    assert [(u["line"], u["target"]) for u in report["undecided"]] == [(5, "acme.run")]
    assert "acme" in report["undecided"][0]["reason"]
    assert report["stats"]["undecided"] == 1
