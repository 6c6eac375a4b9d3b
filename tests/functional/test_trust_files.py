"""Trust, round two: what the tool reads from files never makes it write, leak or crash.

Each test is one item of the adversarial review (numbered as in docs/security.md), on the
common fixture of tests/trust/acme.py: it fails on the commit before the fix and passes now.
Nothing here touches a real device or a file outside the test's own folder: the devices,
FIFOs and links are made inside tmp_path.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.trust import acme, ranged
from tests.trust.cli import error_line, invoke
from tests.trust.fakeindex import FakeIndex, indexes_closed_after, serving
from tests.trust.ranged import audit_index, found

REPO_ROOT = Path(__file__).resolve().parents[2]
FORMATS = ("text", "json", "sarif", "github", "markdown", "html")
SECRET = "hunter2-do-not-leak"

isolated = ranged.isolated  # the shared fixtures (tests/trust/ranged.py), by name
index = ranged.index


def everything_under(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*")}


def test_the_fixture_breaks_as_the_interpreter_says(tmp_path: Path) -> None:
    """The common fixture's verdict is Python's: the call binds on 0.1, TypeError on 0.2."""
    old, new = acme.provider_folders(tmp_path / "providers")
    project = acme.consumer(tmp_path / "project")
    outcomes = []
    for folder in (old, new):
        done = subprocess.run(
            [sys.executable, "-c", "import widget; widget.go()"],
            env={"PYTHONPATH": f"{project}{os.pathsep}{folder}", "PATH": os.environ["PATH"]},
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        outcomes.append((done.returncode, "TypeError" in done.stderr))
    assert outcomes == [(0, False), (1, True)]
    result = invoke(str(project), *acme.folder_args(tmp_path), "--format", "json")
    assert found(result) == [acme.BREAK]


# --------------------------------------------------------------------------- 1: cache paths


def _reseal(listing: Path, change: object) -> None:
    data = json.loads(listing.read_text())
    data.pop("sha256")
    change(data)  # type: ignore[operator]
    text = json.dumps(data, sort_keys=True, separators=(",", ":"))
    data["sha256"] = hashlib.sha256(text.encode()).hexdigest()
    listing.write_text(json.dumps(data))


def test_cache_listing_member_names_never_write_outside_the_cache(
    tmp_path: Path, index: FakeIndex
) -> None:
    """Item 1: a member named `../../../../victim` in a resealed listing.json."""
    project = acme.consumer(tmp_path / "project")
    cache = tmp_path / "box" / "cache"
    assert found(audit_index(project, index, cache)) == [acme.BREAK]
    outside = everything_under(tmp_path) - {
        p for p in everything_under(tmp_path) if p.startswith("box/cache")
    }
    for listing in (cache / "members").glob("*/*/listing.json"):

        def rename(data: dict[str, object]) -> None:
            names = data["names"]
            assert isinstance(names, list)
            for i, name in enumerate(names):
                if name.endswith("acme/__init__.py"):
                    names[i] = "../../../../victim"

        _reseal(listing, rename)
    for stored in (cache / "members").glob("*/*/files/acme/__init__.py"):
        stored.unlink()  # so the member is fetched again, and stored under its listed name
    result = audit_index(project, index, cache)
    assert found(result) == [acme.BREAK]
    after = {p for p in everything_under(tmp_path) if not p.startswith("box/cache")}
    assert after == outside, after - outside
    assert not list(tmp_path.rglob("victim"))


@pytest.mark.parametrize("target", ["outside", "dev-zero"])
def test_links_placed_in_the_cache_are_never_followed(
    tmp_path: Path, index: FakeIndex, target: str
) -> None:
    """Item 1: folders and files of the cache replaced by links to elsewhere."""
    project = acme.consumer(tmp_path / "project")
    cache = tmp_path / "cache"
    assert found(audit_index(project, index, cache)) == [acme.BREAK]
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "keep.txt").write_text("mine")
    aim = victim if target == "outside" else Path("/dev/zero")
    for folder in ("tmp", "pages", "resolutions", "chains"):
        if (cache / folder).exists():
            subprocess.run(["rm", "-rf", str(cache / folder)], check=True)
        (cache / folder).symlink_to(aim)
    for listing in (cache / "members").glob("*/*/listing.json"):
        listing.unlink()
        listing.symlink_to(aim)
    result = audit_index(project, index, cache)
    assert found(result) == [acme.BREAK]
    assert sorted(p.name for p in victim.iterdir()) == ["keep.txt"]
    assert (victim / "keep.txt").read_text() == "mine"


@pytest.mark.parametrize("field", ["dirname", "root"])
def test_a_cached_record_pointing_outside_the_cache_is_a_miss(
    tmp_path: Path, index: FakeIndex, field: str
) -> None:
    """Item 1: index.json naming a tree folder, or release.json naming an import root,
    outside the cache (there, a complete tree of acme with `old` still in place)."""
    project = acme.consumer(tmp_path / "project")
    cache = tmp_path / "cache"
    assert found(audit_index(project, index, cache)) == [acme.BREAK]
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "acme").mkdir(parents=True)
    source = acme.OLD["acme/__init__.py"]
    (elsewhere / "acme" / "__init__.py").write_text(source)
    digest = hashlib.sha256(source.encode()).hexdigest()
    (elsewhere / "manifest.json").write_text(json.dumps({"acme/__init__.py": digest}))
    record = {
        "name": "acme", "version": "0.2", "root": "", "import_names": ["acme"],
        "requires": [], "origin": "index", "extra": {},
    }  # fmt: skip
    (elsewhere / "release.json").write_text(json.dumps(record))
    for listing in (cache / "trees").rglob("index.json"):
        if field == "dirname":
            data = json.loads(listing.read_text())
            data["0.2"] = str(elsewhere)
            listing.write_text(json.dumps(data))
    for tree_record in (cache / "trees").rglob("release.json"):
        data = json.loads(tree_record.read_text())
        if field == "root" and data["version"] == "0.2":
            data["root"] = str(elsewhere)
            data["extra"].pop("members", None)
            tree_record.write_text(json.dumps(data))
    assert found(audit_index(project, index, cache)) == [acme.BREAK]


# --------------------------------------------------------------------------- 2: symlinks


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_link_leaving_the_consumer_is_skipped_and_never_shown(tmp_path: Path, fmt: str) -> None:
    """Item 2: `ln -s <a file outside> widget/env.py` (think /proc/self/environ)."""
    secret = tmp_path / "secret.txt"
    secret.write_text(f"TOKEN = '{SECRET}'\nthis is not python(\n")
    project = acme.consumer(tmp_path / "project")
    (project / "widget" / "env.py").symlink_to(secret)
    (project / "widget" / "inside.py").symlink_to(project / "widget" / "__init__.py")
    result = invoke(str(project), *acme.folder_args(tmp_path), "--format", fmt)
    assert result.exit_code == 1, result.output
    assert SECRET not in result.stdout and SECRET not in result.stderr
    assert "skipping widget/env.py: a link to outside the tree" in result.stderr
    if fmt == "json":
        paths = {f["path"] for f in json.loads(result.stdout)["findings"]}
        assert paths == {"widget/__init__.py", "widget/inside.py"}  # a link inside is source


def test_proc_self_environ_linked_into_the_consumer_leaks_nothing(tmp_path: Path) -> None:
    """Item 2, as the review did it: the audit's own environment holds a secret."""
    project = acme.consumer(tmp_path / "project")
    (project / "widget" / "env.py").symlink_to("/proc/self/environ")
    env = {**os.environ, "DRIFT_TEST_TOKEN": SECRET, "PIP_CONFIG_FILE": os.devnull}
    done = subprocess.run(
        [sys.executable, "-m", "auditor", str(project), *acme.folder_args(tmp_path),
         "--format", "json", "--cache-dir", str(tmp_path / "cache")],
        env=env, capture_output=True, text=True, cwd=REPO_ROOT, check=False,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert SECRET not in done.stdout and SECRET not in done.stderr
    assert [f["path"] for f in json.loads(done.stdout)["findings"]] == ["widget/__init__.py"]


def test_a_link_to_a_folder_outside_the_consumer_is_not_walked(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "leak.py").write_text(f"X = '{SECRET}'\nbroken(\n")
    project = acme.consumer(tmp_path / "project")
    (project / "widget" / "sub").symlink_to(outside, target_is_directory=True)
    result = invoke(str(project), *acme.folder_args(tmp_path), "--format", "json")
    assert found(result) == [acme.BREAK]
    assert SECRET not in result.stdout


# --------------------------------------------------------------------------- 3, 17: config paths


def _project_with(tmp_path: Path, table: str) -> Path:
    """The acme project whose own settings hold `table`; the provider folders it names are
    inside it, where a `file:` reference in its settings must stay (round four, item 5)."""
    old, new = acme.provider_folders(tmp_path / "project" / ".providers")
    pyproject = (
        "[tool.drift-audit]\n"
        f'against = ["acme @ {new.as_uri()}"]\nbaseline = ["acme @ {old.as_uri()}"]\n{table}'
    )
    return acme.consumer(tmp_path / "project", extra={"pyproject.toml": pyproject})


@pytest.mark.parametrize(
    "output", ["../victim/.bashrc", "{tmp}/victim/.bashrc", "link-out/.bashrc"]
)
def test_an_output_path_from_the_config_must_stay_in_the_project(
    tmp_path: Path, output: str
) -> None:
    """Item 3: `output = "../victim/.bashrc"` (and an absolute path, and a link out)."""
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / ".bashrc").write_text("alias ls='ls --color'\n")
    project = _project_with(tmp_path, f'output = "{output.format(tmp=tmp_path)}"\n')
    (project / "link-out").symlink_to(victim, target_is_directory=True)
    result = invoke(str(project))
    line = error_line(result)
    assert line.startswith("cannot write ") and "outside" in line, line
    assert (victim / ".bashrc").read_text() == "alias ls='ls --color'\n"
    assert sorted(p.name for p in victim.iterdir()) == [".bashrc"]


def test_an_output_path_from_the_config_inside_the_project_is_written(tmp_path: Path) -> None:
    project = _project_with(tmp_path, 'output = "reports/drift.txt"\n')
    (project / "reports").mkdir()
    result = invoke(str(project))
    assert result.exit_code == 1, result.output
    assert "unexpected-keyword" in (project / "reports" / "drift.txt").read_text()


def test_the_command_line_may_write_outside_the_project(tmp_path: Path) -> None:
    """The user typed it: -o goes anywhere, even where the config could not."""
    project = _project_with(tmp_path, 'output = "../elsewhere.txt"\n')
    result = invoke(str(project), "-o", str(tmp_path / "elsewhere.txt"))
    assert result.exit_code == 1, result.output
    assert (tmp_path / "elsewhere.txt").is_file()


@pytest.mark.parametrize("where", ["/dev/zero", "fifo", "../outside.json"])
def test_a_baseline_file_from_the_config_is_a_regular_file_in_the_project(
    tmp_path: Path, where: str
) -> None:
    """Item 17: `baseline-file = "/dev/zero"` (MemoryError) or a FIFO (a hang)."""
    (tmp_path / "outside.json").write_text("{}")
    project = _project_with(tmp_path, f'baseline-file = "{where}"\n')
    os.mkfifo(project / "fifo")
    line = error_line(invoke(str(project)))
    assert line.startswith("cannot read report "), line
    assert "a FIFO" in line or "outside" in line, line


@pytest.mark.parametrize("where", ["/dev/zero", "fifo"])
def test_a_baseline_file_on_the_command_line_is_a_regular_file(tmp_path: Path, where: str) -> None:
    project = _project_with(tmp_path, "")
    os.mkfifo(tmp_path / "fifo")
    path = where if where.startswith("/") else str(tmp_path / where)
    line = error_line(invoke(str(project), "--baseline-file", path))
    assert "not a regular file" in line, line


# --------------------------------------------------------------------------- 4, 23: -o


@pytest.mark.parametrize("kind", ["fifo", "symlink", "device", "folder"])
def test_output_never_replaces_what_is_not_a_regular_file(tmp_path: Path, kind: str) -> None:
    """Item 4: `-o` over a FIFO, a symlink, a device node (as /dev/null is) or a folder."""
    project = acme.consumer(tmp_path / "project")
    target = tmp_path / "target"
    keep = tmp_path / "kept.txt"
    keep.write_text("precious\n")
    if kind == "fifo":
        os.mkfifo(target)
    elif kind == "symlink":
        target.symlink_to(keep)
    elif kind == "folder":
        target.mkdir()
    else:
        if os.geteuid() != 0:
            pytest.skip("making a device node needs root")
        os.mknod(target, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # what /dev/null is
    before = target.lstat()
    result = invoke(str(project), *acme.folder_args(tmp_path), "-o", str(target))
    line = error_line(result)
    assert line.startswith(f"cannot write {target}: "), line
    after = target.lstat()
    assert (stat.S_IFMT(after.st_mode), after.st_ino) == (
        stat.S_IFMT(before.st_mode),
        before.st_ino,
    )
    assert keep.read_text() == "precious\n"
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_output_dash_is_standard_output(tmp_path: Path) -> None:
    project = acme.consumer(tmp_path / "project")
    result = invoke(str(project), *acme.folder_args(tmp_path), "-o", "-", "--format", "json")
    assert found(result) == [acme.BREAK]
    assert not (Path.cwd() / "-").exists()


def test_output_keeps_the_mode_and_the_hard_links_of_the_file_it_replaces(
    tmp_path: Path,
) -> None:
    """Item 23: `-o` over a 0600 file left 0644 and broke its hard link."""
    project = acme.consumer(tmp_path / "project")
    report = tmp_path / "report.txt"
    report.write_text("old\n")
    report.chmod(0o600)
    link = tmp_path / "link.txt"
    os.link(report, link)
    result = invoke(str(project), *acme.folder_args(tmp_path), "-o", str(report))
    assert result.exit_code == 1, result.output
    assert stat.S_IMODE(report.stat().st_mode) == 0o600
    assert report.stat().st_ino == link.stat().st_ino
    assert "unexpected-keyword" in link.read_text()
    lone = tmp_path / "lone.txt"
    lone.write_text("old\n")
    lone.chmod(0o640)
    invoke(str(project), *acme.folder_args(tmp_path), "-o", str(lone))
    assert stat.S_IMODE(lone.stat().st_mode) == 0o640
    assert "unexpected-keyword" in lone.read_text()


def test_baseline_and_output_are_written_all_or_nothing(tmp_path: Path) -> None:
    """Item 23: `--write-baseline b.json -o nodir/r.txt` wrote b.json and exited 2."""
    project = acme.consumer(tmp_path / "project")
    baseline = tmp_path / "b.json"
    result = invoke(
        str(project), *acme.folder_args(tmp_path),
        "--write-baseline", str(baseline), "-o", str(tmp_path / "nodir" / "r.txt"),
    )  # fmt: skip
    line = error_line(result)
    assert line.startswith(f"cannot write {tmp_path / 'nodir' / 'r.txt'}: "), line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["acme-0.1", "acme-0.2", "project"] or (
        not baseline.exists()
    )
    assert not baseline.exists()


def test_a_full_device_on_standard_output_is_one_error_line(tmp_path: Path) -> None:
    """Item 19: stdout on a full device."""
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full here")
    project = acme.consumer(tmp_path / "project")
    with Path("/dev/full").open("w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "auditor", str(project), *acme.folder_args(tmp_path),
             "--cache-dir", str(tmp_path / "cache")],
            stdout=full, stderr=subprocess.PIPE, text=True, cwd=REPO_ROOT, check=False,
            env={**os.environ, "PIP_CONFIG_FILE": os.devnull},
        )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines()[0] == (
        "drift-audit: error: cannot write the report to standard output: No space left on device"
    ), done.stderr
    assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr


# --------------------------------------------------------------------------- 12: keyed by index


def test_the_cache_never_serves_one_index_a_tree_from_another(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Item 12: index A and index B both have acme 0.2, with different sources."""
    project = acme.consumer(tmp_path / "project")
    cache = tmp_path / "cache"
    builds = {}
    for name, target in (("a", acme.OLD), ("b", acme.NEW)):
        dist = tmp_path / f"dist-{name}"
        dist.mkdir()
        fake = FakeIndex()
        from tests.trust.archives import wheel

        fake.add(wheel(dist, "acme", "0.1", acme.OLD), wheel(dist, "acme", "0.2", target))
        builds[name] = fake
    with (
        serving(builds["a"]) as a,
        serving(builds["b"]) as b,
        indexes_closed_after(monkeypatch),
    ):
        assert found(audit_index(project, a, cache)) == []  # A's 0.2 keeps `old`
        assert found(audit_index(project, b, cache)) == [acme.BREAK]
        assert b.count("/files/") > 0


# --------------------------------------------------------------------------- 18: memo shapes


@pytest.mark.parametrize(
    "document",
    [
        {"format": 1, "entries": {"acme.run|0": [[[["acme", "x"]], {"status": 3, "path": []}]]}},
        {"format": 1, "entries": {"acme.run|0": "not a list"}},
        {"format": 1, "entries": []},
        [1, 2, 3],
        {"widget.go": "not chains", "widget": [[1, 2]]},
    ],
)
def test_memos_of_the_wrong_shape_are_ignored_and_cleared(tmp_path: Path, document: object) -> None:
    """Item 18: valid JSON of the wrong shape in resolutions/ or chains/."""
    project = acme.consumer(tmp_path / "project")
    cache = tmp_path / "cache"
    args = [
        str(project),
        *acme.folder_args(tmp_path),
        "--cache-dir",
        str(cache),
        "--format",
        "json",
    ]
    assert found(invoke(*args)) == [acme.BREAK]
    memos = [*(cache / "resolutions").rglob("*.json"), *(cache / "chains").rglob("*.json")]
    assert memos
    for memo in memos:
        memo.write_text(json.dumps(document))
    assert found(invoke(*args)) == [acme.BREAK]
    assert found(invoke(*args)) == [acme.BREAK]
    done = subprocess.run(
        [sys.executable, "-m", "auditor", "cache", "clear", "--cache-dir", str(cache)],
        capture_output=True, text=True, cwd=REPO_ROOT, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert not (cache / "resolutions").exists() and not (cache / "chains").exists()


# --------------------------------------------------------------------------- 21: unreadable


@pytest.mark.skipif(sys.platform != "linux", reason="drops capabilities with Linux's prctl")
def test_an_unreadable_subpackage_is_an_error_not_a_pass(tmp_path: Path) -> None:
    """Item 21: a `chmod 000` subpackage holding a break was skipped silently. As root, the
    audit runs without the capabilities that read through permissions."""
    project = acme.consumer(tmp_path / "project")
    (project / "widget" / "__init__.py").write_text("")
    sub = project / "widget" / "sub"
    sub.mkdir()
    (sub / "__init__.py").write_text(acme.CONSUMER)
    args = [sys.executable, "-m", "auditor", str(project), *acme.folder_args(tmp_path),
            "--cache-dir", str(tmp_path / "cache")]  # fmt: skip
    sub.chmod(0)
    try:
        done, excluded = (
            subprocess.run(
                command,
                capture_output=True,
                text=True,
                cwd=REPO_ROOT,
                check=False,
                preexec_fn=_without_root_reads,
                env={**os.environ, "PIP_CONFIG_FILE": os.devnull},
            )
            for command in (args, [*args, "--exclude", "widget/sub"])
        )
    finally:
        sub.chmod(0o755)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stderr.startswith(
        "drift-audit: error: cannot read the folder widget/sub of the consumer: Permission denied"
    ), done.stderr
    assert excluded.returncode == 0, excluded.stderr  # left out on purpose: nothing else breaks


def _without_root_reads() -> None:
    """In the child: drop CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH from the bounding set, so
    that even as root the exec'd audit meets file permissions as anyone would."""
    if os.geteuid() != 0:
        return
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (1, 2):  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH
        if libc.prctl(24, capability, 0, 0, 0) != 0:  # PR_CAPBSET_DROP
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP) failed")


# --------------------------------------------------------------------------- 22: cache cleared


def test_a_cache_cleared_during_the_audit_never_reads_as_a_removed_module(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Item 22: `cache clear` during an audit gave a bogus `removed-module [preexisting]`."""
    from auditor.sources import cache as cache_module
    from auditor.sources.cachedir import clear_cache
    from tests.trust.archives import sdist

    dist = tmp_path / "dist"
    dist.mkdir()
    project = acme.consumer(tmp_path / "project")
    cache = tmp_path / "cache"
    fake = FakeIndex()
    fake.add(sdist(dist, "acme", "0.1", acme.OLD), sdist(dist, "acme", "0.2", acme.NEW))
    with serving(fake), indexes_closed_after(monkeypatch):
        assert found(audit_index(project, fake, cache)) == [acme.BREAK]
        real = cache_module.Cache.find_tree

        def then_cleared(self: object, *args: object) -> object:
            hit = real(self, *args)  # type: ignore[arg-type]
            clear_cache(cache)  # another process, right after the lookup
            return hit

        monkeypatch.setattr(cache_module.Cache, "find_tree", then_cleared)
        result = audit_index(project, fake, cache)
    assert "vanished from the cached tree" in error_line(result)
