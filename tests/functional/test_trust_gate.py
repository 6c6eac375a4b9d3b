"""Trust, round three: what a pull request controls never switches the gate off unseen.

Items 7, 8, 9, 16 and 17 of the third adversarial review (issue 22), on the common fixture of
tests/trust/acme.py (provider acme 0.1 `run(a, b=1, old=2)`, 0.2 `run(a, b=1, new=3)`,
consumer `acme.run(1, old=5)`) and the fake index on loopback. Each test fails on 0423f66 (the
commit before the fix) and passes now. Where a verdict depends on Python's rules (a star
import, a dict spread), the consumer is run with the interpreter against acme 0.2 in a
subprocess, so the verdict checked is Python's, near misses included.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from typing import TYPE_CHECKING

import pytest

from auditor import pipeline
from tests.trust import acme, fakeindex, machine
from tests.trust.cli import error_line, invoke

if TYPE_CHECKING:
    from collections.abc import Iterator
    from http.server import BaseHTTPRequestHandler
    from pathlib import Path

    from click.testing import Result

    from auditor.model import Resolution
    from tests.trust.fakeindex import FakeIndex


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch) -> None:
    machine.isolate(monkeypatch)


def findings(result: Result) -> list[tuple[str, int]]:
    """(kind, line) of a JSON run that worked."""
    assert result.exit_code in (0, 1), (result.exit_code, result.output, result.exception)
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr
    return [(f["kind"], f["line"]) for f in json.loads(result.stdout)["findings"]]


# --------------------------------------------------------------------------- 16: many parameters


class _Counted(str):
    """A parameter name that counts how often it is compared for equality."""

    compared = 0
    __hash__ = str.__hash__

    def __eq__(self, other: object) -> bool:
        type(self).compared += 1
        return str.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)


def _counted(resolution: Resolution) -> Resolution:
    """The resolution with every parameter name of its signature a _Counted."""
    symbol = resolution.symbol
    if symbol is None or symbol.signature is None:
        return resolution
    params = tuple(replace(p, name=_Counted(p.name)) for p in symbol.signature.params)
    signature = replace(symbol.signature, params=params)
    return replace(resolution, symbol=replace(symbol, signature=signature))


@pytest.mark.parametrize("call", ["acme.run(1, old=5)", "acme.run(1)"])
def test_a_provider_with_many_parameters_is_bound_in_linear_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, call: str
) -> None:
    """Item 16: a callee with thousands of parameters. Binding compares their names a number
    of times proportional to their count (a list searched once per name was quadratic:
    40,000 parameters took 41-54 s an audit), and the verdict is the same."""
    count = 2000
    many = ", ".join(f"p{i}=None" for i in range(count))
    versions = {}
    for version, keyword in (("0.1", "old=2"), ("0.2", "new=3")):
        folder = tmp_path / f"acme-{version}" / "acme"
        folder.mkdir(parents=True)
        (folder / "__init__.py").write_text(f"def run(a, b=1, {keyword}, {many}):\n    return a\n")
        versions[version] = f"acme @ {folder.parent.as_uri()}"
    project = tmp_path / "project"
    (project / "widget").mkdir(parents=True)
    consumer = f"import acme\n\n\ndef go():\n    return {call}\n"
    (project / "widget" / "__init__.py").write_text(consumer)
    real = pipeline.MemoizedProvider.resolve
    monkeypatch.setattr(
        pipeline.MemoizedProvider, "resolve", lambda self, *a, **k: _counted(real(self, *a, **k))
    )
    _Counted.compared = 0
    result = invoke(
        str(project), "--against", versions["0.2"], "--baseline", versions["0.1"],
        "--cache-dir", str(tmp_path / "cache"), "--format", "json",
    )  # fmt: skip
    expected = [("unexpected-keyword", 5)] if "old" in call else []
    assert findings(result) == expected
    assert _Counted.compared < 20 * count, _Counted.compared


# --------------------------------------------------------------------------- 17: cut headers


CUTS = {
    "inside a header": b"HTTP/1.1 200 OK\r\nContent-Ty",
    "after the status line": b"HTTP/1.1 200 OK\r\n",
    "after an empty body's length": b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n",
    "inside the status line": b"HTTP/1.1 200 O",
}


@pytest.fixture
def cutting_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeIndex]:
    """The acme index, whose project pages are cut inside their headers while `cuts` (an
    attribute set by the test: how many answers, and the bytes sent) says so."""
    real = fakeindex._handler

    def handler(index: FakeIndex) -> type[BaseHTTPRequestHandler]:
        class Cutting(real(index)):  # type: ignore[misc, valid-type]
            def _page(self) -> None:
                left, sent = getattr(index, "cuts", (0, b""))
                if left <= 0 or not self.path.startswith("/simple/acme"):
                    return super()._page()  # type: ignore[no-any-return]
                index.cuts = (left - 1, sent)  # type: ignore[attr-defined]
                self.wfile.write(sent)
                self.wfile.flush()
                self.close_connection = True
                return None

        return Cutting

    monkeypatch.setattr(fakeindex, "_handler", handler)
    with acme.ranged_index(tmp_path, monkeypatch) as fake:
        yield fake


def _audit_index(project: Path, index: FakeIndex, cache: Path) -> Result:
    return invoke(
        str(project), "--against", "acme==0.2", "--baseline", "acme==0.1",
        "--index-url", index.url, "--cache-dir", str(cache), "--format", "json",
    )  # fmt: skip


@pytest.mark.parametrize("cut", CUTS.values(), ids=CUTS.keys())
def test_an_answer_cut_inside_its_headers_is_an_error_never_a_page(
    tmp_path: Path, cutting_index: FakeIndex, cut: bytes
) -> None:
    """Item 17: `HTTP/1.1 200 OK`, part of the headers, then the connection closes. It was
    read as a page listing nothing and kept for 10 minutes ("the index lists no readable
    files", though the index answered normally again). Now it is a network error, retried,
    then one line; nothing is kept, and the next run asks again and audits."""
    project = acme.consumer(tmp_path / "project")
    cache = tmp_path / "cache"
    cutting_index.cuts = (1000, cut)  # type: ignore[attr-defined]
    line = error_line(_audit_index(project, cutting_index, cache))
    assert line.startswith(f"cannot fetch {cutting_index.url}/acme/"), line
    assert "no readable files" not in line
    cutting_index.cuts = (0, cut)  # type: ignore[attr-defined]
    assert findings(_audit_index(project, cutting_index, cache)) == [acme.BREAK]


def test_one_answer_cut_inside_its_headers_is_retried(
    tmp_path: Path, cutting_index: FakeIndex
) -> None:
    """Item 17: a cut answer is a failure worth another attempt, within the same run."""
    cutting_index.cuts = (1, CUTS["inside a header"])  # type: ignore[attr-defined]
    project = acme.consumer(tmp_path / "project")
    assert findings(_audit_index(project, cutting_index, tmp_path / "cache")) == [acme.BREAK]
    assert cutting_index.count("/simple/acme/") == 2


# --------------------------------------------------------------------------- 9: package folders


SECRET = "AWS_SECRET_ACCESS_KEY=abcd1234 SUPERSECRET"
FORMATS = ("text", "json", "sarif", "github", "gitlab", "markdown", "html")


def _package_beside_a_secret(tmp_path: Path) -> Path:
    """widget/ (a package folder) beside secret/creds.env and a module widget.py, with the
    link widget/leak.py -> ../secret/creds.env; returns the package folder."""
    package = acme.consumer(tmp_path / "repo") / "widget"
    (tmp_path / "repo" / "secret").mkdir()
    (tmp_path / "repo" / "secret" / "creds.env").write_text(f"{SECRET}\n")
    (tmp_path / "repo" / "widget.py").write_text(f"import acme\nacme.run(1, old=2)  # {SECRET}\n")
    (package / "leak.py").symlink_to("../secret/creds.env")
    (package / "inside.py").symlink_to("__init__.py")  # a link inside the folder is source
    return package


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_package_folder_consumer_reads_nothing_beside_itself(tmp_path: Path, fmt: str) -> None:
    """Item 9: `drift-audit widget/` was confined to widget's parent, its import root: the
    link widget/leak.py -> ../secret/creds.env was read and shown in every report. A link is
    followed only into the folder named; nothing beside it (widget.py) is read either."""
    package = _package_beside_a_secret(tmp_path)
    result = invoke(
        str(package), *acme.folder_args(tmp_path), "--format", fmt,
        "--cache-dir", str(tmp_path / "cache"),
    )  # fmt: skip
    assert result.exit_code == 1, result.output
    assert "SUPERSECRET" not in result.stdout and "SUPERSECRET" not in result.stderr
    assert "skipping widget/leak.py: a link to outside the tree" in result.stderr
    if fmt == "json":
        paths = sorted(f["path"] for f in json.loads(result.stdout)["findings"])
        assert paths == ["widget/__init__.py", "widget/inside.py"]


def test_the_current_folder_as_the_package_reads_nothing_beside_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Item 9: `drift-audit .` in a repository whose root is the package."""
    package = _package_beside_a_secret(tmp_path)
    monkeypatch.chdir(package)
    result = invoke(
        ".", *acme.folder_args(tmp_path), "--format", "json", "--cache-dir", str(tmp_path / "c")
    )
    assert "SUPERSECRET" not in result.stdout and "SUPERSECRET" not in result.stderr
    assert findings(result) == [acme.BREAK, acme.BREAK]  # __init__.py and its link inside.py


def test_fix_never_writes_through_a_link_out_of_the_package_folder(tmp_path: Path) -> None:
    """Item 9: widget/sub -> ../lib let `--fix --unsafe-fixes` rewrite lib/m.py, outside
    the folder named. The link is not followed; the package's own file is still fixed."""
    package = acme.consumer(tmp_path / "repo") / "widget"
    lib = tmp_path / "repo" / "lib"
    lib.mkdir()
    (lib / "m.py").write_text("import acme\n\n\ndef h():\n    return acme.run(2, old=6)\n")
    before = (lib / "m.py").read_bytes()
    (package / "sub").symlink_to("../lib", target_is_directory=True)
    result = invoke(
        str(package), *acme.folder_args(tmp_path), "--fix", "--unsafe-fixes", "--format", "json",
        "--cache-dir", str(tmp_path / "cache"),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert (lib / "m.py").read_bytes() == before
    assert "new=5" in (package / "__init__.py").read_text()


# --------------------------------------------------------------------------- 7: settings


NARROWING = {
    "ignore one kind": ('ignore = ["unexpected-keyword"]', "ignore"),
    "ignore ALL": ('ignore = ["ALL"]', "ignore"),
    "select unparsable": ('select = ["unparsable"]', "select"),
}


def _configured(tmp_path: Path, table: str) -> Path:
    """The acme project whose own pyproject.toml holds `table` under [tool.drift-audit]."""
    pyproject = f'[project]\nname = "widget"\nversion = "1"\n\n[tool.drift-audit]\n{table}\n'
    return acme.consumer(tmp_path / "project", extra={"pyproject.toml": pyproject})


def _said(fmt: str, out: str) -> list[str]:
    """What a report in `fmt` says the settings left out (one text per setting)."""
    if fmt == "json":
        return [
            f"{e['setting']} {e['source']} {e['file']} {e['kinds']}"
            for e in json.loads(out)["left_out"]
        ]
    if fmt == "sarif":
        run = json.loads(out)["runs"][0]
        notes = [n for i in run.get("invocations", []) for n in i["toolExecutionNotifications"]]
        assert [n["level"] for n in notes] == ["warning"] * len(notes)
        listed = run["properties"].get("leftOut", [])
        return [f"{n['message']['text']} {e['kinds']}" for n, e in zip(notes, listed, strict=True)]
    if fmt == "gitlab":
        return [
            f"{i['description']} at {i['location']['path']}"
            for i in json.loads(out)
            if i["check_name"] == "left-out-kinds"
        ]
    if fmt == "text":
        return [out.splitlines()[-1]] if "kinds left out by" in out.splitlines()[-1] else []
    return [line for line in out.splitlines() if "kinds left out by" in line]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("case", NARROWING.values(), ids=NARROWING.keys())
def test_kinds_the_projects_own_config_leaves_out_are_shown_in_every_format(
    tmp_path: Path, fmt: str, case: tuple[str, str]
) -> None:
    """Item 7: the pull request's pyproject.toml said `ignore = ["ALL"]` (or left the break's
    kind out another way) and every report read "no drift found", with no word of it. Each
    format now says which kinds were left out, by which setting, and that it was the
    project's config (pyproject.toml), not the command line."""
    table, setting = case
    project = _configured(tmp_path, table)
    result = invoke(
        str(project), *acme.folder_args(tmp_path), "--format", fmt,
        "--cache-dir", str(tmp_path / "cache"),
    )  # fmt: skip
    assert result.exit_code == 0, result.output  # the config may narrow the gate: visibly
    said = _said(fmt, result.stdout)
    assert len(said) == 1, result.stdout
    assert "pyproject.toml" in said[0] and setting in said[0]
    assert "command" not in said[0]
    if fmt in ("json", "sarif"):
        assert "unexpected-keyword" in said[0]


def test_the_command_line_that_leaves_kinds_out_is_named_as_such(tmp_path: Path) -> None:
    """Item 7: the same, set by the command line (the CI job's owner) and by the config at
    once: each says where it came from."""
    project = _configured(tmp_path, 'ignore = ["deprecated"]')
    args = [*acme.folder_args(tmp_path), "--cache-dir", str(tmp_path / "cache")]
    result = invoke(str(project), *args, "--ignore", "unexpected-keyword", "--format", "json")
    entries = json.loads(result.stdout)["left_out"]
    assert [(e["source"], e["file"], e["kinds"]) for e in entries] == [
        ("config", "pyproject.toml", ["deprecated"]),
        ("command-line", None, ["unexpected-keyword"]),
    ]
    text = invoke(str(project), *args, "--ignore", "unexpected-keyword").stdout.splitlines()[-1]
    assert text.startswith("no drift found"), text
    assert "by ignore in [tool.drift-audit] of pyproject.toml: deprecated" in text
    assert "by --ignore on the command line: unexpected-keyword" in text


def test_a_full_gate_says_nothing_was_left_out(tmp_path: Path) -> None:
    """Item 7, the near miss: no select or ignore, no note; JSON says `left_out: []`."""
    project = _configured(tmp_path, 'fail-on = "error"')
    args = [*acme.folder_args(tmp_path), "--cache-dir", str(tmp_path / "cache")]
    result = invoke(str(project), *args, "--format", "json")
    assert result.exit_code == 1
    assert json.loads(result.stdout)["left_out"] == []
    assert "left out" not in invoke(str(project), *args).stdout


@pytest.mark.parametrize(
    ("table", "option"), [("select = []", ()), ("", ("--select", "")), ("", ("--select", ","))]
)
def test_selecting_no_kind_is_a_settings_error(
    tmp_path: Path, table: str, option: tuple[str, ...]
) -> None:
    """Item 7: `select = []` reported nothing and passed; it is one error line, exit 2."""
    project = _configured(tmp_path, table)
    args = [*acme.folder_args(tmp_path), "--cache-dir", str(tmp_path / "cache"), *option]
    line = error_line(invoke(str(project), *args))
    assert "selects no kind" in line, line


# --------------------------------------------------------------------------- 8: star imports


BREAKS = {  # the line marked `# breaks` raises TypeError against acme 0.2 and runs on 0.1
    "a star import": "from acme import *\n\n\ndef go():\n    return run(1, old=5)  # breaks\n",
    "a star import over an earlier def": (
        "def run(a, old=1):\n    return a\n\n\nfrom acme import *  # noqa: E402\n\n\n"
        "def go():\n    return run(1, old=5)  # breaks\n"
    ),
    "a star import, called at import time": (
        "from acme import *\n\nRESULT = run(1, old=5)  # breaks\n\n\ndef go():\n    return RESULT\n"
    ),
    "a dict display spread": (
        'import acme\n\n\ndef go():\n    return acme.run(1, **{"old": 5})  # breaks\n'
    ),
    "a dict() spread": (
        "import acme\n\n\ndef go():\n    return acme.run(1, **dict(old=5))  # breaks\n"
    ),
    "a local bound to dict()": (  # reported where the key is written (issue 36, item 6)
        "import acme\n\n\ndef go():\n    kw = dict(old=5)  # breaks\n    return acme.run(1, **kw)\n"
    ),
    "a local bound to a display": (
        'import acme\n\n\ndef go():\n    kw = {"old": 5}  # breaks\n    kw["b"] = 2\n'
        "    return acme.run(1, **kw)\n"
    ),
    "a module-level display": (
        'import acme\n\nKW = {"old": 5}  # breaks\nRESULT = acme.run(1, **KW)\n\n\n'
        "def go():\n    return RESULT\n"
    ),
}
RUNS = {  # near misses: Python runs them against both releases; nothing is reported
    "a def after the star import shadows it": (
        "from acme import *\n\n\ndef run(a, old=1):\n    return a\n\n\n"
        "def go():\n    return run(1, old=5)\n"
    ),
    "an assignment after the star import shadows it": (
        "from acme import *\n\nrun = dict\n\n\ndef go():\n    return run(a=1, old=5)\n"
    ),
    "a builtin the provider does not export": (
        "from acme import *\n\n\ndef go():\n    return len([1, 2])\n"
    ),
    "a display whose keys bind": 'import acme\n\n\ndef go():\n    return acme.run(**{"a": 1})\n',
    "the key popped before the call": (
        'import acme\n\n\ndef go():\n    kw = {"old": 5}\n    kw.pop("old")\n'
        "    return acme.run(1, **kw)\n"
    ),
    "the key popped in the loop around the call": (
        'import acme\n\n\ndef go():\n    kw = {"old": 5}\n    for _ in range(2):\n'
        '        kw.pop("old", None)\n        acme.run(1, **kw)\n'
    ),
    "a nested function pops the key": (
        'import acme\n\n\ndef go():\n    kw = {"old": 5}\n\n    def drop():\n'
        '        kw.pop("old")\n\n    drop()\n    return acme.run(1, **kw)\n'
    ),
}


def _python(project: Path, provider: Path) -> str:
    """What the interpreter says running `widget.go()` against one acme release: "" when
    it runs, else the last line of the traceback."""
    done = subprocess.run(
        [sys.executable, "-c", "import widget; widget.go()"],
        env={"PYTHONPATH": f"{project}{os.pathsep}{provider}", "PATH": os.environ["PATH"]},
        capture_output=True, text=True, check=False, timeout=60,
    )  # fmt: skip
    return "" if done.returncode == 0 else done.stderr.strip().splitlines()[-1]


def _audited(tmp_path: Path, consumer: str) -> tuple[Path, Path, Path, list[dict[str, object]]]:
    """The consumer as widget/__init__.py against acme 0.2 (baseline 0.1): the project, the
    two provider folders, and the JSON findings."""
    project = tmp_path / "project"
    (project / "widget").mkdir(parents=True)
    (project / "widget" / "__init__.py").write_text(consumer)
    old, new = acme.provider_folders(tmp_path / "providers")
    result = invoke(
        str(project), "--against", f"acme @ {new.as_uri()}", "--baseline", f"acme @ {old.as_uri()}",
        "--cache-dir", str(tmp_path / "cache"), "--format", "json",
    )  # fmt: skip
    assert result.exit_code in (0, 1), (result.output, result.exception)
    return project, old, new, json.loads(result.stdout)["findings"]


@pytest.mark.parametrize("consumer", BREAKS.values(), ids=BREAKS.keys())
def test_star_imports_and_spread_dicts_are_bound_as_python_binds_them(
    tmp_path: Path, consumer: str
) -> None:
    """Item 8: `from acme import *` then `run(1, old=5)` was "0 call sites", exit 0, and
    `acme.run(1, **{"old": 5})` or `kw = dict(old=5); acme.run(1, **kw)` were silent. The
    interpreter raises TypeError on each against acme 0.2 (and runs it on 0.1); the audit
    reports that very line, new (for a keyword a dict is built with, the line that writes
    the key, issue 36 item 6)."""
    project, old, new, found = _audited(tmp_path, consumer)
    assert _python(project, old) == ""
    assert _python(project, new).startswith("TypeError: run() got an unexpected keyword")
    line = next(i for i, text in enumerate(consumer.splitlines(), 1) if "# breaks" in text)
    assert [(f["kind"], f["line"], f["status"], f["parameter"]) for f in found] == [
        ("unexpected-keyword", line, "new", "old")
    ]


@pytest.mark.parametrize("consumer", RUNS.values(), ids=RUNS.keys())
def test_near_misses_of_star_imports_and_spreads_stay_silent(tmp_path: Path, consumer: str) -> None:
    """Item 8, the near misses: a name shadowed after the star import, a builtin, keys that
    bind, a dict changed before the call. Python runs each against both releases, and
    nothing is reported."""
    project, old, new, found = _audited(tmp_path, consumer)
    assert (_python(project, old), _python(project, new)) == ("", "")
    assert found == []


def test_a_name_a_star_import_stops_binding_is_a_removed_symbol(tmp_path: Path) -> None:
    """Item 8: acme 0.2 leaves `helper` out of its `__all__`; `from acme import *` then
    `helper()` is a NameError there: a removed symbol. `print`, a builtin no release's
    star import binds, is no break of the provider's."""
    providers = {
        "0.1": "def run(a):\n    return a\n\n\ndef helper():\n    return 1\n",
        "0.2": '__all__ = ["run", "extra"]\n\n\ndef run(a):\n    return a\n\n\n'
        "def helper():\n    return 1\n\n\ndef extra():\n    return 2\n",
    }
    folders = {}
    for version, text in providers.items():
        (tmp_path / version / "acme").mkdir(parents=True)
        (tmp_path / version / "acme" / "__init__.py").write_text(text)
        folders[version] = tmp_path / version
    project = tmp_path / "project"
    (project / "widget").mkdir(parents=True)
    consumer = "from acme import *\n\n\ndef go():\n    print(run(1))\n    return helper()\n"
    (project / "widget" / "__init__.py").write_text(consumer)
    assert _python(project, folders["0.1"]) == ""
    assert _python(project, folders["0.2"]).startswith("NameError: name 'helper' is not defined")
    result = invoke(
        str(project), "--against", f"acme @ {folders['0.2'].as_uri()}",
        "--baseline", f"acme @ {folders['0.1'].as_uri()}",
        "--cache-dir", str(tmp_path / "cache"), "--format", "json",
    )  # fmt: skip
    found = json.loads(result.stdout)["findings"]
    assert [(f["kind"], f["symbol"], f["line"], f["status"]) for f in found] == [
        ("removed-symbol", "acme.helper", 6, "new")
    ]


def test_the_star_import_repro_counts_its_call_site(tmp_path: Path) -> None:
    """Item 8, as the review ran it: the text report names the break and counts the site."""
    project = tmp_path / "project"
    (project / "widget").mkdir(parents=True)
    (project / "widget" / "__init__.py").write_text(BREAKS["a star import"])
    result = invoke(
        str(project), *acme.folder_args(tmp_path), "--cache-dir", str(tmp_path / "cache")
    )
    assert result.exit_code == 1, result.output
    summary = result.stdout.splitlines()[-1]
    assert summary.startswith("1 new error") and "1 call site" in summary, summary
