"""The test-suite judge: the traceback-to-location rule and the pass/fail pairing on literal
records, and the plugin's records from real pytest runs of a small suite written here (a
provider `acme` at two releases, a consumer `widget`, its tests), offline and without venvs."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from tests.world import breaks
from tests.world.breaks import Failure, Layout, Pair
from tests.world.suite_env import freeze_diff
from tests.world.testsource import Tree, _setup_tests_require, roots_of

SITE = "/v/lib/python3.11/site-packages"
STDLIB = "/py/lib/python3.11"
PROJECT = "/run/project"
LAYOUT = Layout(
    site=(SITE,),
    stdlib=(STDLIB,),
    project=PROJECT,
    consumer_files=frozenset({"widget/__init__.py", "widget/core.py"}),
    provider_tops=frozenset({"acme"}),
)
ERROR = ["AttributeError", "Exception", "BaseException"]


def frame(where: str, line: int, name: str = "f") -> tuple[str, int, str]:
    return (where, line, name)


TEST = frame(f"{PROJECT}/tests/test_w.py", 5, "test_use")
CORE = frame(f"{SITE}/widget/core.py", 12, "use")
INIT = frame(f"{SITE}/widget/__init__.py", 3, "<module>")
ACME = frame(f"{SITE}/acme/__init__.py", 40, "__getattr__")
HELPER = frame(f"{SITE}/helperlib/api.py", 9, "call")
FROZEN = frame("<frozen importlib._bootstrap>", 1178, "_find_and_load")
FUNCTOOLS = frame(f"{STDLIB}/functools.py", 909, "wrapper")
PYTEST = frame(f"{SITE}/_pytest/python.py", 194, "pytest_pyfunc_call")


# --------------------------------------------------------------------------- location rule


def test_the_last_consumer_frame_before_the_first_provider_frame_is_the_break() -> None:
    got = breaks.locate((PYTEST, TEST, INIT, CORE, ACME, ACME), LAYOUT)
    assert got == breaks.Located("consumer", "widget/core.py", 12)


def test_standard_library_frames_between_consumer_and_provider_do_not_matter() -> None:
    got = breaks.locate((TEST, CORE, FUNCTOOLS, FROZEN, ACME), LAYOUT)
    assert got == breaks.Located("consumer", "widget/core.py", 12)


def test_a_call_that_does_not_bind_raises_in_the_consumers_own_frame() -> None:
    # no provider frame: a TypeError at the call, an AttributeError on a value, `from P import x`
    assert breaks.locate((PYTEST, TEST, CORE), LAYOUT) == breaks.Located(
        "consumer", "widget/core.py", 12
    )
    assert breaks.locate((TEST, INIT, FROZEN, FROZEN), LAYOUT).path == "widget/__init__.py"


def test_another_library_between_the_consumer_and_the_provider_is_elsewhere() -> None:
    got = breaks.locate((TEST, CORE, HELPER, ACME), LAYOUT)
    assert got.kind == "elsewhere" and "helperlib/api.py" in got.detail


def test_an_exception_raised_in_another_library_without_the_provider_is_elsewhere() -> None:
    assert breaks.locate((TEST, CORE, HELPER), LAYOUT).kind == "elsewhere"


def test_a_provider_frame_called_from_the_tests_alone_is_the_tests_own_break() -> None:
    assert breaks.locate((PYTEST, TEST, ACME), LAYOUT) == breaks.Located(
        "tests", "tests/test_w.py", 5
    )


def test_no_frame_of_the_consumer_or_its_tests_is_elsewhere() -> None:
    assert breaks.locate((PYTEST, ACME), LAYOUT).kind == "elsewhere"


def test_the_consumer_called_back_by_the_provider_counts_where_it_first_left() -> None:
    callback = frame(f"{SITE}/widget/core.py", 30, "callback")
    got = breaks.locate((TEST, CORE, ACME, callback, ACME), LAYOUT)
    assert (got.path, got.line) == ("widget/core.py", 12)


def test_a_file_of_the_package_that_the_release_does_not_ship_is_not_the_consumers() -> None:
    stray = frame(f"{SITE}/widget/_generated.py", 2, "g")
    assert breaks.locate((TEST, stray, ACME), LAYOUT).kind == "elsewhere"


def test_the_sdists_own_copy_of_the_package_is_the_consumer_when_the_tests_run_on_it() -> None:
    layout = Layout(LAYOUT.site, LAYOUT.stdlib, PROJECT, LAYOUT.consumer_files,
                    LAYOUT.provider_tops, checkout=f"{PROJECT}/src")  # fmt: skip
    copy = frame(f"{PROJECT}/src/widget/core.py", 12, "use")
    assert breaks.locate((TEST, copy, ACME), layout) == breaks.Located(
        "consumer", "widget/core.py", 12
    )


def test_the_base_interpreters_site_packages_are_not_the_standard_library() -> None:
    assert LAYOUT.role(f"{STDLIB}/site-packages/other/x.py")[0] == "other"
    assert LAYOUT.role(f"{STDLIB}/json/decoder.py")[0] == "neutral"


# --------------------------------------------------------------------------- pairing


def report(node: str, outcome: str, when: str = "call", xfail: bool = False) -> dict[str, Any]:
    return {"event": "report", "node": node, "when": when, "outcome": outcome, "xfail": xfail}


def passed(node: str) -> list[dict[str, Any]]:
    return [report(node, "passed", w) for w in breaks.PHASES]


def error(node: str, exc: str, frames: list[tuple[str, int, str]], when: str = "call",
          mro: list[str] | None = None) -> dict[str, Any]:  # fmt: skip
    return {"event": "error", "node": node, "when": when, "exc": exc,
            "mro": mro or [exc, "Exception", "BaseException"], "message": f"{exc}: gone",
            "frames": [list(f) for f in frames]}  # fmt: skip


def summary(*records: dict[str, Any] | list[dict[str, Any]]) -> dict[str, Any]:
    flat: list[dict[str, Any]] = []
    for rec in records:
        flat += rec if isinstance(rec, list) else [rec]
    return breaks.summarize(flat)


def test_a_test_that_passes_at_the_baseline_and_fails_at_the_target_is_paired() -> None:
    base = summary(passed("tests/test_w.py::test_a"), passed("tests/test_w.py::test_b"))
    target = summary(
        passed("tests/test_w.py::test_a"),
        report("tests/test_w.py::test_b", "passed", "setup"),
        report("tests/test_w.py::test_b", "failed"),
        error("tests/test_w.py::test_b", "AttributeError", [TEST, CORE, ACME]),
    )
    pairs, counts = breaks.pair(base, target)
    assert [p.test for p in pairs] == ["tests/test_w.py::test_b"]
    assert pairs[0].failure is not None and pairs[0].failure.exc == "AttributeError"
    assert counts["passed_baseline"] == 2 and counts["passed_both"] == 1


def test_failing_at_both_skipped_or_xfailed_at_the_target_is_no_pair() -> None:
    base = summary(
        report("t.py::fails", "failed"),
        passed("t.py::skips"),
        passed("t.py::xfails"),
    )
    target = summary(
        report("t.py::fails", "failed"),
        error("t.py::fails", "TypeError", [TEST, CORE]),
        report("t.py::skips", "skipped", "setup"),
        report("t.py::xfails", "skipped", xfail=True),
    )
    pairs, counts = breaks.pair(base, target)
    assert pairs == [] and counts["skipped_target"] == 2


def test_a_test_whose_module_no_longer_imports_at_the_target_fails_with_that_error() -> None:
    base = summary(passed("tests/test_w.py::test_a"), passed("tests/sub/test_x.py::test_c"))
    target = summary(
        {"event": "collect", "node": "tests/test_w.py"},
        error("tests/test_w.py", "ImportError", [TEST, INIT, FROZEN], when="collect"),
        {"event": "collect", "node": "tests/sub"},
        error("tests/sub", "NameError", [TEST, CORE], when="collect"),
    )
    pairs, _ = breaks.pair(base, target)
    got = {p.test: p.failure.exc if p.failure else None for p in pairs}
    assert got == {
        "tests/test_w.py::test_a": "ImportError",
        "tests/sub/test_x.py::test_c": "NameError",
    }


def test_a_first_conftest_that_fails_at_the_target_fails_every_test() -> None:
    base = summary(passed("tests/test_w.py::test_a"))
    target = summary(error("", "ImportError", [INIT, ACME], when="conftest"))
    pairs, _ = breaks.pair(base, target)
    assert [p.test for p in pairs] == ["tests/test_w.py::test_a"]


def test_a_test_missing_at_the_target_without_a_collection_error_is_not_run_not_failed() -> None:
    base = summary(passed("tests/test_w.py::test_a[1]"))
    pairs, counts = breaks.pair(base, summary(passed("tests/test_w.py::test_a[2]")))
    assert pairs == [] and counts["not_run_target"] == 1


def test_a_prefix_of_a_name_is_not_the_module_that_holds_it() -> None:
    base = summary(passed("tests/test_w.py::test_a"))
    target = summary(
        {"event": "collect", "node": "tests/test_w"},
        error("tests/test_w", "ImportError", [TEST], when="collect"),
    )
    assert breaks.pair(base, target)[0] == []


def test_the_phases_fold_a_failing_teardown_into_a_failed_test() -> None:
    records = [report("t::a", "passed", "setup"), report("t::a", "passed"),
               report("t::a", "failed", "teardown")]  # fmt: skip
    assert breaks.outcomes(records) == {"t::a": "failed"}


def test_only_the_four_exceptions_are_breaks_and_breaks_are_deduped_by_location() -> None:
    def fails(test: str, exc: str, mro: tuple[str, ...] = ()) -> Pair:
        classes = mro or (exc, "Exception", "BaseException")
        return Pair(test, Failure(test, "call", exc, classes, f"{exc}: x", (TEST, CORE, ACME)))

    pairs = [
        fails("t::a", "AttributeError"),
        fails("t::b", "TypeError"),
        fails("t::c", "ModuleNotFoundError", ("ModuleNotFoundError", "ImportError", "Exception")),
        fails("t::d", "AssertionError"),
        fails("t::e", "ValueError"),
        Pair("t::f", None),
    ]
    judged = breaks.judge_pairs(pairs, LAYOUT)
    (only,) = judged["consumer"]
    assert (only.path, only.line, sorted(only.tests)) == (
        "widget/core.py",
        12,
        ["t::a", "t::b", "t::c"],
    )
    assert only.exceptions == {"AttributeError", "TypeError", "ModuleNotFoundError"}
    assert judged["not_breaks"] == {
        "AssertionError": 1,
        "ValueError": 1,
        "no exception recorded": 1,
    }


def test_a_subclass_of_import_error_is_a_break() -> None:
    classes = ("PydanticImportError", "PydanticErrorMixin", "ImportError")
    failure = Failure("t", "call", "PydanticImportError", classes, "", ())
    assert failure.breaking == "ImportError"


# --------------------------------------------------------------------------- matching


SOURCE = textwrap.dedent(
    """\
    import acme


    @acme.deco(
        1,
    )
    def use(x):
        return acme.call(
            x,
            size=2,
        )
    """
)


def test_a_statements_span_covers_its_lines_and_a_decorated_defs_header() -> None:
    assert breaks.statement_span(SOURCE, 10) == (8, 11)
    assert breaks.statement_span(SOURCE, 5) == (4, 7)
    assert breaks.statement_span("def (", 3) == (3, 3)


def test_a_new_error_or_warning_on_the_breaks_statement_finds_it() -> None:
    brk = {"path": "widget/core.py", "line": 10, "span": [8, 11]}

    def finding(line: int, **more: Any) -> dict[str, Any]:
        return {"status": "new", "severity": "error", "kind": "unexpected-keyword",
                "symbol": "acme.call", "path": "src/widget/core.py",
                "module_path": "widget/core.py", "line": line, **more}  # fmt: skip

    assert breaks.found_by(brk, [finding(8)]) == ["unexpected-keyword acme.call"]
    assert breaks.found_by(brk, [finding(8, severity="warning")]) != []
    assert breaks.found_by(brk, [finding(8, status="preexisting")]) == []
    assert breaks.found_by(brk, [finding(8, severity="info")]) == []
    assert breaks.found_by(brk, [finding(12)]) == []
    assert breaks.found_by(brk, [finding(8, module_path="widget/other.py", path="x.py")]) == []


# --------------------------------------------------------------------------- sources, venvs


def test_test_roots_are_the_outermost_test_folders_or_the_files() -> None:
    from pathlib import PurePosixPath as P

    files = [P("tests/unit/test_a.py"), P("tests/test_b.py"), P("pkg/tests/test_c.py"),
             P("test_root.py"), P("pkg/core_test.py")]  # fmt: skip
    assert roots_of(files) == [P("pkg/core_test.py"), P("pkg/tests"), P("test_root.py"), P("tests")]


def test_setup_pys_tests_require_is_read_without_running_it(tmp_path: Path) -> None:
    (tmp_path / "setup.py").write_text(
        "import os\nos.system('exit 1')\nTESTS = ['pytest', 'mock>=2']\n"
        "setup(name='w', tests_require=TESTS)\n",
        encoding="utf-8",
    )
    assert _setup_tests_require(tmp_path / "setup.py") == ["pytest", "mock>=2"]


def test_test_requirements_leave_out_the_dependent_the_provider_and_pytest(tmp_path: Path) -> None:
    (tmp_path / "PKG-INFO").write_text(
        "Metadata-Version: 2.1\nName: widget\nRequires-Dist: acme>=0.1\n"
        'Requires-Dist: mock; extra == "test"\nRequires-Dist: sphinx; extra == "docs"\n',
        encoding="utf-8",
    )
    (tmp_path / "requirements-test.txt").write_text(
        "-r base.txt\npytest>=6\nhypothesis  # property tests\n./local\nwidget\n"
        "git+https://example.invalid/x.git\nacme==0.2\n",
        encoding="utf-8",
    )
    tree = Tree("widget", "1.0", "widget-1.0.tar.gz", tmp_path, tmp_path, ())
    assert tree.test_requirements("acme") == ["hypothesis", "mock"]


def test_the_dependents_own_extras_named_by_its_test_extra_are_followed(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "widget"\n[project.optional-dependencies]\n'
        'tests = ["widget[db]", "pytest"]\ndb = ["sqlthing>=1"]\n'
        'dev = ["pytest-django>=4", "black"]\n',
        encoding="utf-8",
    )
    tree = Tree("widget", "1.0", "widget-1.0.tar.gz", tmp_path, tmp_path, ())
    assert tree.test_requirements("acme") == ["pytest-django>=4", "sqlthing>=1"]


def test_the_venvs_differ_only_where_their_freezes_do() -> None:
    base = ["acme==0.1", "widget==1.0", "six==1.16.0"]
    target = ["acme==0.2", "widget==1.0", "six==1.16.0", "tzdata==2024.1"]
    assert freeze_diff(base, target) == ["acme 0.1 -> 0.2", "tzdata (new) 2024.1"]


# --------------------------------------------------------------------------- the plugin


PROVIDER = {
    "0.1": "def old():\n    return 1\n\ndef call(x):\n    return x\n",
    "0.2": "def call(x, *, strict):\n    return x\n",
}
CONSUMER = textwrap.dedent(
    """\
    import acme


    def legacy():
        return acme.old()


    def strict():
        return acme.call(1)


    def fine():
        return 3
    """
)
TESTS = textwrap.dedent(
    """\
    import widget


    def test_legacy():
        assert widget.legacy() == 1


    def test_strict():
        assert widget.strict() == 1


    def test_fine():
        assert widget.fine() == 3


    def test_always_fails():
        raise TypeError("not a break: it fails at the baseline too")
    """
)
IMPORTS = "from widget import legacy_only_at_01\n\ndef test_imported():\n    pass\n"


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")


def run_suite(tmp: Path, version: str, conftest: str = "") -> list[dict[str, Any]]:
    """The suite at one release of the provider, with the plugin: its records."""
    side = tmp / version
    site, project = side / "site", side / "project"
    consumer = CONSUMER + ("legacy_only_at_01 = 1\n" if version == "0.1" else "")
    write(site, {"acme/__init__.py": PROVIDER[version], "widget/__init__.py": consumer})
    write(project, {"pytest.ini": "[pytest]\naddopts = --not-an-option\nfilterwarnings = error\n",
                    "tests/test_w.py": TESTS, "tests/test_imports.py": IMPORTS,
                    "tests/conftest.py": conftest})  # fmt: skip
    shutil.copyfile(Path(__file__).parent / "suite_plugin.py", site / "_world_suite_plugin.py")
    record = side / "records.jsonl"
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(site), "HOME": str(side),
           "WORLD_SUITE_RECORD": str(record), "WORLD_SUITE_TEST_SECONDS": "30"}  # fmt: skip
    cmd = [sys.executable, "-m", "pytest", "-p", "_world_suite_plugin", "-p", "no:cacheprovider",
           "-o", "addopts=", "-W", "default", "-q", "--continue-on-collection-errors",
           "--rootdir", str(project), "-c", str(project / "pytest.ini"),
           str(project / "tests")]  # fmt: skip
    subprocess.run(cmd, cwd=project, env=env, capture_output=True, timeout=120, check=False)
    return [json.loads(line) for line in record.read_text(encoding="utf-8").splitlines()]


def test_the_plugins_records_give_the_breaks_at_the_consumers_lines(tmp_path: Path) -> None:
    base, target = run_suite(tmp_path, "0.1"), run_suite(tmp_path, "0.2")
    assert {r["event"] for r in base} >= {"start", "report", "end"}
    pairs, counts = breaks.pair(breaks.summarize(base), breaks.summarize(target))
    assert counts["passed_baseline"] == 4 and counts["passed_both"] == 1
    side = tmp_path / "0.2"
    layout = Layout(
        site=(str(side / "site"),), stdlib=(), project=str(side / "project"),
        consumer_files=frozenset({"widget/__init__.py"}), provider_tops=frozenset({"acme"}),
    )  # fmt: skip
    judged = breaks.judge_pairs(pairs, layout)
    got = {(b.path, b.line): (sorted(b.exceptions), b.tests) for b in judged["consumer"]}
    assert got == {
        ("widget/__init__.py", 5): (["AttributeError"], ["tests/test_w.py::test_legacy"]),
        ("widget/__init__.py", 9): (["TypeError"], ["tests/test_w.py::test_strict"]),
    }
    ((brk,),) = [judged["tests"]]
    assert (brk.path, brk.line, brk.exceptions) == ("tests/test_imports.py", 1, {"ImportError"})
    assert all(str(tmp_path) not in b.message for b in judged["consumer"] + judged["tests"])


def test_a_conftest_that_no_longer_imports_at_the_target_breaks_every_test(tmp_path: Path) -> None:
    conftest = "import widget\n\nwidget.legacy()\n"
    base = run_suite(tmp_path, "0.1", conftest)
    target = run_suite(tmp_path, "0.2", conftest)
    assert "configure" not in {r["event"] for r in target}  # pytest stopped before it
    pairs, counts = breaks.pair(breaks.summarize(base), breaks.summarize(target))
    assert counts["passed_baseline"] == counts["failed_target"] == 4
    (start,) = [r for r in target if r["event"] == "start"]
    side = tmp_path / "0.2"
    layout = Layout(
        site=(str(side / "site"),), stdlib=tuple(start["stdlib"]), project=str(side / "project"),
        consumer_files=frozenset({"widget/__init__.py"}), provider_tops=frozenset({"acme"}),
    )  # fmt: skip
    judged = breaks.judge_pairs(pairs, layout)
    assert [(b.path, b.line, len(b.tests)) for b in judged["consumer"]] == [
        ("widget/__init__.py", 5, 4)
    ]


def test_a_test_that_hangs_fails_with_the_plugins_timeout(tmp_path: Path) -> None:
    write(tmp_path, {"test_hang.py": "import time\n\ndef test_hang():\n    time.sleep(60)\n"})
    shutil.copyfile(Path(__file__).parent / "suite_plugin.py", tmp_path / "_world_suite_plugin.py")
    record = tmp_path / "records.jsonl"
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(tmp_path), "HOME": str(tmp_path),
           "WORLD_SUITE_RECORD": str(record), "WORLD_SUITE_TEST_SECONDS": "1"}  # fmt: skip
    cmd = [sys.executable, "-m", "pytest", "-p", "_world_suite_plugin", "-p", "no:cacheprovider",
           "-q", "--rootdir", str(tmp_path), "-c", "/dev/null",
           str(tmp_path / "test_hang.py")]  # fmt: skip
    subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, timeout=60, check=False)
    records = [json.loads(line) for line in record.read_text(encoding="utf-8").splitlines()]
    assert [r["exc"] for r in records if r["event"] == "error"] == ["TestTimeout"]
    assert breaks.outcomes(records) == {"test_hang.py::test_hang": "failed"}


pytestmark = pytest.mark.filterwarnings("default")


# --------------------------------------------------------------------------- scores


def upgrade(uid: str = "acme-0.2", family: str = "acme") -> Any:
    from tests.world.manifest import Upgrade

    return Upgrade(uid, family, "acme", "0.1", "0.2", ("acme",),
                   ("widget==1.0", "gadget==2.0", "bare==1.0"), "full")  # fmt: skip


SUITES = {
    "baseline": "0.1",
    "target": "0.2",
    "consumers": [
        {
            "spec": "widget==1.0",
            "status": "ran",
            "sides": {"baseline": {"seconds": 3.0, "install_seconds": 10.0,
                                   "tests": {"passed": 4}},
                      "target": {"seconds": 2.0, "install_seconds": 5.0,
                                 "tests": {"passed": 1, "failed": 3}}},
            "breaks": [
                {"path": "widget/core.py", "line": 10, "span": [8, 11],
                 "exceptions": ["TypeError"], "message": "m", "tests": ["t::a"], "test_count": 1},
                {"path": "widget/core.py", "line": 20, "span": [20, 20],
                 "exceptions": ["AttributeError"], "message": "m", "tests": ["t::b"],
                 "test_count": 2},
            ],
            "test_breaks": [{"path": "tests/test_w.py", "line": 3}],
        },
        {"spec": "gadget==2.0", "status": "no tests", "reason": "the sdist holds no test file"},
        {"spec": "not-audited==1.0", "status": "ran", "breaks": [{"path": "x.py", "line": 1,
                                                                   "span": [1, 1]}]},
    ],
}  # fmt: skip
REPORT = {
    "consumers": [
        {"spec": "widget==1.0", "outcome": "regressed", "findings": [
            {"status": "new", "severity": "error", "kind": "unexpected-keyword",
             "symbol": "acme.call", "module_path": "widget/core.py", "line": 8},
            {"status": "preexisting", "severity": "error", "kind": "removed-symbol",
             "symbol": "acme.old", "module_path": "widget/core.py", "line": 20},
        ]},
        {"spec": "gadget==2.0", "outcome": "clean", "findings": []},
    ]
}  # fmt: skip


def test_suite_breaks_are_scored_against_the_runs_new_errors_and_warnings() -> None:
    from tests.world import suitescore

    scored = suitescore.score_upgrade(upgrade(), SUITES, REPORT)
    counts = scored["counts"]
    assert (counts["dependents"], counts["ran"], counts["no_tests"]) == (2, 1, 1)
    assert (counts["breaks"], counts["found"], counts["recall"]) == (2, 1, 0.5)
    assert (counts["test_breaks"], counts["passing_at_baseline"]) == (1, 1)
    assert counts["suite_seconds"] == 5.0 and counts["install_seconds"] == 15.0
    miss = [b for b in scored["breaks"] if not b["found"]]
    assert [(b["line"], b["cause"]) for b in miss] == [(20, "reported as preexisting")]


def test_the_suite_section_puts_both_recalls_per_family_side_by_side(tmp_path: Path) -> None:
    from tests.world import score, suitescore
    from tests.world.common import write_json
    from tests.world.manifest import Manifest

    folder = tmp_path / "upgrades" / "acme-0.2"
    write_json(folder / "suites.json", SUITES)
    write_json(folder / "ecosystem.json", REPORT)
    manifest = Manifest(tmp_path / "m.toml", "3.11", (upgrade(), upgrade("acme-0.3")))
    suites = suitescore.score(manifest, tmp_path)
    assert suites["overall"]["recall"] == 0.5
    assert [u["run"] for u in suites["upgrades"]] == [True, False]
    results = {"families": [{"family": "acme", "recall": 1.0}], "suites": suites}
    text = "\n".join(suitescore.render(results, score.cell, score.code, score._table))
    assert "| acme | 2 | 1 | 1 | 1 | 0 | 2 | 1 | 0.50 | 1.00 | 1 |" in text
    assert "`widget/core.py:20`" in text and "reported as preexisting" in text
    assert "Upgrades not run: acme-0.3." in text


def test_a_suites_file_for_another_provider_pair_is_stale(tmp_path: Path) -> None:
    from tests.world import suitescore
    from tests.world.common import write_json

    folder = tmp_path / "acme-0.2"
    write_json(folder / "suites.json", {**SUITES, "target": "0.3"})
    write_json(folder / "ecosystem.json", REPORT)
    assert suitescore.suites_of(upgrade(), folder) == "stale: suites.json is for 0.1 -> 0.3"


# --------------------------------------------------------------------------- what runs


def test_a_package_that_installs_its_tests_runs_them_installed_and_its_sdist_copy_goes(
    tmp_path: Path,
) -> None:
    from tests.world.consumers import Sources
    from tests.world.suites import plan_run

    sdist, site = tmp_path / "sdist", tmp_path / "site"
    write(sdist, {"widget/__init__.py": "", "widget/tests/test_a.py": "", "gadget.py": "",
                  "tests/test_b.py": "", "docs/conf.py": ""})  # fmt: skip
    write(site, {"widget/__init__.py": "", "widget/tests/test_a.py": "", "gadget.py": ""})
    files = ("gadget.py", "widget/__init__.py", "widget/tests/test_a.py")
    sources = Sources("widget", "1.0", "wheel", "w.whl", site, files)
    tree = Tree("widget", "1.0", "widget-1.0.tar.gz", sdist, sdist, ())
    planned = plan_run(tree, sources, site, tmp_path / "run")
    run = tmp_path / "run"
    assert planned["modes"] == {"gadget": "untested", "widget": "installed"}
    assert planned["args"] == [str(run / "tests"), str(site / "widget")]
    assert not (run / "widget").exists() and not (run / "gadget.py").exists()
    assert planned["checkout"] is None


def test_tests_only_the_sdist_holds_run_on_the_sdists_copy(tmp_path: Path) -> None:
    from tests.world.consumers import Sources
    from tests.world.suites import plan_run

    sdist, site = tmp_path / "sdist", tmp_path / "site"
    write(sdist, {"src/widget/__init__.py": "", "src/widget/tests/test_a.py": ""})
    write(site, {"widget/__init__.py": ""})
    sources = Sources("widget", "1.0", "wheel", "w.whl", site, ("widget/__init__.py",))
    tree = Tree("widget", "1.0", "widget-1.0.tar.gz", sdist, sdist / "src", ())
    planned = plan_run(tree, sources, site, tmp_path / "run")
    assert planned["modes"] == {"widget": "checkout"}
    assert planned["args"] == [str(tmp_path / "run" / "src" / "widget")]
    assert planned["checkout"] == str(tmp_path / "run" / "src")
