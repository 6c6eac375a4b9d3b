"""auditor.files, the one door to the file system, on its own."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from auditor.files import (
    Confined,
    Output,
    Refused,
    read_file,
    read_under,
    safe_parts,
    write_outputs,
)


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "secret.txt").write_text("secret")
    return folder


@pytest.fixture
def box(tmp_path: Path) -> Confined:
    (tmp_path / "box").mkdir()
    return Confined(tmp_path / "box")


@pytest.mark.parametrize("rel", ["../x", "/etc/passwd", "a/../../x", "a\x00b", "", "C:/x"])
def test_unsafe_relative_paths_are_refused_before_any_call(rel: str) -> None:
    with pytest.raises(Refused):
        safe_parts(rel)


def test_the_cache_never_reads_through_a_link(box: Confined, outside: Path) -> None:
    (box.root / "dir").symlink_to(outside, target_is_directory=True)
    (box.root / "file").symlink_to(outside / "secret.txt")
    assert box.read("dir/secret.txt", limit=100) is None  # a linked folder is no folder
    with pytest.raises(Refused, match="symbolic link"):
        box.read("file", limit=100)
    assert box.read("missing/file", limit=100) is None


def test_the_cache_never_writes_through_a_link(box: Confined, outside: Path) -> None:
    (box.root / "dir").symlink_to(outside, target_is_directory=True)
    box.write("dir/new.txt", b"data")  # the link is replaced by a real folder
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]
    assert (box.root / "dir").is_dir() and not (box.root / "dir").is_symlink()
    assert box.read("dir/new.txt", limit=100) == b"data"
    (box.root / "final").symlink_to(outside / "secret.txt")
    box.write("final", b"mine")  # the final link itself is replaced, never followed
    assert (outside / "secret.txt").read_text() == "secret"
    assert box.read("final", limit=100) == b"mine"


def test_removing_a_link_in_the_cache_leaves_its_target(box: Confined, outside: Path) -> None:
    (box.root / "tmp").symlink_to(outside, target_is_directory=True)
    box.remove("tmp")
    assert not (box.root / "tmp").exists() and (outside / "secret.txt").exists()
    box.make_dirs("a/b")
    box.write("a/b/c", b"x")
    box.rename("a", "z/moved")
    assert box.read("z/moved/b/c", limit=10) == b"x"
    box.remove("z")
    assert box.listdir("") == []


def test_reads_are_capped_and_refuse_what_is_not_a_regular_file(tmp_path: Path) -> None:
    big = tmp_path / "big"
    big.write_bytes(b"x" * 101)
    with pytest.raises(Refused, match="over the limit of 100"):
        read_file(big, limit=100)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(Refused, match="a FIFO"):
        read_file(fifo, limit=100)  # refused at once, never waited on
    with pytest.raises(Refused, match="not a regular file"):
        read_file("/dev/zero", limit=100)


CMDLINE = Path("/proc/self/cmdline")


@pytest.mark.skipif(not CMDLINE.is_file(), reason="no /proc here")
def test_a_file_that_says_it_is_empty_is_read_whole_and_held_to_the_limit() -> None:
    """/proc's files say they hold 0 bytes: read on past what the file says, to the limit."""
    whole = CMDLINE.read_bytes()
    assert CMDLINE.stat().st_size == 0 and len(whole) > 4
    assert read_file(CMDLINE, limit=len(whole)) == whole
    with pytest.raises(Refused, match="more than 4 bytes"):
        read_file(CMDLINE, limit=4)


def test_a_file_is_read_whole_at_its_size_and_the_limit(tmp_path: Path) -> None:
    (tmp_path / "ten.py").write_bytes(b"0123456789")
    assert read_under(tmp_path, "ten.py", limit=10, links=True) == b"0123456789"
    with pytest.raises(Refused, match="over the limit of 9"):
        read_under(tmp_path, "ten.py", limit=9, links=False)


def test_consumer_links_are_read_only_inside_the_root(tmp_path: Path, outside: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (root / "real.py").write_text("x = 1\n")
    (root / "inside.py").symlink_to(root / "real.py")
    (root / "leak.py").symlink_to(outside / "secret.txt")
    assert read_under(root, "inside.py", limit=100, links=True) == b"x = 1\n"
    with pytest.raises(Refused, match="outside"):
        read_under(root, "leak.py", limit=100, links=True)
    with pytest.raises(Refused, match="outside"):
        read_file(root / "leak.py", limit=100, root=root)


def test_outputs_keep_mode_links_and_refuse_special_files(tmp_path: Path) -> None:
    kept = tmp_path / "kept"
    kept.write_text("old")
    kept.chmod(0o600)
    twin = tmp_path / "twin"
    os.link(kept, twin)
    write_outputs([Output(kept, b"new")])
    assert twin.read_bytes() == b"new" and stat.S_IMODE(kept.stat().st_mode) == 0o600
    link = tmp_path / "link"
    link.symlink_to(kept)
    with pytest.raises(Refused, match="symbolic link"):
        write_outputs([Output(tmp_path / "first", b"1"), Output(link, b"2")])
    assert not (tmp_path / "first").exists()  # all or nothing
    assert kept.read_bytes() == b"new"
    with pytest.raises(Refused, match="outside"):
        write_outputs([Output(tmp_path / "up.txt", b"x", root=tmp_path / "project")])
