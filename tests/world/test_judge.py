"""The judge decides as the interpreter does: fixture provider acme 0.1 / 0.2, pip-installed
into two scratch venvs (offline: wheels made here, `pip install --no-index`), and the fixture
consumer widget, whose lines are named by their `# site:` comments (fixtures/README.md)."""

from __future__ import annotations

import ast
import datetime as dt
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.trust.archives import wheel
from tests.world import verdicts
from tests.world.consumers import Sources
from tests.world.judge import ConsumerJudge, Prober, answer_pairs
from tests.world.venvs import VenvError, _newest_before, make_venv

FIXTURES = Path(__file__).parent / "fixtures"
WIDGET = FIXTURES / "widget"
SOURCE = (WIDGET / "widget" / "__init__.py").read_text(encoding="utf-8")
PATH = "widget/__init__.py"
ROOTS = ("acme",)

pytestmark = pytest.mark.skipif(shutil.which("python3.11") is None, reason="needs python3.11")


def line_of(site: str) -> int:
    for number, text in enumerate(SOURCE.splitlines(), 1):
        if text.rstrip().endswith(f"# site: {site}"):
            return number
    raise KeyError(site)


def column_of(site: str, what: str) -> int:
    """1-based column of the call (or import alias) `what` starts on the site's line."""
    line = line_of(site)
    for node in ast.walk(ast.parse(SOURCE)):
        if getattr(node, "lineno", None) != line:
            continue
        if isinstance(node, ast.Call) and ast.get_source_segment(SOURCE, node.func) == what:
            return node.col_offset + 1
        if isinstance(node, ast.alias) and node.name == what:
            return node.col_offset + 1
    raise KeyError((site, what))


def finding(site: str, kind: str, symbol: str, what: str | None = None,
            parameter: str | None = None) -> dict[str, Any]:  # fmt: skip
    column = column_of(site, what) if what else 5
    return {
        "fingerprint": f"{site}-{kind}",
        "kind": kind,
        "severity": "error",
        "status": "new",
        "message": f"{symbol} ({kind})",
        "path": PATH,
        "module_path": PATH,
        "line": line_of(site),
        "column": column,
        "symbol": symbol,
        "parameter": parameter,
    }


FINDINGS = {
    "import-legacy": finding("import-legacy", "removed-module", "acme.legacy", "acme.legacy"),
    "from-old-helper": finding("from-old-helper", "removed-symbol", "acme.old_helper",
                               "old_helper"),
    "guarded-import": finding("guarded-import", "removed-module", "acme.legacy", "legacy"),
    "type-checking": finding("type-checking", "removed-symbol", "acme.old_helper", "old_helper"),
    "fetch-retries": finding("fetch-retries", "unexpected-keyword", "acme.core.fetch",
                             "acme.fetch", "retries"),
    "connect-port": finding("connect-port", "missing-argument", "acme.core.connect",
                            "acme.connect", "port"),
    "fetch-ok": finding("fetch-ok", "unexpected-keyword", "acme.core.fetch", "fetch", "timeout"),
    "forward-verbose": finding("forward-verbose", "unexpected-keyword", "acme.core.forward",
                               "acme.forward", "verbose"),
    "hypot": finding("hypot", "too-many-positional", "acme.fast_hypot", "acme.fast_hypot"),
    "renamed-old": finding("renamed-old", "unexpected-keyword", "acme.core.renamed",
                           "acme.renamed", "old"),
    "instance-legacy": finding("instance-legacy", "removed-symbol", "acme.core.Client.legacy",
                               "client.legacy"),
    "instance-get": finding("instance-get", "unexpected-keyword", "acme.core.Client.get",
                            "client.get", "stream"),
    "instance-session": finding("instance-session", "removed-symbol",
                                "acme.core.Client().session", "client.session.close"),
    "float": finding("float", "removed-symbol", "acme.float_", "print"),
    "make-one": finding("make-one", "missing-argument", "acme.core.Client.make",
                        "acme.Client.make", "y"),
    "class-instance-legacy": finding("class-instance-legacy", "removed-symbol",
                                     "acme.core.Client.legacy", "acme.Client(path).legacy"),
    "hasattr-guarded": finding("hasattr-guarded", "removed-symbol", "acme.old_helper",
                               "acme.old_helper"),
    "extra": finding("extra", "removed-module", "acme.extra"),
}  # fmt: skip
EXPECTED = {
    "import-legacy": "confirmed",
    "from-old-helper": "confirmed",
    "guarded-import": "undecidable",  # except ImportError catches it: the fallback decides
    "type-checking": "refuted",  # never runs
    "fetch-retries": "confirmed",
    "connect-port": "confirmed",
    "fetch-ok": "refuted",
    "forward-verbose": "undecidable",  # **kwargs takes `verbose`: where it goes is unknown
    "hypot": "undecidable",  # math.hypot has no signature
    "renamed-old": "undecidable",  # the wrapper takes `old`, the function it wraps does not
    "instance-legacy": "confirmed",  # gone from the class
    "instance-get": "refuted",  # binds, the instance counted
    "instance-session": "undecidable",  # on neither class: an instance attribute
    "float": "confirmed",  # raised by the module __getattr__
    "make-one": "confirmed",  # a staticmethod: no instance added
    "class-instance-legacy": "confirmed",
    "hasattr-guarded": "undecidable",
    "extra": "undecidable",  # an unrelated dependency is missing, in both releases
}


def _venv(root: Path, version: str) -> Any:
    files = {
        p.relative_to(FIXTURES / f"acme-{version}").as_posix(): p.read_text(encoding="utf-8")
        for p in sorted((FIXTURES / f"acme-{version}").rglob("*.py"))
    }
    (root / "wheels").mkdir(parents=True, exist_ok=True)
    built = wheel(root / "wheels", "acme", version, files)
    return make_venv(root / f"acme-{version}", "3.11", ["--no-index", str(built)])


@pytest.fixture(scope="module")
def venvs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("world-venvs")
    return {"baseline": _venv(root, "0.1"), "target": _venv(root, "0.2")}


@pytest.fixture(scope="module")
def judged(venvs: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    work = tmp_path_factory.mktemp("world-work")
    sources = Sources("widget", "1.0", "folder", "", WIDGET, (PATH,))
    row = {"spec": "widget==1.0", "outcome": "regressed", "findings": list(FINDINGS.values())}
    one = ConsumerJudge(row, ROOTS, sources)
    probers = {side: Prober(v, ROOTS, work) for side, v in venvs.items()}
    return one.judge(answer_pairs(probers, one.queries()))


def _site(row: dict[str, Any]) -> str:
    text = SOURCE.splitlines()[row["line"] - 1]
    return text.rsplit("# site: ", 1)[1].strip()


@pytest.mark.parametrize("site", sorted(EXPECTED))
def test_each_finding_gets_the_verdict_the_interpreter_gives(
    judged: dict[str, Any], site: str
) -> None:
    found = {_site(f): f for f in judged["findings"]}[site]
    assert found["verdict"] == EXPECTED[site], found


def test_the_judge_reads_the_consumers_spelling_where_it_can(judged: dict[str, Any]) -> None:
    spelled = {_site(f): f["spelled"] for f in judged["findings"]}
    assert spelled["fetch-retries"] == "consumer"  # `acme.fetch`, not the tool's acme.core.fetch
    assert spelled["class-instance-legacy"] == "consumer"
    assert spelled["instance-legacy"] == "tool"  # `client` is a parameter: the tool's type


def test_reasons_say_why(judged: dict[str, Any]) -> None:
    reasons = {_site(f): f["reason"] for f in judged["findings"]}
    assert "**kwargs" in reasons["forward-verbose"]
    assert "no signature" in reasons["hypot"]
    assert "wrapper" in reasons["renamed-old"]
    assert "only an instance" in reasons["instance-session"]
    assert "acme_module_nobody_installs" in reasons["extra"]
    assert "TYPE_CHECKING" in reasons["type-checking"]
    assert "except ImportError" in reasons["guarded-import"]
    assert "hasattr" in reasons["hasattr-guarded"]


def _run(venv: Any, code: str) -> int:
    done = subprocess.run([str(venv.python), "-I", "-c", code], capture_output=True, timeout=60)
    return done.returncode


def test_every_confirmed_finding_fails_at_the_target_and_runs_at_the_baseline(
    judged: dict[str, Any], venvs: dict[str, Any]
) -> None:
    confirmed = [f for f in judged["findings"] if f["verdict"] == "confirmed"]
    assert len(confirmed) == sum(1 for v in EXPECTED.values() if v == "confirmed")
    for row in confirmed:
        assert row["snippet"], row
        assert _run(venvs["target"], row["snippet"]) != 0, row["snippet"]
        assert _run(venvs["baseline"], row["snippet"]) == 0, row["snippet"]


def test_every_refuted_finding_runs_at_the_target_unless_it_never_runs(
    judged: dict[str, Any], venvs: dict[str, Any]
) -> None:
    refuted = [f for f in judged["findings"] if f["verdict"] == "refuted"]
    never = [f for f in refuted if "TYPE_CHECKING" in f["reason"]]
    assert [_site(f) for f in never] == ["type-checking"]
    refuted = [f for f in refuted if f not in never]
    assert sorted(_site(f) for f in refuted) == ["fetch-ok", "instance-get"]
    for row in refuted:
        assert _run(venvs["target"], row["snippet"]) == 0, row["snippet"]


EXPECTED_BREAKS = {
    # site: (category, guarded, found)
    "import-legacy": ("import", False, True),
    "from-old-helper": ("import", False, True),
    "guarded-import": ("import", True, True),
    "not-caught": ("import", False, False),  # except ModuleNotFoundError misses ImportError
    "type-checking": ("import", True, True),
    "fetch-retries": ("bind", False, True),
    "connect-port": ("bind", False, True),
    "float": ("attribute", False, True),
    "make-one": ("bind", False, True),
    "class-instance-legacy": ("attribute", False, True),
    "hasattr-guarded": ("attribute", True, True),
}


def test_the_touchpoint_judge_finds_the_breaks_and_nothing_else(judged: dict[str, Any]) -> None:
    breaks = {_site(b): (b["category"], b["guarded"], b["found"]) for b in judged["breaks"]}
    assert breaks == EXPECTED_BREAKS


def test_breaks_are_real_in_the_venvs(judged: dict[str, Any], venvs: dict[str, Any]) -> None:
    for brk in judged["breaks"]:
        assert _run(venvs["target"], brk["snippet"]) != 0, brk["snippet"]
        assert _run(venvs["baseline"], brk["snippet"]) == 0, brk["snippet"]


def test_touchpoints_that_bind_through_kwargs_or_have_no_signature_are_not_breaks(
    judged: dict[str, Any],
) -> None:
    counts = judged["touchpoints"]
    assert counts["break"] == len(EXPECTED_BREAKS)
    assert counts["undecidable"] >= 3  # hypot, renamed (wrapper), acme.extra
    assert counts["total"] == sum(v for k, v in counts.items() if k != "total")


def test_a_probe_that_dies_or_hangs_costs_only_its_query(
    venvs: dict[str, Any], tmp_path: Path
) -> None:
    prober = Prober(venvs["target"], ROOTS, tmp_path, seconds=2)
    queries = [verdicts.keyed({"op": "import", "module": m})
               for m in ("acme", "acme.boom", "acme.slow", "acme.core", "acme.legacy")]  # fmt: skip
    answers = prober.answer(queries)
    got = {q["module"]: answers[q["key"]] for q in queries}
    assert got["acme"]["status"] == got["acme.core"]["status"] == "works"
    assert got["acme.legacy"]["status"] == "fails"
    assert got["acme.boom"]["status"] == "undecidable"
    assert got["acme.boom"]["step"] == "crash"
    assert got["acme.slow"]["status"] == "undecidable"
    assert got["acme.slow"]["step"] == "timeout"
    cached = Prober(venvs["target"], ROOTS, tmp_path).cache
    assert verdicts.query_key(queries[0]) in cached
    assert queries[1]["key"] not in cached  # a crash is not an answer to keep


def test_a_release_that_does_not_import_is_no_venv_for_the_judge(tmp_path: Path) -> None:
    files = {"acme/__init__.py": "import acme_module_nobody_installs\n"}
    built = wheel(tmp_path, "acme", "0.3", files)
    with pytest.raises(VenvError, match=r"does not import.*acme_module_nobody_installs"):
        make_venv(tmp_path / "venv", "3.11", ["--no-index", str(built)], imports=("acme",))
    assert not (tmp_path / "venv").exists()  # not kept: the next run tries again


def test_the_newest_release_before_a_date() -> None:
    day = dt.datetime(2023, 1, 19, tzinfo=dt.timezone.utc)
    dates = {
        "1.24.1": day - dt.timedelta(days=10),
        "1.24.2": day + dt.timedelta(days=20),
        "1.25.0rc1": day - dt.timedelta(days=1),
        "1.23.5": day - dt.timedelta(days=60),
    }
    assert str(_newest_before(dates, day)) == "1.24.1"
    assert _newest_before(dates, day - dt.timedelta(days=100)) is None


def test_an_sdists_test_packages_are_not_read_by_the_judge(tmp_path: Path) -> None:
    """What the judge reads of an sdist: its packages, not its tests by name (`tests`,
    `test_haystack`, `haystack_tests`), which its wheel does not install."""
    import tarfile

    from tests.world.consumers import extract

    project = tmp_path / "proj-1.0"
    for rel in ("haystack/__init__.py", "haystack/utils.py", "test_haystack/__init__.py",
                "test_haystack/test_x.py", "haystack_tests/__init__.py", "tests/__init__.py",
                "testing_tools/__init__.py", "contest/__init__.py", "setup.py"):  # fmt: skip
        (project / rel).parent.mkdir(parents=True, exist_ok=True)
        (project / rel).write_text("x = 1\n", encoding="utf-8")
    archive = tmp_path / "proj-1.0.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(project, arcname="proj-1.0")
    _, files = extract(archive, tmp_path / "out", "sdist")
    assert sorted({f.split("/")[0] for f in files}) == ["contest", "haystack"]
