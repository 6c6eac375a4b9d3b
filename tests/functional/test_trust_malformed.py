"""Trust, round two: malformed input is one clear line and exit status 2 (or the right result).

Items 11 and 19 of the review: hostile archives read by ranges (zip64 fields, end records,
NUL and encrypted members), TOML and JSON that nest too deep or are not UTF-8, baseline
files of the wrong shape, and `python -m auditor` run inside a consumer that shadows modules.
"""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.trust import acme, machine
from tests.trust.archives import Member, sdist, wheel
from tests.trust.cli import error_line, invoke
from tests.trust.fakeindex import FakeIndex, indexes_closed_after, serving

if TYPE_CHECKING:
    from collections.abc import Callable

    from click.testing import Result

REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch) -> None:
    machine.isolate(monkeypatch)


def no_crash(result: Result) -> None:
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr, result.stderr


def found(result: Result) -> list[tuple[str, int]]:
    assert result.exit_code in (0, 1), (result.exit_code, result.output, result.exception)
    no_crash(result)
    return [(f["kind"], f["line"]) for f in json.loads(result.stdout)["findings"]]


# --------------------------------------------------------------------------- archives


def _central_entries(data: bytes) -> list[int]:
    """Offsets of every central directory entry."""
    found, at = [], data.find(b"PK\x01\x02")
    while at >= 0:
        found.append(at)
        at = data.find(b"PK\x01\x02", at + 4)
    return found


def zero_zip64_extra(data: bytearray) -> None:
    """The zip64 extra field of a central entry gets length 0 (its values are still there)."""
    for at in _central_entries(bytes(data)):
        name_len, extra_len = struct.unpack_from("<HH", data, at + 28)
        extra_at = at + 46 + name_len
        if extra_len and struct.unpack_from("<H", data, extra_at)[0] == 0x0001:
            struct.pack_into("<H", data, extra_at + 2, 0)
            return
    raise AssertionError("no zip64 extra field")


def short_zip64_extra(data: bytearray) -> None:
    """The zip64 extra field claims 4 bytes where 8 are needed."""
    for at in _central_entries(bytes(data)):
        name_len, extra_len = struct.unpack_from("<HH", data, at + 28)
        extra_at = at + 46 + name_len
        if extra_len and struct.unpack_from("<H", data, extra_at)[0] == 0x0001:
            struct.pack_into("<H", data, extra_at + 2, 4)
            return
    raise AssertionError("no zip64 extra field")


def truncated_eocd64(data: bytearray) -> None:
    """The zip64 locator points at a signature too close to the end for a whole record."""
    locator = data.rfind(b"PK\x06\x07")
    assert locator > 0
    eocd = data.rfind(b"PK\x05\x06")
    struct.pack_into("<I", data, eocd + 16, 0xFFFFFFFF)  # "see the zip64 record"
    fake = locator - 10
    data[fake : fake + 4] = b"PK\x06\x06"
    struct.pack_into("<Q", data, locator + 8, fake)


def encrypted(data: bytearray) -> None:
    """Set the encryption flag of acme/__init__.py, in its local and central headers."""
    name = b"acme/__init__.py"
    for signature, flag_at in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        at = data.find(signature)
        while at >= 0:
            name_at = at + (30 if signature == b"PK\x03\x04" else 46)
            if data[name_at : name_at + len(name)] == name:
                flags = struct.unpack_from("<H", data, at + flag_at)[0]
                struct.pack_into("<H", data, at + flag_at, flags | 1)
            at = data.find(signature, at + 4)


def nul_in_dist_info_name(data: bytearray) -> None:
    """A member `acme\\0x-0.2.dist-info/METADATA` (zipfile cannot write a NUL: patched in)."""
    assert b"acmeQx-0.2.dist-info" in data
    data[:] = data.replace(b"acmeQx-0.2.dist-info", b"acme\x00x-0.2.dist-info")


NUL_MEMBER = Member("acmeQx-0.2.dist-info/METADATA", b"Name: acme\nVersion: 0.2\n")
DAMAGE: dict[str, tuple[Callable[[bytearray], None], list[Member]]] = {
    "zip64-extra-of-length-0": (zero_zip64_extra, []),
    "zip64-extra-too-short": (short_zip64_extra, []),
    "truncated-eocd64": (truncated_eocd64, []),
    "encrypted-member": (encrypted, []),
    "nul-in-a-dist-info-name": (nul_in_dist_info_name, [NUL_MEMBER]),
}


def damaged_wheel(dist: Path, damage: str, monkeypatch: pytest.MonkeyPatch) -> Path:
    patch, extra = DAMAGE[damage]
    with monkeypatch.context() as m:
        m.setattr(zipfile, "ZIP64_LIMIT", 1024)  # zip64 fields for every later offset
        path = wheel(dist, "acme", "0.2", acme.NEW, extra=[acme.PADDING, *extra])
    data = bytearray(path.read_bytes())
    patch(data)
    path.write_bytes(bytes(data))
    return path


@pytest.mark.parametrize("damage", sorted(DAMAGE))
@pytest.mark.parametrize("how", ["ranges", "local"])
def test_a_malformed_wheel_is_one_line_or_read_safely(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, damage: str, how: str
) -> None:
    """Item 19: zip64 extra of length 0 or too short, a truncated EOCD64, a NUL in a
    dist-info member name, the encrypted flag (also in a local wheel)."""
    dist = tmp_path / "dist"
    dist.mkdir()
    old = wheel(dist, "acme", "0.1", acme.OLD, extra=[acme.PADDING])
    broken = damaged_wheel(dist, damage, monkeypatch)
    project = acme.consumer(tmp_path / "project")
    cache = ["--cache-dir", str(tmp_path / "cache"), "--format", "json"]
    if how == "local":
        result = invoke(
            str(project), "--against", f"acme @ {broken.as_uri()}",
            "--baseline", f"acme @ {old.as_uri()}", *cache,
        )  # fmt: skip
    else:
        fake = FakeIndex()
        fake.add(old, broken)
        with serving(fake), indexes_closed_after(monkeypatch):
            result = invoke(
                str(project), "--against", "acme==0.2", "--baseline", "acme==0.1",
                "--index-url", fake.url, *cache,
            )  # fmt: skip
    no_crash(result)
    if damage == "nul-in-a-dist-info-name":
        assert found(result) == [acme.BREAK]
        if how == "ranges":
            assert "skipping unsafe member 'acme\\x00x-0.2.dist-info/METADATA'" in result.stderr
    else:
        line = error_line(result)
        assert "zip" in line or "encrypted" in line or "archive" in line, line


# --------------------------------------------------------------------------- TOML


@pytest.mark.parametrize(
    ("pyproject", "message"),
    [
        (b'[tool.drift-audit]\nformat = "caf\xe9"\n', "is not valid TOML: not UTF-8"),
        (b"[tool.drift-audit]\nexclude = " + b"[" * 600 + b"]" * 600 + b"\n", "nested too deeply"),
        (
            b"[project]\nname = 'widget'\nx = " + b"[" * 600 + b"]" * 600 + b"\n",
            "nested too deeply",
        ),
    ],
    ids=["not-utf-8", "deep-table", "deep-project"],
)
def test_a_pyproject_that_cannot_be_read_is_one_line(
    tmp_path: Path, pyproject: bytes, message: str
) -> None:
    """Item 19: a non-UTF-8 pyproject.toml, or TOML nested 500+ deep."""
    project = acme.consumer(tmp_path / "project")
    (project / "pyproject.toml").write_bytes(pyproject)
    line = error_line(invoke(str(project), *acme.folder_args(tmp_path)))
    assert message in line, line


def test_a_provider_sdist_with_a_deep_pyproject_is_still_audited(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Item 19: a provider sdist's pyproject.toml nested 500+ deep."""
    dist = tmp_path / "dist"
    dist.mkdir()
    deep = "[project]\nname = 'acme'\nx = " + "[" * 600 + "]" * 600 + "\n"
    fake = FakeIndex()
    fake.add(
        sdist(dist, "acme", "0.1", {**acme.OLD, "pyproject.toml": deep}),
        sdist(dist, "acme", "0.2", {**acme.NEW, "pyproject.toml": deep}),
    )
    with serving(fake), indexes_closed_after(monkeypatch):
        result = invoke(
            str(acme.consumer(tmp_path / "project")), "--against", "acme==0.2",
            "--baseline", "acme==0.1", "--index-url", fake.url,
            "--cache-dir", str(tmp_path / "cache"), "--format", "json",
        )  # fmt: skip
    assert found(result) == [acme.BREAK]
    assert "nested too deeply" in result.stderr


# --------------------------------------------------------------------------- baseline files


def _report(tmp_path: Path) -> dict[str, object]:
    project = acme.consumer(tmp_path / "project")
    result = invoke(str(project), *acme.folder_args(tmp_path), "--format", "json")
    document: dict[str, object] = json.loads(result.stdout)
    return document


@pytest.mark.parametrize(
    "requests", ["abc", None, 1e400, -1.5, [1]], ids=["text", "null", "huge", "float", "list"]
)
def test_a_baseline_with_odd_stats_is_one_line(tmp_path: Path, requests: object) -> None:
    """Item 19: `stats.requests` = "abc"/null/1e400 in a baseline."""
    document = _report(tmp_path)
    stats = document["stats"]
    assert isinstance(stats, dict)
    stats["requests"] = requests
    baseline = tmp_path / "baseline.json"
    baseline.write_text(json.dumps(document).replace("Infinity", "1e400"))
    line = error_line(
        invoke(
            str(tmp_path / "project"), *acme.folder_args(tmp_path), "--baseline-file", str(baseline)
        )
    )
    assert "'requests' has the wrong type" in line, line


def test_a_baseline_nested_too_deeply_is_one_line(tmp_path: Path) -> None:
    """Item 19: a 100k-deep baseline JSON."""
    baseline = tmp_path / "deep.json"
    baseline.write_text("[" * 100_000 + "]" * 100_000)
    project = acme.consumer(tmp_path / "project")
    line = error_line(
        invoke(str(project), *acme.folder_args(tmp_path), "--baseline-file", str(baseline))
    )
    assert "nested too deeply" in line, line


# --------------------------------------------------------------------------- 11: python -m


def test_python_m_auditor_never_imports_from_the_consumer_folder(tmp_path: Path) -> None:
    """Item 11: `python -m auditor` in a consumer folder holding networkx.py ran that file."""
    project = acme.consumer(tmp_path / "project")
    marker = tmp_path / "ran"
    for module in ("networkx", "typing", "click", "hashlib", "griffe", "jinja2"):
        (project / f"{module}.py").write_text(f"open({str(marker / module)!r}, 'w').write('ran')\n")
    marker.mkdir()
    env = {**os.environ, "PIP_CONFIG_FILE": os.devnull, "PYTHONPATH": str(REPO_ROOT)}
    for fmt in ("text", "html"):  # html loads jinja2; a chain loads networkx
        done = subprocess.run(
            [sys.executable, "-m", "auditor", ".", *acme.folder_args(tmp_path),
             "--cache-dir", str(tmp_path / "cache"), "--format", fmt],
            cwd=project, env=env, capture_output=True, text=True, check=False,
        )  # fmt: skip
        assert done.returncode == 1, done.stderr
    assert list(marker.iterdir()) == []
