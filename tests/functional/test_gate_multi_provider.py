"""Several providers in one run: tests/cases_multi/two-providers, through the CLI.

The consumer reaches into `acme` and `bolt`; each provider is checked against its own baseline
(given per provider, or inferred from the consumer's pins) and its own release, the consumer is
scanned once, and the findings are merged and sorted. The consumer's `# expect:` markers are
compared both ways, as tests/cases does for one provider.
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from conftest import parse_marks

from auditor.cli import cli

CASE = Path(__file__).resolve().parents[1] / "cases_multi" / "two-providers"
CONSUMER = CASE / "consumer"
VERSIONS = {"acme": ("0.1", "0.2"), "bolt": ("1.0", "2.0")}


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PIP_CONFIG_FILE", "/dev/null")
    for var in ("PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "NO_COLOR", "FORCE_COLOR"):
        monkeypatch.delenv(var, raising=False)


def ref(name: str, version: str) -> str:
    return f"{name} @ {(CASE / name / version).as_uri()}"


def run_cli(tmp_path: Path, *args: str) -> Result:
    argv = [str(CONSUMER), *args, "--cache-dir", str(tmp_path / "cache")]
    return CliRunner().invoke(cli, argv, prog_name="drift-audit")


def expected() -> Counter[tuple[str, int, str]]:
    marks = Counter[tuple[str, int, str]]()
    for path in sorted(CONSUMER.rglob("*.py")):
        rel = path.relative_to(CONSUMER).as_posix()
        marks.update((e.path, e.line, e.kind) for e in parse_marks(path, rel).expected)
    return marks


def reported(data: dict[str, Any]) -> Counter[tuple[str, int, str]]:
    return Counter((f["path"], f["line"], f["kind"]) for f in data["findings"])


def folders_args() -> list[str]:
    return [
        *("--against", ref("acme", "0.2"), "--against", ref("bolt", "2.0")),
        *("--baseline", ref("bolt", "1.0"), "--baseline", ref("acme", "0.1")),
        "--offline",
    ]


def test_two_providers_are_audited_in_one_run_and_merged(tmp_path: Path) -> None:
    result = run_cli(tmp_path, *folders_args(), "--format", "json")
    assert result.exit_code == 1, result.output
    data = json.loads(result.stdout)
    assert reported(data) == expected()
    assert data["provider"] == {
        "name": "acme",
        "baseline": "0.1",
        "targets": ["0.2"],
        "call_sites": 5,
    }
    assert data["providers"] == [
        {"name": "acme", "baseline": "0.1", "targets": ["0.2"], "call_sites": 5},
        {"name": "bolt", "baseline": "1.0", "targets": ["2.0"], "call_sites": 4},
    ]
    keys = [(f["path"], f["line"], f["column"], f["kind"]) for f in data["findings"]]
    assert keys == sorted(keys)
    assert all(f["status"] == "new" for f in data["findings"])
    columns = [(r["provider"], r["version"]) for r in data["matrix"]["releases"]]
    assert columns == [("acme", "0.2"), ("bolt", "2.0")]
    for finding, row in zip(data["findings"], data["matrix"]["rows"], strict=True):
        owner = finding["symbol"].split(".")[0]
        assert row["broken"] == ([True, None] if owner == "acme" else [None, True])


def test_text_header_names_every_provider(tmp_path: Path) -> None:
    result = run_cli(tmp_path, *folders_args())
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0] == (
        "widget 1.0 against acme 0.2 (baseline 0.1); bolt 2.0 (baseline 1.0)"
    )
    assert "drift timeline" not in result.stdout  # one release per provider: nothing to tabulate


def test_each_provider_infers_its_own_baseline_from_the_consumer_pins(tmp_path: Path) -> None:
    url = wheel_index(tmp_path / "index")
    args = ["--against", "acme==0.2", "--against", "bolt==2.0", "--index-url", url]
    result = run_cli(tmp_path, *args, "--format", "json")
    assert result.exit_code == 1, result.output
    data = json.loads(result.stdout)
    assert [(p["name"], p["baseline"]) for p in data["providers"]] == [
        ("acme", "0.1"),
        ("bolt", "1.0"),
    ]
    assert reported(data) == expected()


@pytest.mark.parametrize(
    ("baseline", "message"),
    [
        ("0.1", "--baseline 0.1 is a bare version, but several providers are audited"),
        ("zeta==1.0", "--baseline zeta==1.0 names zeta, which is not audited"),
    ],
)
def test_a_baseline_that_names_no_audited_provider_is_an_error(
    tmp_path: Path, baseline: str, message: str
) -> None:
    args = ["--against", ref("acme", "0.2"), "--against", ref("bolt", "2.0"), "--offline"]
    result = run_cli(tmp_path, *args, "--baseline", baseline)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"drift-audit: error: {message}")


def wheel_index(root: Path) -> str:
    """The fixture's provider folders as wheels on a static file:// simple index."""
    for name, versions in VERSIONS.items():
        anchors = []
        for version in versions:
            wheel = root / "files" / f"{name}-{version}-py3-none-any.whl"
            wheel.parent.mkdir(parents=True, exist_ok=True)
            build_wheel(wheel, CASE / name / version, name, version)
            digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
            anchors.append(f'<a href="../../files/{wheel.name}#sha256={digest}">{wheel.name}</a>')
        page = root / "simple" / name / "index.html"
        page.parent.mkdir(parents=True)
        page.write_text("<html><body>" + "<br/>".join(anchors) + "</body></html>", "utf-8")
    return (root / "simple").as_uri()


def build_wheel(wheel: Path, folder: Path, name: str, version: str) -> None:
    info = f"{name}-{version}.dist-info"
    with zipfile.ZipFile(wheel, "w") as zf:
        for path in sorted(folder.rglob("*.py")):
            zf.writestr(path.relative_to(folder).as_posix(), path.read_text(encoding="utf-8"))
        zf.writestr(
            f"{info}/METADATA", f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
        )
        zf.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\n")
