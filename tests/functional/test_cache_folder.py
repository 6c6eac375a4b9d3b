"""`drift-audit cache clear|info` on the command line: the cache is safe to clear.

A cache folder drift-audit makes carries the standard CACHEDIR.TAG; `cache clear` deletes only
in a folder that carries it (or holds nothing but an older drift-audit's layout), refuses any
other folder before deleting anything (one line, exit 2), removes every part of a cache (the
lookup and call-chain memos included) through links without following them, and leaves a
valid, empty cache behind. `cache info` counts every part. The fake index is on loopback.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from click.testing import CliRunner

from auditor.cli import cache_cli
from auditor.files import CACHEDIR_SIGNATURE, CACHEDIR_TAG
from tests.trust import acme, ranged
from tests.trust.cli import error_line, invoke
from tests.trust.ranged import audit_index

if TYPE_CHECKING:
    from click.testing import Result

    from tests.trust.fakeindex import FakeIndex

REPO_ROOT = Path(__file__).resolve().parents[2]
KEY = "0123456789abcdef"

isolated = ranged.isolated  # the shared fixtures (tests/trust/ranged.py), by name
index = ranged.index


def cache_command(*args: str, env: dict[str, str] | None = None) -> Result:
    """`drift-audit cache ...` in this process, stdout and stderr apart."""
    return CliRunner().invoke(cache_cli, list(args), env=env, prog_name="drift-audit cache")


def found(result: Result) -> list[tuple[str, int]]:
    return ranged.found(result, clean_stderr=False)


def snapshot(root: Path) -> dict[str, str]:
    """Every path below `root` (links not followed) with what it is or holds."""
    seen = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_symlink():
            seen[rel] = f"-> {path.readlink()}"
        elif path.is_file():
            seen[rel] = path.read_text(errors="replace")
        else:
            seen[rel] = "folder"
    return seen


def make(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


# --------------------------------------------------------------------------- the tag


@pytest.mark.parametrize("through", ["index", "folders"])
def test_a_cache_folder_drift_audit_makes_carries_the_standard_tag(
    tmp_path: Path, index: FakeIndex, through: str
) -> None:
    """Through the index the sources code makes the folder; with folder providers only the
    lookup and call-chain memos, the kept fix proposals and the kept consumer scan are
    written, and they make it."""
    project = acme.consumer(tmp_path / "project")
    cache = tmp_path / "deep" / "cache"
    if through == "index":
        assert found(audit_index(project, index, cache)) == [acme.BREAK]
    else:
        args = [str(project), *acme.folder_args(tmp_path), "--cache-dir", str(cache)]
        assert found(invoke(*args, "--format", "json")) == [acme.BREAK]
        made = sorted(p.name for p in cache.iterdir())
        assert made == [CACHEDIR_TAG, "chains", "fixes", "resolutions", "scan"]
    first, second, *_ = (cache / CACHEDIR_TAG).read_text().splitlines()
    assert first == "Signature: 8a477f597d28d172789f06886806bc55" == CACHEDIR_SIGNATURE
    assert second.startswith("#") and "drift-audit" in second
    assert not (tmp_path / "deep" / CACHEDIR_TAG).exists()  # the cache folder only


def test_an_existing_folder_given_as_the_cache_is_not_tagged(
    tmp_path: Path, index: FakeIndex
) -> None:
    """Only a folder drift-audit makes is tagged: one the user made is not claimed."""
    cache = tmp_path / "mine"
    cache.mkdir()
    assert found(audit_index(acme.consumer(tmp_path / "project"), index, cache)) == [acme.BREAK]
    assert not (cache / CACHEDIR_TAG).exists()
    result = cache_command("clear", "--cache-dir", str(cache))  # an older cache's layout
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in cache.iterdir()) == [CACHEDIR_TAG]


# --------------------------------------------------------------------------- refusals

HOME = {
    ".bashrc": "alias ll='ls -l'\n",
    "Documents/thesis.tex": "\\begin{document}\n",
    "tmp/notes.txt": "keep me\n",
    "trees/oak.txt": "a tree\n",
}


@pytest.mark.parametrize(
    ("files", "why"),
    [
        (HOME, "no CACHEDIR.TAG, and it holds '.bashrc', which drift-audit does not make"),
        ({"pages/about.md": "# a web site\n"}, "pages/'about.md' is not a name drift-audit"),
        ({"tmp/build.log": "x"}, "tmp/'build.log' is not a name drift-audit makes there"),
        ({f"trees/{KEY}/acme/index.json": "{}", "notes.txt": "mine"}, "it holds 'notes.txt'"),
        ({CACHEDIR_TAG: f"{CACHEDIR_SIGNATURE}\n# made by another tool\n", "x": "y"}, "not drift"),
        ({CACHEDIR_TAG: "Signature: not the standard one\n# drift-audit\n"}, "is not drift-audit"),
    ],
    ids=["home", "web-pages", "tmp-of-a-build", "a-cache-plus-a-file", "other-tool", "bad-tag"],
)
def test_clear_refuses_a_folder_that_is_not_a_drift_audit_cache(
    tmp_path: Path, files: dict[str, str], why: str
) -> None:
    folder = make(tmp_path / "folder", files)
    before = snapshot(folder)
    line = error_line(cache_command("clear", "--cache-dir", str(folder)))
    assert line.startswith(f"refusing to clear {folder}: it is not a drift-audit cache ("), line
    assert why in line, line
    assert snapshot(folder) == before  # nothing deleted, nothing written


def test_clear_refuses_home_in_a_real_process(tmp_path: Path) -> None:
    """`drift-audit cache clear --cache-dir $HOME`, and $DRIFT_AUDIT_CACHE_DIR=$HOME."""
    home = make(tmp_path / "home", HOME)
    before = snapshot(home)
    env = {**os.environ, "HOME": str(home), "PIP_CONFIG_FILE": os.devnull}
    for args, extra in (
        (["--cache-dir", str(home)], {}),
        ([], {"DRIFT_AUDIT_CACHE_DIR": str(home)}),
    ):
        done = subprocess.run(
            [sys.executable, "-m", "auditor", "cache", "clear", *args],
            env={**env, **extra}, capture_output=True, text=True, cwd=REPO_ROOT, check=False,
        )  # fmt: skip
        assert done.returncode == 2, done.stderr
        errors = [ln for ln in done.stderr.splitlines() if ln.startswith("drift-audit: error:")]
        assert errors == [
            f"drift-audit: error: refusing to clear {home}: it is not a drift-audit cache "
            "(no CACHEDIR.TAG, and it holds '.bashrc', which drift-audit does not make)"
        ], done.stderr
        assert "Traceback" not in done.stderr and done.stdout == ""
    assert snapshot(home) == before


def test_clear_refuses_a_file_and_a_link_standing_for_a_cache_folder(tmp_path: Path) -> None:
    afile = make(tmp_path, {"afile": "not a folder"}) / "afile"
    assert "it is not a folder" in error_line(cache_command("clear", "--cache-dir", str(afile)))
    assert afile.read_text() == "not a folder"
    older = tmp_path / "older"
    older.mkdir()
    (tmp_path / "elsewhere").mkdir()
    (older / "trees").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    line = error_line(cache_command("clear", "--cache-dir", str(older)))
    assert "'trees' is a symbolic link, not a folder drift-audit made" in line, line
    assert (older / "trees").is_symlink()


def test_a_missing_cache_is_nothing_to_clear(tmp_path: Path) -> None:
    result = cache_command("clear", "--cache-dir", str(tmp_path / "never"))
    assert result.exit_code == 0, result.output
    assert result.stdout == f"nothing to clear: {tmp_path / 'never'} does not exist\n"
    assert not (tmp_path / "never").exists()
    info = cache_command("info", "--cache-dir", str(tmp_path / "never"))
    assert info.exit_code == 0 and "nothing cached yet" in info.stdout
    assert not (tmp_path / "never").exists()


# --------------------------------------------------------------------------- every part


def test_info_counts_every_part_and_clear_removes_every_part(
    tmp_path: Path, index: FakeIndex
) -> None:
    """Releases (extracted and by ranges), pages, members, lookup memos, call-chain memos,
    a local archive: all counted and sized by `info`, all gone after `clear`, and the folder
    is still a cache the next audit fills again."""
    project = acme.consumer(tmp_path / "project")
    cache = tmp_path / "cache"
    assert found(audit_index(project, index, cache)) == [acme.BREAK]
    (tmp_path / "local").mkdir()
    local = acme.wheels(tmp_path / "local")[0]  # a local wheel: extracted into local/
    result = invoke(
        str(project), "--against", f"acme @ {local.as_uri()}", "--baseline", "acme==0.1",
        "--index-url", index.url, "--cache-dir", str(cache), "--format", "json",
    )  # fmt: skip
    assert result.exit_code in (0, 1), result.output
    parts = {p.name for p in cache.iterdir()}
    assert {"trees", "members", "pages", "local", "resolutions", "chains"} <= parts
    total = sum(p.lstat().st_size for p in cache.rglob("*") if p.is_file())
    memos = len(list((cache / "resolutions").rglob("*.json")))
    chains = len(list((cache / "chains").glob("*.json")))
    replays = len(list((cache / "replay").glob("*.json")))
    assert memos >= 1 and chains >= 1

    info = cache_command("info", "--cache-dir", str(cache))
    assert info.exit_code == 0, info.output
    lines = info.stdout.splitlines()
    assert lines[:4] == [
        f"cache: {cache}",
        f"size: {total / (1 << 20):.1f} MiB",
        "index pages: 1, local archives: 1",
        f"lookup memos: {memos}, call-chain memos: {chains}, runs kept for a replay: {replays}",
    ]
    assert [ln.split(":")[0] for ln in lines[4:]] == ["  acme 0.1", "  acme 0.2"]
    assert all("members read by ranges" in ln for ln in lines[4:]), lines
    from auditor.sources.cachedir import cache_usage

    assert cache_usage(cache).size == total  # to the byte, memos and the tag included

    cleared = cache_command("clear", "--cache-dir", str(cache))
    assert cleared.exit_code == 0, cleared.output
    assert cleared.stdout == f"cleared {cache} ({total / (1 << 20):.1f} MiB freed)\n"
    assert sorted(p.name for p in cache.iterdir()) == [CACHEDIR_TAG]
    after = cache_command("info", "--cache-dir", str(cache)).stdout.splitlines()
    assert after[2:] == [
        "index pages: 0, local archives: 0",
        "lookup memos: 0, call-chain memos: 0, runs kept for a replay: 0",
    ]
    assert found(audit_index(project, index, cache)) == [acme.BREAK]  # still a valid cache
    assert (cache / "trees").is_dir() and (cache / CACHEDIR_TAG).is_file()


def test_clear_never_follows_a_link_out_of_the_cache(tmp_path: Path, index: FakeIndex) -> None:
    project = acme.consumer(tmp_path / "project")
    cache = tmp_path / "cache"
    assert found(audit_index(project, index, cache)) == [acme.BREAK]
    victim = make(tmp_path / "victim", {"keep.txt": "mine", "sub/deep.txt": "mine too"})
    before = snapshot(victim)
    for rel in ("chains", "pages/0000000000000000", "resolutions/x/acme.json", "elsewhere"):
        (cache / rel).parent.mkdir(parents=True, exist_ok=True)
        if (cache / rel).is_dir():
            subprocess.run(["rm", "-rf", str(cache / rel)], check=True)
        (cache / rel).symlink_to(victim, target_is_directory=True)
    [tree] = (cache / "trees").glob("*/acme/0.1-*")
    (tree / "link-to-victim").symlink_to(victim, target_is_directory=True)
    result = cache_command("clear", "--cache-dir", str(cache))
    assert result.exit_code == 0, result.output
    assert snapshot(victim) == before
    assert sorted(p.name for p in cache.iterdir()) == [CACHEDIR_TAG]


def test_an_older_untagged_cache_is_cleared_and_tagged(tmp_path: Path, index: FakeIndex) -> None:
    """A cache from before the tag (only drift-audit's own layout in it) is accepted."""
    project = acme.consumer(tmp_path / "project")
    cache = tmp_path / "cache"
    assert found(audit_index(project, index, cache)) == [acme.BREAK]
    (cache / CACHEDIR_TAG).unlink()
    (cache / "trees" / "acme").mkdir()  # trees/<name>/: the layout before index keys
    (cache / "members" / ("c" * 64)).mkdir(parents=True)  # members/<sha256>/: before scoping
    info = cache_command("info", "--cache-dir", str(cache))
    assert "index pages: 1" in info.stdout, info.stdout
    result = cache_command("clear", "--cache-dir", str(cache))
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"cleared {cache} (")
    assert sorted(p.name for p in cache.iterdir()) == [CACHEDIR_TAG]
    assert (cache / CACHEDIR_TAG).read_text().startswith(CACHEDIR_SIGNATURE + "\n")


def test_info_counts_nothing_in_a_folder_that_is_not_a_cache(tmp_path: Path) -> None:
    folder = make(tmp_path / "home", HOME)
    result = cache_command("info", "--cache-dir", str(folder))
    assert result.exit_code == 0, result.output
    assert result.stdout == (
        f"cache: {folder}\nnot a drift-audit cache (no CACHEDIR.TAG, and it holds '.bashrc', "
        "which drift-audit does not make): nothing counted\n"
    )
