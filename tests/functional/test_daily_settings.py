"""Issue 35, the day-to-day gate, round two: settings that stay in their project, the baseline
file a run writes and reads, notes said once, and what the output calls things.

Through the CLI, in a scratch project (tests/scratch.py: `app`, with the provider `acme` as
two local folders named in its `[tool.drift-audit]`) and, for consumers and providers from
an index, a fake index on loopback serving acme 0.1 to 0.12 and a consumer release `widget`
1.0 that pins acme==0.1. Nothing touches the real network.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest
from click.testing import CliRunner, Result

from auditor.cli import cli
from tests.scratch import ACME_01, ACME_02, CLIENT, Project, make_project
from tests.trust import archives, machine
from tests.trust.fakeindex import FakeIndex, indexes_closed_after, serving

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Mapping
    from pathlib import Path

WIDGET = "import acme\n\n\ndef work(model):\n    return acme.run(model)\n"
SETTINGS_LINE = "drift-audit: note: settings from [tool.drift-audit] of pyproject.toml"
ACME_VERSIONS = [f"0.{n}" for n in range(1, 13)]


@pytest.fixture
def index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeIndex]:
    """acme 0.1 (ACME_01) and 0.2 to 0.12 (ACME_02), and widget 1.0 pinning acme==0.1."""
    machine.isolate(monkeypatch)
    dist = tmp_path / "dist"
    dist.mkdir()
    fake = FakeIndex()
    for version in ACME_VERSIONS:
        text = ACME_01 if version == "0.1" else ACME_02
        fake.add(archives.wheel(dist, "acme", version, {"acme/__init__.py": text}))
    fake.add(
        archives.wheel(
            dist, "widget", "1.0", {"widget/__init__.py": WIDGET}, requires=["acme==0.1"]
        )
    )
    with serving(fake), indexes_closed_after(monkeypatch):
        monkeypatch.setenv("PIP_INDEX_URL", fake.url)
        yield fake


@pytest.fixture
def project(
    tmp_path: Path,
    make_tree: Callable[[Path, Mapping[str, str]], Path],
    monkeypatch: pytest.MonkeyPatch,
) -> Project:
    """`app` (scratch's CLIENT: three findings against acme 0.2), the current folder."""
    files = {"app/__init__.py": "", "app/client.py": CLIENT}
    return make_project(
        tmp_path, make_tree, monkeypatch, folder="proj", name="app", files=files, replays=False
    )


def run(cache: Path, *args: str) -> Result:
    """The CLI in this process, with the index of the environment (no --offline)."""
    argv = [*args, "--cache-dir", str(cache)]
    return CliRunner().invoke(cli, argv, prog_name="drift-audit")


def as_json(result: Result) -> dict[str, Any]:
    assert result.exit_code in (0, 1), result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def summary(result: Result) -> str:
    return result.stdout.splitlines()[-1]


# --------------------------------------------------------------------------- item 1


def test_a_release_from_the_index_is_not_governed_by_the_current_folders_settings(
    project: Project, index: FakeIndex
) -> None:
    assert project.run("--write-baseline", "base.json", "--exit-zero").exit_code == 0
    project.settings('baseline-file = "base.json"')  # the project's own recorded findings

    other = run(project.cache, "widget==1.0", "--against", "acme==0.2", "--format", "json")
    data = as_json(other)
    assert data["fixed"] == []  # none of app's recorded findings is widget's
    assert [(f["kind"], f["status"]) for f in data["findings"]] == [("missing-argument", "new")]
    assert data["provider"]["targets"] == ["0.2"] and data["provider"]["baseline"] == "0.1"
    assert other.exit_code == 1
    assert "settings from" not in other.stderr

    # without --against, the project's `against` is not borrowed: a usage error saying why
    bare = run(project.cache, "widget==1.0")
    assert bare.exit_code == 2
    assert "missing --against" in bare.stderr
    assert "the settings of pyproject.toml govern that project only" in bare.stderr
    assert "--config pyproject.toml applies them" in bare.stderr
    told = run(project.cache, "widget==1.0", "--against", "acme==0.2", "-v")
    assert "not using the settings of pyproject.toml" in told.stderr

    # named with --config, they apply, and one line says from where
    chosen = run(project.cache, "widget==1.0", "--config", "pyproject.toml", "--format", "json")
    assert chosen.stderr.splitlines().count(SETTINGS_LINE) == 1
    assert len(as_json(chosen)["fixed"]) == 3  # app's records, asked for


def test_settings_that_apply_to_a_folder_say_from_where_once(project: Project) -> None:
    result = project.run()
    assert result.exit_code == 1
    assert result.stderr.splitlines().count(SETTINGS_LINE) == 1
    assert "settings from" not in project.run("-q").stderr
    elsewhere = project.root / "sub" / "deeper"
    elsewhere.mkdir(parents=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(elsewhere)
        inside = project.run("../..")  # the project, run from another folder
    assert inside.exit_code == 1, inside.output
    shown = "drift-audit: note: settings from [tool.drift-audit] of ../../pyproject.toml"
    assert inside.stderr.splitlines() == [shown]


# --------------------------------------------------------------------------- item 10


def test_write_baseline_says_what_it_wrote_and_the_next_run_reads_the_conventional_file(
    project: Project,
) -> None:
    written = project.run("--write-baseline", ".drift-baseline.json")
    assert written.exit_code == 1  # this run still reports them
    assert (
        "drift-audit: wrote 3 findings to .drift-baseline.json; later runs accept them"
        in written.stderr.splitlines()
    )
    later = project.run()
    assert later.exit_code == 0, later.output
    assert " 3 recorded, " in summary(later)
    told = project.run("-v")
    assert "recorded findings from " in told.stderr and ".drift-baseline.json" in told.stderr

    # --config stands in for the project's settings: the file beside them is not read then
    assert project.run("--config", "pyproject.toml").exit_code == 1

    # a new break still fails, and the file is the project's: from a subfolder it is the same
    project.write("app/more.py", "import acme\n\n\ndef more(m):\n    return acme.run(m)\n")
    assert project.run().exit_code == 1
    assert project.run("app").exit_code == 1
    assert " 3 recorded, " in summary(project.run("app"))


def test_write_baseline_elsewhere_says_how_a_later_run_reads_it(project: Project) -> None:
    written = project.run("--write-baseline", "known.json", "--exit-zero")
    assert written.exit_code == 0
    assert written.stderr.splitlines()[-1] == (
        "drift-audit: wrote 3 findings to known.json; later runs accept them only with "
        "--baseline-file known.json (they read .drift-baseline.json by themselves)"
    )
    assert project.run().exit_code == 1  # not read by itself: the hint said so
    assert project.run("--baseline-file", "known.json").exit_code == 0
    project.settings('baseline-file = "known.json"')
    again = project.run("--write-baseline", "known.json", "--exit-zero")
    assert "wrote 3 findings to known.json; later runs accept them" in again.stderr
    assert "only with" not in again.stderr
    assert "wrote" not in project.run("--write-baseline", "known.json", "-q").stderr


def test_the_conventional_file_leaving_the_project_is_refused(
    project: Project, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere.json"
    project.run("--write-baseline", str(outside), "--exit-zero")
    (project.root / ".drift-baseline.json").symlink_to(outside)
    result = project.run()
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert ".drift-baseline.json" in result.stderr


def test_a_release_from_the_index_reads_no_conventional_file(
    project: Project, index: FakeIndex
) -> None:
    project.run("--write-baseline", ".drift-baseline.json", "--exit-zero")
    result = run(
        project.cache, "widget==1.0", "--against", "acme==0.2", "--write-baseline", "w.json"
    )
    assert result.exit_code == 1
    assert " 0 recorded, " in summary(result)
    assert result.stderr.splitlines()[-1] == (
        "drift-audit: wrote 1 finding to w.json; later runs accept them only with "
        "--baseline-file w.json"
    )


# --------------------------------------------------------------------------- item 11


def test_recorded_findings_and_the_baseline_release_have_different_words(
    project: Project,
) -> None:
    project.run("--write-baseline", ".drift-baseline.json", "--exit-zero")
    text = project.run("--show-baselined")
    assert text.stdout.splitlines()[0] == "app 1.0 against acme 0.2 (baseline 0.1)"
    assert "[recorded]" in text.stdout and "baselined" not in text.stdout
    assert "0 preexisting, 3 recorded, 0 suppressed" in summary(text)
    table = project.run("--statistics").stdout.splitlines()[0]
    assert table.split()[-4:] == ["new", "preexisting", "recorded", "suppressed"]
    markdown = project.run("--format", "markdown").stdout
    assert "3 recorded" in markdown and "baselined" not in markdown
    data = project.json()  # the JSON contract keeps its status value
    assert {f["status"] for f in data["findings"]} == {"baselined"}


def test_the_inferred_baseline_is_said_once_per_project_and_version(
    tmp_path: Path,
    make_tree: Callable[[Path, Mapping[str, str]], Path],
    monkeypatch: pytest.MonkeyPatch,
    index: FakeIndex,
) -> None:
    root = make_tree(tmp_path / "pinned", {"pinned/__init__.py": WIDGET})
    pyproject = '[project]\nname = "pinned"\nversion = "1.0"\ndependencies = ["acme==0.1"]\n'
    (root / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    monkeypatch.chdir(root)
    monkeypatch.setenv("DRIFT_AUDIT_NO_REPLAY", "1")
    cache = tmp_path / "cache"
    note = "drift-audit: note: baseline acme 0.1 inferred: pinned pins acme==0.1"

    first = run(cache, "--against", "acme==0.2")
    assert first.exit_code == 1, first.output
    assert note in first.stderr.splitlines()
    second = run(cache, "--against", "acme==0.2")
    assert second.exit_code == 1
    assert "inferred" not in second.stderr  # every pre-commit run after the first: silent
    assert note in run(cache, "--against", "acme==0.2", "-v").stderr.splitlines()
    assert "inferred" not in run(cache, "--against", "acme==0.3").stderr  # the same baseline

    (root / "pyproject.toml").write_text(pyproject.replace("acme==0.1", "acme==0.2"))
    moved = run(cache, "--against", "acme==0.3")
    assert "baseline acme 0.2 inferred: pinned pins acme==0.2" in moved.stderr  # a new version
    assert "inferred" not in run(cache, "--against", "acme==0.3").stderr
    assert "inferred" not in run(tmp_path / "other-cache", "--against", "acme==0.3", "-q").stderr


# --------------------------------------------------------------------------- item 12


def test_the_summary_says_which_lookups_came_from_this_run_and_which_from_earlier_ones(
    project: Project,
) -> None:
    util = "def helper(x):\n    return x\n"  # the same file in both releases
    for version in ("0.1", "0.2"):
        project.write(f".providers/acme/{version}/acme/util.py", util)
    project.write("app/tools.py", "from acme.util import helper\n\n\ndef f():\n    helper(1)\n")

    cold = project.run("--format", "concise")
    assert cold.exit_code == 1
    first = summary(cold)
    assert "provider modules parsed, " in first and " reused within this run" in first
    assert "from the cache" not in first and "earlier runs" not in first
    stats = project.json()["stats"]  # the memo is written now: every module from it
    assert stats["provider_modules_loaded"] == 0
    assert stats["provider_modules_earlier"] == stats["provider_modules_cached"] > 0
    warm = summary(project.run("--format", "concise"))
    assert " provider modules answered from earlier runs, in " in warm
    assert "parsed" not in warm and "reused" not in warm

    project.write(".providers/acme/0.2/acme/__init__.py", ACME_02 + "\n\ndef extra():\n    pass\n")
    edited = summary(project.run("--format", "concise"))  # what rests on it parsed again
    assert " provider modules parsed, " in edited and " answered from earlier runs" in edited


# --------------------------------------------------------------------------- item 13


def test_an_unpacked_wheel_is_named_and_pinned_by_its_dist_info(
    tmp_path: Path,
    make_tree: Callable[[Path, Mapping[str, str]], Path],
    monkeypatch: pytest.MonkeyPatch,
    index: FakeIndex,
) -> None:
    info = "mylib-1.0.3.dist-info"
    folder = make_tree(
        tmp_path / "mylib-1.0.3",
        {
            "mylib/__init__.py": "",
            "mylib/cli.py": "import acme\n\n\ndef main():\n    acme.run(1)\n",
            f"{info}/METADATA": archives.metadata("mylib", "1.0.3", ["acme==0.1"]),
            f"{info}/entry_points.txt": "[console_scripts]\nmylib = mylib.cli:main\n",
            f"{info}/RECORD": "",
        },
    )
    monkeypatch.chdir(tmp_path)
    result = run(tmp_path / "cache", str(folder), "--against", "acme==0.2", "--format", "json")
    data = as_json(result)
    assert data["consumer"]["name"] == "mylib" and data["consumer"]["version"] == "1.0.3"
    assert data["provider"]["baseline"] == "0.1"
    assert "baseline acme 0.1 inferred: mylib pins acme==0.1" in result.stderr
    [finding] = data["findings"]
    assert (finding["kind"], finding["status"], finding["path"]) == (
        "missing-argument",
        "new",
        "mylib/cli.py",
    )
    assert finding["reached_from"] == [["mylib.cli.main"]]

    # two dist-infos (a site-packages folder, not one release): no metadata is taken
    make_tree(folder, {"other-2.0.dist-info/METADATA": archives.metadata("other", "2.0")})
    again = as_json(
        run(tmp_path / "cache", str(folder), "--against", "acme==0.2", "--format", "json")
    )
    assert again["consumer"]["name"] != "mylib" and again["provider"]["baseline"] is None


# --------------------------------------------------------------------------- item 19


def test_an_unknown_version_lists_the_nearest_releases(project: Project, index: FakeIndex) -> None:
    result = run(project.cache, "widget==1.0", "--against", "acme==0.7.5")
    assert result.exit_code == 2
    assert result.stderr.splitlines()[0] == (
        "drift-audit: error: no release of acme matches 'acme==0.7.5'; the index has "
        "0.6, 0.7, 0.8, 0.9, 0.10 (the 5 nearest of 12)"
    )
    low = run(project.cache, "widget==1.0", "--against", "acme>=0.0.1,<0.0.9")
    assert "the index has 0.1, 0.2, 0.3, 0.4, 0.5 (the 5 nearest of 12)" in low.stderr
    high = run(project.cache, "widget==1.0", "--against", "acme==2.0")
    assert "the index has 0.8, 0.9, 0.10, 0.11, 0.12 (the 5 nearest of 12)" in high.stderr
