"""The drift timeline end to end: several releases of one provider, through the CLI.

A tiny provider `acme` at 0.1 (the baseline), 0.2 (`stop()` loses `reason`), 0.2.1 (only a
module the audit never reads changes), 0.3rc1 and 0.3 (`run()` gains a required keyword), as
folders (one `acme @ file://` direct reference per release) and as wheels on a static
file:// index (a range spec matches several releases; pre-releases only with --pre).
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from typing import TYPE_CHECKING, Any, ClassVar

import pytest
from click.testing import CliRunner, Result

from auditor import pipeline
from auditor.cli import cli
from auditor.reporters import json_report

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from pathlib import Path

CORE_01 = (
    "def run(model, retries=3):\n    return model\n\n\n"
    "def stop(job, reason=None):\n    return job\n"
)
CORE_02 = "def run(model, retries=3):\n    return model\n\n\ndef stop(job):\n    return job\n"
CORE_03 = (
    "def run(model, *, block_size, retries=3):\n    return model\n\n\n"
    "def stop(job):\n    return job\n"
)
INIT = "from acme.core import run, stop\n"
RELEASES = {
    "0.1": {"acme/__init__.py": INIT, "acme/core.py": CORE_01, "acme/unrelated.py": "X = 1\n"},
    "0.2": {"acme/__init__.py": INIT, "acme/core.py": CORE_02, "acme/unrelated.py": "X = 1\n"},
    "0.2.1": {"acme/__init__.py": INIT, "acme/core.py": CORE_02, "acme/unrelated.py": "X = 2\n"},
    "0.3rc1": {"acme/__init__.py": INIT, "acme/core.py": CORE_03},
    "0.3": {"acme/__init__.py": INIT, "acme/core.py": CORE_03},
}
CONSUMER = {
    "widget/__init__.py": "",
    "widget/jobs.py": (
        "from acme import run, stop\n\n\n"
        "def work(model):\n"
        "    stop(model, reason='done')\n"
        "    return run(model)\n"
    ),
}


@pytest.fixture
def world(
    tmp_path: Path,
    make_tree: Callable[[Path, Mapping[str, str]], Path],
    monkeypatch: pytest.MonkeyPatch,
) -> Path:
    """Provider folders under providers/<version>, the consumer under widget-project/."""
    for version, files in RELEASES.items():
        make_tree(tmp_path / "providers" / version, files)
    make_tree(tmp_path / "widget-project", CONSUMER)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PIP_CONFIG_FILE", "/dev/null")
    for var in ("PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "NO_COLOR", "FORCE_COLOR"):
        monkeypatch.delenv(var, raising=False)
    return tmp_path


def ref(world: Path, version: str) -> str:
    return f"acme @ {(world / 'providers' / version).as_uri()}"


def run_cli(world: Path, *args: str) -> Result:
    cache = str(world / "cache")
    argv = ["widget-project", *args, "--cache-dir", cache]
    return CliRunner().invoke(cli, argv, prog_name="drift-audit")


def folders(world: Path, *versions: str) -> list[str]:
    return [arg for v in versions for arg in ("--against", ref(world, v))]


def test_two_direct_references_are_a_timeline_oldest_first(world: Path) -> None:
    args = [*folders(world, "0.3", "0.2"), "--baseline", ref(world, "0.1"), "--offline"]
    result = run_cli(world, *args, "--format", "json")
    assert result.exit_code == 1, result.output
    data = json.loads(result.stdout)
    assert data["provider"] == {
        "name": "acme",
        "baseline": "0.1",
        "targets": ["0.2", "0.3"],
        "call_sites": 4,
    }
    assert data["providers"] == [data["provider"]]
    found = {(f["kind"], f["line"]): (f["broken_in"], f["first_broken"]) for f in data["findings"]}
    assert found == {
        ("unexpected-keyword", 5): (["0.2", "0.3"], "0.2"),
        ("missing-argument", 6): (["0.3"], "0.3"),
    }
    assert data["matrix"]["releases"] == [
        {"provider": "acme", "version": "0.2"},
        {"provider": "acme", "version": "0.3"},
    ]
    rows = data["matrix"]["rows"]
    assert [r["fingerprint"] for r in rows] == [f["fingerprint"] for f in data["findings"]]
    assert [r["broken"] for r in rows] == [[True, True], [False, True]]
    loaded = json_report.load_report(result.stdout)
    assert json_report.render(loaded) == result.stdout
    assert loaded.matrix == ((True, True), (False, True))


def test_text_report_shows_the_release_by_finding_table(world: Path) -> None:
    args = [*folders(world, "0.2", "0.3"), "--baseline", ref(world, "0.1"), "--offline"]
    result = run_cli(world, *args)
    assert result.exit_code == 1, result.output
    out = result.stdout
    assert out.startswith("widget-project against acme 0.2, 0.3 (baseline 0.1)\n")
    table = out.split("drift timeline: x broken, . works (acme)\n")[1].split("\n\n")[0]
    assert table.splitlines() == [
        "                                                  0.2 0.3",
        "    widget/jobs.py:5 unexpected-keyword reason      x   x",
        "    widget/jobs.py:6 missing-argument block_size    .   x",
    ]


def test_adjacent_releases_with_the_same_marks_share_a_column(world: Path) -> None:
    versions = ("0.2", "0.2.1", "0.3rc1", "0.3")
    args = [*folders(world, *versions), "--baseline", ref(world, "0.1"), "--offline"]
    out = run_cli(world, *args).stdout
    table = out.split("drift timeline: x broken, . works (acme)\n")[1].split("\n\n")[0]
    assert table.splitlines() == [
        "                                                  0.2..0.2.1 0.3rc1..0.3",
        "    widget/jobs.py:5 unexpected-keyword reason             x           x",
        "    widget/jobs.py:6 missing-argument block_size           .           x",
    ]
    data = json.loads(run_cli(world, *args, "--format", "json").stdout)
    assert [r["broken"] for r in data["matrix"]["rows"]] == [[True] * 4, [False, False, True, True]]


def test_a_single_release_has_no_table(world: Path) -> None:
    result = run_cli(world, *folders(world, "0.3"), "--baseline", ref(world, "0.1"), "--offline")
    assert result.exit_code == 1
    assert "drift timeline" not in result.stdout


# --------------------------------------------------------------------------- cheap


class CountingAPI(pipeline.MemoizedProvider):
    made: ClassVar[list[str | None]] = []

    def __init__(
        self,
        tree: Any,
        import_names: tuple[str, ...],
        version: str | None,
        memo: Any,
        absent: Any = None,
    ) -> None:
        CountingAPI.made.append(version)
        super().__init__(tree, import_names, version, memo, absent)


def test_a_release_reading_the_same_files_is_not_parsed_again_and_sites_bind_once(
    world: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    CountingAPI.made = []
    monkeypatch.setattr(pipeline, "MemoizedProvider", CountingAPI)
    bound: list[str] = []
    real_check = pipeline.check_site

    def counting_check(site: Any, resolver: Any) -> Any:
        bound.append(site.target)
        return real_check(site, resolver)

    monkeypatch.setattr(pipeline, "check_site", counting_check)
    report = pipeline.audit(
        str(world / "widget-project"),
        [ref(world, v) for v in ("0.2", "0.2.1", "0.3")],
        baseline=ref(world, "0.1"),
        cache_dir=world / "cache",
        offline=True,
    )
    # 0.2.1 changes only acme/unrelated.py, which no lookup reads: its verdicts are 0.2's
    assert CountingAPI.made == ["0.1", "0.2", "0.3"]
    assert report.provider.targets == ("0.2", "0.2.1", "0.3")
    assert [f.broken_in for f in report.findings] == [("0.2", "0.2.1", "0.3"), ("0.3",)]
    # four sites (two imports, two calls) against three parsed releases would be twelve
    # bindings; each callee has two distinct signatures among them, so eight suffice
    assert sorted(bound) == ["acme.run"] * 4 + ["acme.stop"] * 4


@pytest.mark.parametrize("every", [1, 10_000])
def test_releases_parsed_before_are_collected_before_the_next_never_after_the_last(
    world: Path, monkeypatch: pytest.MonkeyPatch, every: int
) -> None:
    """With the collector paused for the audit, the griffe modules of a release are garbage
    in cycles once its verdicts are made: a collection frees them before the next release
    is checked, once COLLECT_AFTER_MODULES modules were parsed since the last; the findings
    are the same with it as without."""
    monkeypatch.delenv("DRIFT_AUDIT_NO_GC_PAUSE", raising=False)
    monkeypatch.setattr(pipeline, "COLLECT_AFTER_MODULES", every)
    freed: list[int] = []
    real_collect = pipeline.collect_in_pause
    monkeypatch.setattr(pipeline, "collect_in_pause", lambda: freed.append(real_collect()) or 0)
    report = pipeline.audit(
        str(world / "widget-project"),
        [ref(world, v) for v in ("0.2", "0.3")],
        baseline=ref(world, "0.1"),
        cache_dir=world / f"cache-{every}",
        offline=True,
    )
    assert [f.broken_in for f in report.findings] == [("0.2", "0.3"), ("0.3",)]
    if every == 1:  # three releases, each parsed: before 0.2 and before 0.3, not after 0.3
        assert len(freed) == 2
        assert all(n > 0 for n in freed)  # the collector was off: each found garbage
    else:
        assert freed == []


# --------------------------------------------------------------------------- an index


def build_index(root: Path) -> str:
    """Wheels of every release on a static file:// simple index; its URL."""
    files = root / "files"
    files.mkdir(parents=True)
    anchors = []
    for version, members in RELEASES.items():
        wheel = files / f"acme-{version}-py3-none-any.whl"
        info = f"acme-{version}.dist-info"
        with zipfile.ZipFile(wheel, "w") as zf:
            for rel, text in members.items():
                zf.writestr(rel, text)
            zf.writestr(
                f"{info}/METADATA", f"Metadata-Version: 2.1\nName: acme\nVersion: {version}\n"
            )
            zf.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\n")
        digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
        anchors.append(f'<a href="../../files/{wheel.name}#sha256={digest}">{wheel.name}</a>')
    page = root / "simple" / "acme" / "index.html"
    page.parent.mkdir(parents=True)
    page.write_text("<html><body>" + "<br/>".join(anchors) + "</body></html>", encoding="utf-8")
    return (root / "simple").as_uri()


@pytest.mark.parametrize(
    ("pre", "targets"),
    [(False, ["0.2", "0.2.1", "0.3"]), (True, ["0.2", "0.2.1", "0.3rc1", "0.3"])],
)
def test_a_range_audits_every_matching_release_pre_releases_only_with_pre(
    world: Path, pre: bool, targets: list[str]
) -> None:
    url = build_index(world / "index")
    args = ["--against", "acme>=0.2", "--baseline", "acme==0.1", "--index-url", url]
    result = run_cli(world, *args, *(["--pre"] if pre else []), "--format", "json")
    assert result.exit_code == 1, result.output
    data = json.loads(result.stdout)
    assert data["provider"]["targets"] == targets
    firsts = {f["kind"]: f["first_broken"] for f in data["findings"]}
    assert firsts == {"unexpected-keyword": "0.2", "missing-argument": "0.3rc1" if pre else "0.3"}
