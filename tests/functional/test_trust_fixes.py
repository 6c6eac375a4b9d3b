"""Trust, round three: --fix and --diff never break code, never write outside the consumer,
never leave half a fix, and never print raw what they show.

Each test names the item of the review (issue 22) it covers. The fixture is the common one of
tests/trust/acme.py (`acme.run(1, old=5)`; acme 0.1 takes `old`, 0.2 `new`), or a 0.2 whose
deprecation wrapper maps `old` to another name inside `**kwargs`. Wherever a fix is written,
Python itself then runs the consumer against acme 0.2; wherever it is refused, the file is
byte for byte what it was, and still runs.
"""

from __future__ import annotations

import difflib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.trust import acme, machine
from tests.trust.cli import invoke

if TYPE_CHECKING:
    from collections.abc import Callable

    from click.testing import Result

REPO_ROOT = Path(__file__).resolve().parents[2]
BOM = b"\xef\xbb\xbf"
WRAPPED = """import functools, warnings


def _renamer(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        if "old" in kwargs:
            warnings.warn("old is deprecated", DeprecationWarning)
            kwargs[{name!r}] = kwargs.pop("old")
        return func(*args, **kwargs)
    return wrapper


@_renamer
def run(a, b=1, **kw):
    return a
"""
# Names a call cannot write as `name=...`: a keyword, a constant, a space, a leading digit,
# __debug__, and a ligature (the parser reads the NFKC form, another name).
NOT_WRITABLE = ["class", "None", "x y", "1st", "__debug__", "\ufb01le"]
# Soft keywords are names in a call: the fix is offered, written, and runs.
SOFT_KEYWORDS = ["match", "case", "type", "_"]


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch) -> None:
    machine.isolate(monkeypatch)


def wrapper_args(root: Path, name: str) -> tuple[list[str], Path]:
    """--against a 0.2 whose wrapper maps old= to `name` (--baseline 0.1); the 0.2 folder."""
    old, new = acme.provider_folders(root)
    (new / "acme" / "__init__.py").write_text(WRAPPED.format(name=name), encoding="utf-8")
    return ["--against", f"acme @ {new.as_uri()}", "--baseline", f"acme @ {old.as_uri()}"], new


def audit(project: Path, args: list[str], *more: str) -> Result:
    cache = project.parent / "cache"
    return invoke(str(project / "widget"), *args, "--cache-dir", str(cache), *more)


def runs(project: Path, provider: Path, *modules: str, strict: bool = False) -> tuple[int, str]:
    """Python imports each consumer module against `provider` and calls its go() (`strict`:
    a DeprecationWarning is an error); (return code, last line of stderr)."""
    code = f"import importlib\nfor m in {list(modules or ['widget'])!r}:\n"
    code += "    importlib.import_module(m).go()\n"
    flags = ["-W", "error::DeprecationWarning"] if strict else []
    done = subprocess.run(
        [sys.executable, *flags, "-c", code],
        env={"PYTHONPATH": f"{provider}{os.pathsep}{project}", "PATH": os.environ["PATH"],
             "PYTHONDONTWRITEBYTECODE": "1"},
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    return done.returncode, (done.stderr.strip().splitlines() or [""])[-1]


def findings(result: Result) -> list[dict[str, object]]:
    assert result.exit_code in (0, 1), (result.exit_code, result.output, result.exception)
    assert "internal error" not in result.stderr and "Traceback" not in result.stderr
    found: list[dict[str, object]] = json.loads(result.stdout)["findings"]
    return found


def sound(result: Result, status: int) -> None:
    """A run that worked, with this exit status."""
    assert result.exit_code == status, (result.exit_code, result.output, result.exception)
    assert "internal error" not in result.stderr and "Traceback" not in result.stderr


# --------------------------------------------------------------------------- items 2 and 12


@pytest.mark.parametrize("name", NOT_WRITABLE)
def test_a_rename_to_a_name_no_call_can_write_is_never_offered(tmp_path: Path, name: str) -> None:
    """Items 2 and 12: a wrapper mapping old= to `class` made a safe --fix write a
    SyntaxError (the re-audit then said info `unparsable`, exit 0); to `x y`, every JSON,
    SARIF and HTML audit and --diff/--fix were an internal error. Now the finding stays,
    without a fix, in every format; nothing is written; the code still runs."""
    args, provider = wrapper_args(tmp_path / "providers", name)
    project = acme.consumer(tmp_path / "project")
    source = project / "widget" / "__init__.py"
    before = source.read_bytes()
    listed = findings(audit(project, args, "--format", "json"))
    assert [(f["kind"], f["line"]) for f in listed] == [("deprecated", acme.BREAK[1])]
    assert "fix" not in listed[0]
    sarif = audit(project, args, "--format", "sarif")
    sound(sarif, 0)
    assert all("fixes" not in r for r in json.loads(sarif.stdout)["runs"][0]["results"])
    html = audit(project, args, "--format", "html")
    sound(html, 0)
    assert "Proposed fix" not in html.stdout
    diff = audit(project, args, "--diff", "--unsafe-fixes")
    sound(diff, 0)
    assert diff.stdout == ""
    fixed = audit(project, args, "--fix", "--unsafe-fixes", "--format", "json")
    assert [f["kind"] for f in findings(fixed)] == ["deprecated"]  # the re-audit: still there
    assert source.read_bytes() == before
    assert runs(project, provider) == (0, "")


@pytest.mark.parametrize("name", SOFT_KEYWORDS)
def test_a_rename_to_a_soft_keyword_is_fixed_and_runs(tmp_path: Path, name: str) -> None:
    """Items 2 and 12, the other side: soft keywords are names in a call (`run(1, match=5)`
    parses), so that fix is offered and written, and the fixed code runs without the
    warning."""
    args, provider = wrapper_args(tmp_path / "providers", name)
    project = acme.consumer(tmp_path / "project")
    assert runs(project, provider, strict=True)[0] != 0  # the deprecation, as an error
    listed = findings(audit(project, args, "--format", "json"))
    assert [f["fix"]["safe"] for f in listed if "fix" in f] == [True]  # type: ignore[index]
    fixed = audit(project, args, "--fix", "--format", "json")
    assert findings(fixed) == []
    assert f"{name}=5" in (project / "widget" / "__init__.py").read_text(encoding="utf-8")
    assert runs(project, provider, strict=True) == (0, "")


def test_a_guessed_rename_to_an_alias_is_a_finding_without_a_fix(tmp_path: Path) -> None:
    """Item 12 by another road: a pydantic field whose alias is `new-name` made the guessed
    rename `new-name=...`, an internal error in every report that carries fixes. Now the
    finding stays, its suggestion says how Python can pass that name, and no fix."""
    old, new = acme.provider_folders(tmp_path / "providers")
    model = (
        "from pydantic import BaseModel, ConfigDict, Field\n\n\nclass M(BaseModel):\n"
        '    model_config = ConfigDict(extra="forbid")\n'
    )
    (old / "acme" / "__init__.py").write_text(model + "    newname: int = 1\n")
    (new / "acme" / "__init__.py").write_text(model + '    n: int = Field(1, alias="new-name")\n')
    project = acme.consumer(tmp_path / "project")
    source = project / "widget" / "__init__.py"
    source.write_text("import acme\n\n\ndef go():\n    return acme.M(newname=2)\n")
    before = source.read_bytes()
    args = ["--against", f"acme @ {new.as_uri()}", "--baseline", f"acme @ {old.as_uri()}"]
    listed = findings(audit(project, args, "--format", "json"))
    assert [f["kind"] for f in listed] == ["unexpected-keyword"]
    assert "fix" not in listed[0]
    assert "**{'new-name': ...}" in str(listed[0]["suggestion"])
    for fmt in ("sarif", "html"):
        sound(audit(project, args, "--format", fmt), 1)
    sound(audit(project, args, "--diff", "--unsafe-fixes"), 1)
    sound(audit(project, args, "--fix", "--unsafe-fixes"), 1)
    assert source.read_bytes() == before


def test_a_fix_whose_text_would_not_parse_is_never_offered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Item 2, the second guard: with the name checks gone (as if a new kind of fix forgot
    them), the proposal that would give `acme.run(1, class=5)` is still not offered: the
    file with the fix applied must parse."""
    from auditor import bind, fixes, fixtext

    monkeypatch.setenv("DRIFT_AUDIT_NO_FIX_KEEP", "1")
    monkeypatch.setattr(bind, "is_keyword_name", lambda name: True)
    monkeypatch.setattr(fixes, "is_keyword_name", lambda name: True)
    monkeypatch.setattr(fixtext, "is_keyword_name", lambda name: True)
    args, _ = wrapper_args(tmp_path / "providers", "class")
    project = acme.consumer(tmp_path / "project")
    listed = findings(audit(project, args, "--format", "json"))
    assert [f["kind"] for f in listed] == ["deprecated"]
    assert "fix" not in listed[0]


def test_a_fixed_text_that_would_not_parse_is_never_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Item 2, the last guard: with the name checks and the proposals' check gone, --fix
    and --diff still parse the text they would write, refuse it with a warning naming the
    file, and leave it byte for byte."""
    from auditor import bind, fixes, fixtext

    monkeypatch.setenv("DRIFT_AUDIT_NO_FIX_KEEP", "1")
    monkeypatch.setattr(bind, "is_keyword_name", lambda name: True)
    monkeypatch.setattr(fixes, "is_keyword_name", lambda name: True)
    monkeypatch.setattr(fixtext, "is_keyword_name", lambda name: True)
    monkeypatch.setattr(fixes._Source, "parsing", lambda self, path, found: list(found))
    monkeypatch.setattr(fixtext._Text, "parsing", lambda self, path, made: made)
    args, provider = wrapper_args(tmp_path / "providers", "class")
    project = acme.consumer(tmp_path / "project")
    source = project / "widget" / "__init__.py"
    before = source.read_bytes()
    diff = audit(project, args, "--diff")
    sound(diff, 0)
    assert diff.stdout == ""
    fixed = audit(project, args, "--fix")
    sound(fixed, 0)
    warned = [line for line in fixed.stderr.splitlines() if "warning" in line]
    assert len(warned) == 1 and "widget/__init__.py" in warned[0] and "parse" in warned[0]
    assert source.read_bytes() == before
    assert runs(project, provider) == (0, "")


# --------------------------------------------------------------------------- item 10

HOSTILE = 'import acme\nX = "\x1b]52;c;ZXZpbA==\x07\x1b]0;title\x07\x1b[31mRED\x1b[0m"\n'
HOSTILE += "def go(): return acme.run(1, old=5)\n"
WORKFLOW_NAME = "x\n::error file=app.py,line=1::pwned\n.py"


def test_diff_never_prints_escape_sequences_or_workflow_commands(tmp_path: Path) -> None:
    """Item 10: --diff printed source lines and file names raw: OSC 52 (a clipboard write)
    and title sequences reached the terminal, and a file name holding `\\n::error ...`
    printed a workflow command. Now every line is escaped as the text report escapes it."""
    project = acme.consumer(tmp_path / "project")
    (project / "widget" / "__init__.py").write_text(HOSTILE, encoding="utf-8")
    (project / "widget" / WORKFLOW_NAME).write_text(acme.CONSUMER, encoding="utf-8")
    result = audit(project, acme.folder_args(tmp_path / "providers"), "--diff", "--unsafe-fixes")
    sound(result, 1)
    shown = result.stdout
    assert "\x1b" not in shown and "\x07" not in shown
    assert not [line for line in shown.split("\n") if line.lstrip().startswith("::")]
    assert "\\x1b]52;c;ZXZpbA==\\x07" in shown  # visible, escaped
    assert shown.count("+def go(): return acme.run(1, new=5)") == 1
    assert shown.count("+    return acme.run(1, new=5)") == 1
    assert shown.count("\n--- a/widget/") == 1 and shown.startswith("--- a/widget/")


PLAIN = {
    "widget/__init__.py": "import acme\n\n\ndef go():\n\t# caf\u00e9 \u4e2d\u6587 \U0001f600\n"
    "    return acme.run(1, old=5)  # \u00fcber\n",
    "widget/crlf.py": "import acme\r\n\r\n\r\ndef go():\r\n    return acme.run(2, old=6)\r\n",
    "widget/tail.py": "import acme\n\n\ndef go():\n    return acme.run(3, old=7)",
}


def test_a_plain_diff_is_difflibs_byte_for_byte(tmp_path: Path) -> None:
    """Item 10, the other side: a diff of ordinary text (UTF-8, tabs, CRLF, no final line
    feed) is what difflib makes of the file before and after --fix, byte for byte."""
    project = tmp_path / "project"
    for rel, text in PLAIN.items():
        (project / rel).parent.mkdir(parents=True, exist_ok=True)
        (project / rel).write_bytes(text.encode("utf-8"))
    args = acme.folder_args(tmp_path / "providers")
    shown = audit(project, args, "--diff", "--unsafe-fixes")
    sound(shown, 1)
    copy = tmp_path / "copy"
    shutil.copytree(project, copy)
    sound(audit(copy, args, "--fix", "--unsafe-fixes"), 0)
    expected = ""
    for rel in sorted(PLAIN):
        old = (project / rel).read_bytes().decode("utf-8")
        new = (copy / rel).read_bytes().decode("utf-8")
        assert new != old
        expected += "".join(
            difflib.unified_diff(
                old.splitlines(keepends=True), new.splitlines(keepends=True),
                fromfile=f"a/{rel}", tofile=f"b/{rel}",
            )
        )  # fmt: skip
    assert shown.stdout_bytes == expected.encode("utf-8")


# --------------------------------------------------------------------------- item 11

FILES = 24  # consumer modules with one fix each
NTH = 5  # the staged file or rename after which the signal comes
DRIVER = """
import os, sys
from auditor import files
phase, nth, number, *argv = sys.argv[1:]
seen = [0]

def after(real):
    def hooked(*args):
        result = real(*args)
        seen[0] += 1
        if seen[0] == int(nth):
            os.kill(os.getpid(), int(number))  # a real signal, through the real handlers
        return result
    return hooked

if phase == "staging":
    files._stage = after(files._stage)
else:
    files._Staged.commit = after(files._Staged.commit)
from auditor.cli import main
main(argv)
"""


def many_modules(tmp_path: Path, count: int, padding: int = 0) -> Path:
    project = acme.consumer(tmp_path / "project")
    for i in range(count - 1):
        text = f"import acme\n\n\ndef go():\n    return acme.run({i}, old={i})\n"
        (project / "widget" / f"m{i}.py").write_text(text + "# padding\n" * padding)
    return project


def fix_command(project: Path, tmp_path: Path) -> list[str]:
    return [
        str(project / "widget"), *acme.folder_args(tmp_path / "providers"),
        "--cache-dir", str(tmp_path / "cache"), "--fix", "--unsafe-fixes",
    ]  # fmt: skip


def child_env() -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PYTHONPATH": str(REPO_ROOT),
        "PIP_CONFIG_FILE": os.devnull,
    }


def sigint(disposition: signal.Handlers) -> Callable[[], object]:
    """A preexec_fn giving the child this SIGINT disposition (a suite run from a shell that
    ignores SIGINT passes SIG_IGN on: see test_trust_interrupt.restore_sigint)."""
    return lambda: signal.signal(signal.SIGINT, disposition)


def state(project: Path) -> tuple[dict[str, bytes], list[str]]:
    """Every consumer module's bytes, and any other file (a temp file) left in the tree."""
    modules = {p.name: p.read_bytes() for p in (project / "widget").glob("*.py")}
    files = [p for p in project.rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    return modules, [p.name for p in files if p.suffix != ".py"]


def fixed_count(modules: dict[str, bytes]) -> int:
    return sum(1 for text in modules.values() if b"old=" not in text and b"new=" in text)


@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("phase", ["staging", "renaming"])
def test_a_signal_during_fix_leaves_all_files_or_none_and_no_temp_file(
    tmp_path: Path, phase: str, number: signal.Signals
) -> None:
    """Item 11: Ctrl-C or SIGTERM while --fix wrote its files left some fixed, the others
    not, and a hidden temp copy of each one not yet renamed. Now a signal while the files
    are staged leaves every file as it was, one while they are renamed waits for the last
    rename; either way no temp file is left, and the signal has its usual outcome."""
    project = many_modules(tmp_path, FILES)
    before, _ = state(project)
    done = subprocess.run(
        [sys.executable, "-c", DRIVER, phase, str(NTH), str(int(number)),
         *fix_command(project, tmp_path)],
        env=child_env(), cwd=tmp_path, capture_output=True, text=True, timeout=300,
        check=False, preexec_fn=sigint(signal.SIG_DFL),
    )  # fmt: skip
    after, left = state(project)
    assert left == []
    if phase == "staging":
        assert after == before
    else:
        assert fixed_count(after) == FILES
        names = [f"widget.m{i}" for i in range(FILES - 1)]
        assert runs(project, tmp_path / "providers" / "acme-0.2", "widget", *names) == (0, "")
    if number == signal.SIGINT:
        assert done.returncode == 130, done.stderr
        assert done.stderr.strip().splitlines()[-1] == "drift-audit: interrupted"
    else:
        assert done.returncode == -signal.SIGTERM, done.stderr
    assert "Traceback" not in done.stderr


def test_an_ignored_sigint_stays_ignored_during_fix(tmp_path: Path) -> None:
    """Item 11: holding the signals must not undo a SIG_IGN the process was started with
    (`nohup`, a background job): that Ctrl-C changes nothing, and the fix completes."""
    project = many_modules(tmp_path, FILES)
    done = subprocess.run(
        [sys.executable, "-c", DRIVER, "staging", str(NTH), str(int(signal.SIGINT)),
         *fix_command(project, tmp_path)],
        env=child_env(), cwd=tmp_path, capture_output=True, text=True, timeout=300,
        check=False, preexec_fn=sigint(signal.SIG_IGN),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    after, left = state(project)
    assert left == [] and fixed_count(after) == FILES


@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_sent_while_fix_writes_never_splits_the_fix(
    tmp_path: Path, number: signal.Signals
) -> None:
    """Item 11 as the review saw it: the signal comes from outside, as soon as --fix starts
    writing (the first temp file or the first file replaced). All files or none, and no
    temp file, whichever phase it lands in."""
    project = many_modules(tmp_path, 150, padding=200)
    before, _ = state(project)
    first = project / "widget" / "__init__.py"
    mtime = first.stat().st_mtime_ns
    proc = subprocess.Popen(
        [sys.executable, "-m", "auditor", *fix_command(project, tmp_path), "-q"],
        env=child_env(), cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        text=True, preexec_fn=sigint(signal.SIG_DFL),
    )  # fmt: skip
    widget = project / "widget"
    while proc.poll() is None:
        if any(p.name.endswith(".tmp") for p in widget.iterdir()):
            break
        if first.stat().st_mtime_ns != mtime:
            break
        time.sleep(0.001)
    if proc.poll() is None:
        proc.send_signal(number)
    _, stderr = proc.communicate(timeout=300)
    after, left = state(project)
    assert left == []
    assert fixed_count(after) in (0, len(before)), fixed_count(after)
    if fixed_count(after) == 0:
        assert after == before
    assert proc.returncode in (0, 130, -signal.SIGTERM), stderr
    assert "Traceback" not in stderr


# --------------------------------------------------------------------------- item 18


def test_fix_never_writes_through_a_hard_link(tmp_path: Path) -> None:
    """Item 18: a consumer file hard-linked to a file outside the consumer was rewritten in
    place, so the outside file changed. Now that file is left alone, with one warning
    naming it, the other files are fixed, and the exit status says a finding remains."""
    project = acme.consumer(tmp_path / "project")
    outside = tmp_path / "outside" / "victim.py"
    outside.parent.mkdir()
    outside.write_text(acme.CONSUMER, encoding="utf-8")
    linked = project / "widget" / "linked.py"
    os.link(outside, linked)
    before = outside.read_bytes()
    args = acme.folder_args(tmp_path / "providers")
    diff = audit(project, args, "--diff", "--unsafe-fixes")
    sound(diff, 1)
    assert "linked.py" not in diff.stdout and "+++ b/widget/__init__.py" in diff.stdout
    result = audit(project, args, "--fix", "--unsafe-fixes", "--format", "json")
    left = findings(result)
    assert result.exit_code == 1
    assert [(f["path"], f["kind"]) for f in left] == [("widget/linked.py", "unexpected-keyword")]
    warned = [line for line in result.stderr.splitlines() if "warning" in line]
    assert len(warned) == 1 and "widget/linked.py" in warned[0] and "hard links" in warned[0]
    assert outside.read_bytes() == before and linked.read_bytes() == before
    assert outside.stat().st_nlink == 2
    assert runs(project, tmp_path / "providers" / "acme-0.2") == (0, "")  # __init__ fixed


# --------------------------------------------------------------------------- item 19


def test_a_file_with_a_bom_is_fixed_and_keeps_it(tmp_path: Path) -> None:
    """Item 19: a file starting with a UTF-8 BOM (legal Python) could not be fixed: "changed
    since it was audited" (the audit read it without the BOM, the fix stage with it). Now
    the fix stage reads it as the audit does, and the fixed file keeps its BOM."""
    project = acme.consumer(tmp_path / "project")
    source = project / "widget" / "__init__.py"
    source.write_bytes(BOM + acme.CONSUMER.encode("utf-8"))
    args = acme.folder_args(tmp_path / "providers")
    diff = audit(project, args, "--diff", "--unsafe-fixes")
    sound(diff, 1)
    assert "+    return acme.run(1, new=5)" in diff.stdout and "\ufeff" not in diff.stdout
    sound(audit(project, args, "--fix", "--unsafe-fixes"), 0)
    assert source.read_bytes().startswith(BOM) and not source.read_bytes()[3:].startswith(BOM)
    assert runs(project, tmp_path / "providers" / "acme-0.2") == (0, "")


def test_a_file_with_a_coding_cookie_is_written_back_in_its_encoding(tmp_path: Path) -> None:
    """Item 19, the same rule for PEP 263: a latin-1 file is read as latin-1 and written back
    as latin-1 (its other bytes untouched), and Python runs it."""
    project = acme.consumer(tmp_path / "project")
    source = project / "widget" / "__init__.py"
    text = "# -*- coding: latin-1 -*-\n" + acme.CONSUMER.replace("\n\n\n", "\n\n\n# caf\u00e9\n")
    source.write_bytes(text.encode("latin-1"))
    sound(audit(project, acme.folder_args(tmp_path / "providers"), "--fix", "--unsafe-fixes"), 0)
    data = source.read_bytes()
    assert b"caf\xe9" in data and b"new=5" in data
    assert runs(project, tmp_path / "providers" / "acme-0.2") == (0, "")
