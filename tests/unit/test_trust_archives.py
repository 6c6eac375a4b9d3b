"""Hostile and broken archives: each is a clear error or a skipped member with a warning, and
nothing lands outside the cache.

Every archive is built here (tests/trust/archives.py). Local ones are audited through the CLI
as direct references (`acme @ file:///.../acme-1.0-py3-none-any.whl`); remote ones come from
the fake index on 127.0.0.1, read by byte ranges (a big wheel) or whole (a small one).
"""

from __future__ import annotations

import json
import os
import struct
import tempfile
import zipfile
from typing import TYPE_CHECKING

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from auditor.errors import ArchiveError
from auditor.sources import archive, limits
from auditor.sources.archive import extract_sources
from auditor.sources.zipdir import Member as ZipMember
from auditor.sources.zipdir import member_bytes
from tests.trust import machine
from tests.trust.archives import Member, sdist, wheel
from tests.trust.cli import error_line, files_outside, invoke
from tests.trust.fakeindex import FakeIndex, indexes_closed_after, serving

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from click.testing import Result

PROVIDER = {
    "acme/__init__.py": "from acme.core import run\n",
    "acme/core.py": "def run(x, *, fast=False):\n    return x\n",
}
CONSUMER = "from acme import run\n\nrun(1, fast=True)\nrun(1, slow=True)\n"
BIG = os.urandom(600 * 1024)  # a stored native library: makes a remote wheel read by ranges


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    machine.isolate(monkeypatch)
    scratch = tmp_path / "tmpdir"
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))


@pytest.fixture
def consumer(tmp_path: Path) -> Path:
    folder = tmp_path / "consumer" / "widget"
    folder.mkdir(parents=True)
    (folder / "__init__.py").write_text(CONSUMER, encoding="utf-8")
    return folder


@pytest.fixture
def index(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeIndex]:
    with serving(FakeIndex()) as served, indexes_closed_after(monkeypatch):
        yield served


def audit(consumer: Path, spec: str, cache: Path, *more: str) -> Result:
    return invoke(
        str(consumer), "--against", spec, "--cache-dir", str(cache), "--format", "json", *more
    )


def kinds(result: Result) -> list[tuple[str, int]]:
    assert result.exit_code in (0, 1), (result.output, result.exception)
    return [(f["kind"], f["line"]) for f in json.loads(result.stdout)["findings"]]


def local(archive_path: Path) -> str:
    return f"acme @ {archive_path.as_uri()}"


def build(
    kind: str, folder: Path, extra: list[Member], files: dict[str, str] | None = None
) -> Path:
    files = PROVIDER if files is None else files
    if kind == "wheel":
        return wheel(folder, "acme", "1.0", files, extra=extra)
    return sdist(folder, "acme", "1.0", files, extra=extra)


def member_name(kind: str, rel: str) -> str:
    """Where a member sits in the archive: sdists keep everything under acme-1.0/."""
    return rel if kind == "wheel" else f"acme-1.0/{rel}"


def warnings(result: Result) -> str:
    """What the run logged at warning level (the CLI sends the drift_audit logger to stderr)."""
    lines = result.stderr.splitlines()
    return "\n".join(line for line in lines if line.startswith("drift-audit: warning: "))


# --------------------------------------------------------------------------- member names


def unsafe_names(tmp_path: Path) -> list[str]:
    return [
        "../evil.py",
        "acme/../../evil.py",
        "acme/../../../../../../../evil.py",
        f"{tmp_path}/abs_evil.py",
        "/abs_evil.py",
        "C:/evil.py",
        "C:\\evil.py",
        "c:evil.py",
        "\\\\host\\share\\evil.py",
        "..\\..\\evil.py",
    ]


@pytest.mark.parametrize("kind", ["wheel", "sdist"])
def test_unsafe_member_names_are_skipped_with_a_warning_and_never_written(
    kind: str, tmp_path: Path, consumer: Path
) -> None:
    dist = tmp_path / "dist"
    dist.mkdir()
    names = unsafe_names(tmp_path)
    path = build(kind, dist, [Member.text(n, "EVIL = 1\n") for n in names])
    before = files_outside(tmp_path, tmp_path / "cache")
    result = audit(consumer, local(path), tmp_path / "cache")
    assert kinds(result) == [("unexpected-keyword", 4)]
    for name in names:
        assert f"skipping unsafe member {name!r}" in warnings(result)
    assert files_outside(tmp_path, tmp_path / "cache") == before
    assert not list(tmp_path.rglob("*evil*"))
    assert not list(tmp_path.parent.glob("*evil*"))


@pytest.mark.parametrize("kind", ["wheel", "sdist"])
def test_links_in_archives_are_skipped_and_nothing_is_planted_through_them(
    kind: str, tmp_path: Path, consumer: Path
) -> None:
    dist, outside = tmp_path / "dist", tmp_path / "outside"
    dist.mkdir()
    outside.mkdir()
    links = [
        Member(member_name(kind, "acme/passwd.py"), kind="symlink", link="/etc/passwd"),
        Member(member_name(kind, "acme/up.py"), kind="symlink", link="../../../outside/x.py"),
        Member(member_name(kind, "acme/sub"), kind="symlink", link=str(outside)),
        Member.text(member_name(kind, "acme/sub/planted.py"), "PLANTED = 1\n"),
    ]
    if kind == "sdist":  # hardlinks, devices and fifos exist in tar only
        links += [
            Member(member_name(kind, "acme/hard.py"), kind="hardlink", link="/etc/passwd"),
            Member(member_name(kind, "acme/fifo.py"), kind="fifo"),
        ]
    path = build(kind, dist, links)
    result = audit(consumer, local(path), tmp_path / "cache")
    assert kinds(result) == [("unexpected-keyword", 4)]
    for link in links[:2] + links[4:]:  # acme/sub is no source file: skipped silently
        assert f"skipping link member {link.name!r}" in warnings(result)
    assert list(outside.iterdir()) == []
    cached = list((tmp_path / "cache").rglob("*"))
    assert not [p for p in cached if p.is_symlink()]
    planted = [p for p in cached if p.name == "planted.py"]
    assert [p.parent.is_symlink() for p in planted] == [False]  # a plain folder in the cache


@pytest.mark.parametrize("kind", ["wheel", "sdist"])
def test_duplicate_members_keep_the_last_one_with_a_warning(
    kind: str, tmp_path: Path, consumer: Path
) -> None:
    dist = tmp_path / "dist"
    dist.mkdir()
    first = {
        "acme/__init__.py": PROVIDER["acme/__init__.py"],
        "acme/core.py": "def run(x, *, slow=False):\n    return x\n",
    }
    again = [Member.text(member_name(kind, "acme/core.py"), PROVIDER["acme/core.py"])]
    path = build(kind, dist, again, files=first)
    result = audit(consumer, local(path), tmp_path / "cache")
    assert kinds(result) == [("unexpected-keyword", 4)]  # the last acme/core.py was read
    assert f"duplicate member {member_name(kind, 'acme/core.py')!r}" in warnings(result)


@pytest.mark.parametrize("kind", ["wheel", "sdist"])
def test_members_that_cannot_be_laid_out_are_skipped_with_a_warning(
    kind: str, tmp_path: Path, consumer: Path
) -> None:
    dist = tmp_path / "dist"
    dist.mkdir()
    odd = [
        Member.text(member_name(kind, "acme/clash.py"), "A = 1\n"),
        Member.text(member_name(kind, "acme/clash.py/inner.py"), "B = 1\n"),
        Member.text(member_name(kind, "acme/pkg.py/inner.py"), "C = 1\n"),
        Member.text(member_name(kind, "acme/pkg.py"), "D = 1\n"),
        Member.text(member_name(kind, "acme/" + "n" * 300 + ".py"), "E = 1\n"),
    ]
    path = build(kind, dist, odd)
    result = audit(consumer, local(path), tmp_path / "cache")
    assert kinds(result) == [("unexpected-keyword", 4)]
    logged = warnings(result)
    for name in (odd[1].name, odd[3].name, odd[4].name):
        assert f"skipping member {name!r}" in logged


# --------------------------------------------------------------------------- sizes


def bomb(size: int) -> bytes:
    return b"#" * size  # deflates about 1000:1


def test_a_zip_bomb_member_is_an_archive_error(tmp_path: Path, consumer: Path) -> None:
    dist = tmp_path / "dist"
    dist.mkdir()
    path = build("wheel", dist, [Member("acme/bomb.py", bomb(16 << 20))])
    assert path.stat().st_size < 100_000
    line = error_line(audit(consumer, local(path), tmp_path / "cache"))
    assert "acme/bomb.py" in line and "compression ratio" in line, line
    assert not list((tmp_path / "cache").rglob("bomb.py"))


def test_a_tar_bomb_is_an_archive_error(tmp_path: Path, consumer: Path) -> None:
    dist = tmp_path / "dist"
    dist.mkdir()
    path = build("sdist", dist, [Member("acme-1.0/data.bin", bytes(24 << 20))])
    line = error_line(audit(consumer, local(path), tmp_path / "cache"))
    assert "acme-1.0.tar.gz" in line and "compression ratio" in line, line


def test_a_source_file_over_the_size_limit_is_skipped_with_a_warning(
    tmp_path: Path,
    consumer: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(limits, "MAX_FILE_BYTES", 64 * 1024)
    dist = tmp_path / "dist"
    dist.mkdir()
    huge = os.urandom(48 * 1024).hex().encode()  # 96 KiB, barely compressible
    for kind in ("wheel", "sdist"):
        path = build(kind, dist, [Member(member_name(kind, "acme/huge.py"), huge)])
        result = audit(consumer, local(path), tmp_path / f"cache-{kind}")
        assert kinds(result) == [("unexpected-keyword", 4)]
        assert f"skipping member {member_name(kind, 'acme/huge.py')!r}" in warnings(result)
        assert not list((tmp_path / f"cache-{kind}").rglob("huge.py"))


@pytest.mark.parametrize("kind", ["wheel", "sdist"])
def test_more_than_the_total_limit_is_an_archive_error(
    kind: str, tmp_path: Path, consumer: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(limits, "MAX_TOTAL_BYTES", 256 * 1024)
    dist = tmp_path / "dist"
    dist.mkdir()
    parts = [
        Member(member_name(kind, f"acme/part{i}.py"), os.urandom(30 * 1024).hex().encode())
        for i in range(6)
    ]
    line = error_line(audit(consumer, local(build(kind, dist, parts)), tmp_path / "cache"))
    assert "more than" in line and "uncompressed" in line, line


def lying_zip(
    path: Path, name: str, real: bytes, declared: int, stored: dict[str, bytes] | None = None
) -> None:
    """A zip whose member `name` declares `declared` bytes (local and central headers) but
    inflates to `real`: a bomb that hides from a size check. `stored`: more members, first."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for rel, data in (stored or {}).items():
            zf.writestr(rel, data, compress_type=zipfile.ZIP_STORED)
        for rel, text in PROVIDER.items():
            if rel != name:
                zf.writestr(rel, text)
        zf.writestr(name, real)
        zf.writestr("acme-1.0.dist-info/METADATA", "Name: acme\nVersion: 1.0\n")
    data = bytearray(path.read_bytes())
    encoded = name.encode()
    local_at = data.find(b"PK\x03\x04")
    while local_at >= 0:
        name_len = struct.unpack_from("<H", data, local_at + 26)[0]
        if data[local_at + 30 : local_at + 30 + name_len] == encoded:
            struct.pack_into("<I", data, local_at + 22, declared)
        local_at = data.find(b"PK\x03\x04", local_at + 4)
    central_at = data.find(b"PK\x01\x02")
    while central_at >= 0:
        name_len = struct.unpack_from("<H", data, central_at + 28)[0]
        if data[central_at + 46 : central_at + 46 + name_len] == encoded:
            struct.pack_into("<I", data, central_at + 24, declared)
        central_at = data.find(b"PK\x01\x02", central_at + 4)
    path.write_bytes(bytes(data))


def test_a_member_that_inflates_past_its_declared_size_is_an_archive_error(
    tmp_path: Path, consumer: Path
) -> None:
    path = tmp_path / "acme-1.0-py3-none-any.whl"
    lying_zip(path, "acme/liar.py", bomb(32 << 20), declared=100)
    line = error_line(audit(consumer, local(path), tmp_path / "cache"))
    assert "acme-1.0-py3-none-any.whl" in line, line


def test_inflating_a_ranged_member_stops_at_its_declared_size() -> None:
    import zlib

    packed = zlib.compressobj(9, zlib.DEFLATED, -15)
    data = packed.compress(bomb(64 << 20)) + packed.flush()
    name = b"acme/liar.py"
    header = b"PK\x03\x04" + struct.pack("<HHHHHIIIHH", 20, 0, 8, 0, 0, 0, len(data), 100, 12, 0)
    blob = header + name + data
    member = ZipMember("acme/liar.py", 0, len(blob), len(data), 100, 8, 0)
    with pytest.raises(ArchiveError, match=r"acme/liar.py"):
        member_bytes(member, blob, 0)


# --------------------------------------------------------------------------- remote


def test_a_remote_bomb_is_refused_before_any_member_is_inflated(
    tmp_path: Path, consumer: Path, index: FakeIndex
) -> None:
    extra = [Member("acme/_native.so", BIG), Member("acme/bomb.py", bomb(16 << 20))]
    index.add(wheel(tmp_path, "acme", "1.0", PROVIDER, extra=extra))
    result = invoke(
        str(consumer), "--against", "acme==1.0", "--index-url", index.url,
        "--cache-dir", str(tmp_path / "cache"),
    )  # fmt: skip
    line = error_line(result)
    assert "acme/bomb.py" in line and "compression ratio" in line, line
    assert index.count("/files/") == 1  # the tail only: nothing was fetched to inflate


def test_a_remote_member_that_lies_about_its_size_is_an_archive_error(
    tmp_path: Path, consumer: Path, index: FakeIndex
) -> None:
    path = tmp_path / "acme-1.0-py3-none-any.whl"
    lying_zip(path, "acme/core.py", bomb(32 << 20), 100, stored={"acme/_native.so": BIG})
    index.add(path)
    index.sizes = False  # no size on the page: read by ranges
    result = invoke(
        str(consumer), "--against", "acme==1.0", "--index-url", index.url,
        "--cache-dir", str(tmp_path / "cache"),
    )  # fmt: skip
    assert "acme/core.py" in error_line(result)


def test_remote_unsafe_links_and_duplicates_are_skipped_like_local_ones(
    tmp_path: Path, consumer: Path, index: FakeIndex
) -> None:
    hostile = [
        Member("acme/_native.so", BIG),
        Member.text("../evil.py", "EVIL = 1\n"),
        Member.text("C:/evil.py", "EVIL = 1\n"),
        Member("acme/link.py", kind="symlink", link="/etc/passwd"),
        Member.text("acme/core.py", "def run(x, *, fast=False):\n    return x\n"),
    ]
    first = {**PROVIDER, "acme/core.py": "def run(x, *, slow=False):\n    return x\n"}
    index.add(wheel(tmp_path, "acme", "1.0", first, extra=hostile))
    result = invoke(
        str(consumer), "--against", "acme==1.0", "--index-url", index.url,
        "--cache-dir", str(tmp_path / "cache"), "--format", "json",
    )  # fmt: skip
    assert kinds(result) == [("unexpected-keyword", 4)]
    logged = warnings(result)
    assert "skipping unsafe member '../evil.py'" in logged
    assert "skipping unsafe member 'C:/evil.py'" in logged
    assert "skipping link member 'acme/link.py'" in logged
    assert "duplicate member 'acme/core.py'" in logged
    assert not list(tmp_path.rglob("*evil*"))


# --------------------------------------------------------------------------- broken archives


@pytest.mark.parametrize("kind", ["wheel", "sdist"])
@pytest.mark.parametrize("cut", [0.5, 0.9])
def test_a_truncated_archive_is_an_archive_error(
    kind: str, cut: float, tmp_path: Path, consumer: Path
) -> None:
    dist = tmp_path / "dist"
    dist.mkdir()
    path = build(kind, dist, [Member(member_name(kind, "acme/pad.py"), os.urandom(20_000))])
    path.write_bytes(path.read_bytes()[: int(path.stat().st_size * cut)])
    line = error_line(audit(consumer, local(path), tmp_path / "cache"))
    assert path.name in line, line
    assert not (tmp_path / "cache" / "local").exists() or not any(
        (tmp_path / "cache" / "local").iterdir()
    )


def test_a_corrupt_member_is_an_archive_error(tmp_path: Path, consumer: Path) -> None:
    path = build("wheel", tmp_path, [])
    data = bytearray(path.read_bytes())
    at = data.find(b"PK\x03\x04")  # acme/__init__.py, deflated: flip a byte of its data
    data[at + 30 + len("acme/__init__.py") + 2] ^= 0xFF
    path.write_bytes(bytes(data))
    assert path.name in error_line(audit(consumer, local(path), tmp_path / "cache"))


def test_a_local_wheel_whose_record_lies_is_an_archive_error(
    tmp_path: Path, consumer: Path
) -> None:
    path = wheel(tmp_path, "acme", "1.0", PROVIDER, tamper="acme/core.py")
    line = error_line(audit(consumer, local(path), tmp_path / "cache"))
    assert "acme/core.py" in line and "RECORD" in line, line
    assert not list((tmp_path / "cache").rglob("core.py"))


def test_a_remote_wheel_whose_record_lies_is_an_archive_error(
    tmp_path: Path, consumer: Path, index: FakeIndex
) -> None:
    extra = [Member("x/_n.so", BIG)]
    index.add(wheel(tmp_path, "acme", "1.0", PROVIDER, extra=extra, tamper="acme/core.py"))
    result = invoke(
        str(consumer), "--against", "acme==1.0", "--index-url", index.url,
        "--cache-dir", str(tmp_path / "cache"),
    )  # fmt: skip
    line = error_line(result)
    assert "acme/core.py" in line and "RECORD" in line, line


def test_extract_sources_never_leaves_the_destination(tmp_path: Path) -> None:
    """The extraction step alone, with every unsafe shape at once, into a fresh folder."""
    names = unsafe_names(tmp_path)
    members = [Member.text(n, "EVIL = 1\n") for n in names]
    members += [Member("acme-1.0/acme/l.py", kind="symlink", link="/etc/passwd")]
    for kind in ("wheel", "sdist"):
        dist = tmp_path / f"dist-{kind}"
        dist.mkdir()
        path = build(kind, dist, members)
        dest = tmp_path / f"dest-{kind}"
        dest.mkdir()
        layout = extract_sources(path, path.name, dest, project="acme")
        assert layout.import_names == ("acme",)
        written = sorted(p.relative_to(dest).as_posix() for p in dest.rglob("*.py"))
        assert written == ["acme/__init__.py", "acme/core.py"]
    assert not list(tmp_path.rglob("*evil*"))
    assert archive.is_archive_name("x.whl")


# --------------------------------------------------------------------------- mutations

ARCHIVE_EXAMPLES = 150


@pytest.fixture(scope="module")
def honest_archives(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    folder = tmp_path_factory.mktemp("honest")
    extra = [Member("acme/sub/deep.py", b"class Deep:\n    def __init__(self, a):\n        pass\n")]
    return {
        path.name: path.read_bytes()
        for path in (build("wheel", folder, extra), build("sdist", folder, extra))
    }


@settings(max_examples=ARCHIVE_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    which=st.sampled_from(["acme-1.0-py3-none-any.whl", "acme-1.0.tar.gz"]),
    flips=st.lists(st.tuples(st.floats(0, 1, exclude_max=True), st.integers(1, 255)), max_size=4),
    cut=st.one_of(st.none(), st.floats(0, 1)),
)
def test_a_damaged_archive_extracts_or_is_an_archive_error(
    honest_archives: dict[str, bytes],
    tmp_path_factory: pytest.TempPathFactory,
    which: str,
    flips: list[tuple[float, int]],
    cut: float | None,
) -> None:
    data = bytearray(honest_archives[which])
    for where, mask in flips:
        data[int(where * len(data))] ^= mask
    if cut is not None:
        data = data[: int(cut * len(data))]
    folder = tmp_path_factory.mktemp("damaged")
    path = folder / which
    path.write_bytes(bytes(data))
    dest = folder / "tree"
    dest.mkdir()
    try:
        extract_sources(path, which, dest, project="acme")
    except ArchiveError as exc:
        assert exc.message
    assert all(p.resolve().is_relative_to(folder.resolve()) for p in folder.rglob("*"))
