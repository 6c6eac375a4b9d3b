"""Trust, round two: nothing the index serves sends credentials elsewhere, floods or hangs us.

Items 5-10, 19 (index URLs, timeouts, page rows) and 20 of the review, on the common fixture
(tests/trust/acme.py) and the fake index on loopback. Runs that could hang on a broken
build run in a subprocess with a timeout, so a regression fails instead of hanging the suite.
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from auditor.sources import fetch, limits
from tests.trust import acme, machine
from tests.trust.archives import sdist
from tests.trust.cli import error_line, invoke
from tests.trust.fakeindex import FakeIndex, indexes_closed_after, serving

if TYPE_CHECKING:
    from collections.abc import Iterator

    from click.testing import Result

REPO_ROOT = Path(__file__).resolve().parents[2]
TOKEN = "s3cr3t-T0KEN"


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch) -> None:
    machine.isolate(monkeypatch)
    for var in (fetch.TIMEOUT_ENV, fetch.RETRIES_ENV, "DRIFT_AUDIT_DEADLINE"):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture
def dist(tmp_path: Path) -> Path:
    folder = tmp_path / "dist"
    folder.mkdir()
    return folder


@pytest.fixture
def index(dist: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeIndex]:
    fake = FakeIndex()
    fake.add(*acme.wheels(dist, ranged=True))
    with serving(fake), indexes_closed_after(monkeypatch):
        yield fake


def audit(
    project: Path, index_url: str, cache: Path, *more: str, spec: str = "acme==0.2"
) -> Result:
    return invoke(
        str(project), "--against", spec, "--baseline", "acme==0.1", "--index-url", index_url,
        "--cache-dir", str(cache), "--format", "json", *more,
    )  # fmt: skip


def in_subprocess(
    project: Path,
    index_url: str,
    cache: Path,
    *more: str,
    env: dict[str, str] | None = None,
    spec: str = "acme==0.2",
    timeout: float = 60,
) -> subprocess.CompletedProcess[str]:
    """The CLI in a real process, killed after `timeout` (a hang fails the test)."""
    return subprocess.run(
        [sys.executable, "-m", "auditor", str(project), "--against", spec, "--baseline",
         "acme==0.1", "--index-url", index_url, "--cache-dir", str(cache), *more],
        env={**os.environ, "PIP_CONFIG_FILE": os.devnull, **(env or {})}, cwd=REPO_ROOT,
        capture_output=True, text=True, timeout=timeout, check=False,
    )  # fmt: skip


def found(result: Result) -> list[tuple[str, int]]:
    assert result.exit_code in (0, 1), (result.exit_code, result.output, result.exception)
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr
    return [(f["kind"], f["line"]) for f in json.loads(result.stdout)["findings"]]


def with_token(url: str) -> str:
    return url.replace("http://", f"http://ci:{TOKEN}@")


# --------------------------------------------------------------------------- 5, 6: credentials


def test_credentials_never_follow_a_redirect_to_another_host(
    tmp_path: Path, dist: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Item 5: a page answering 302 to another host received Authorization."""
    other = FakeIndex()
    other.add(*acme.wheels(dist, ranged=True))
    first = FakeIndex()
    with serving(other, host="127.0.0.2"), serving(first), indexes_closed_after(monkeypatch):
        first.redirect = other.url.removesuffix("/simple")
        project = acme.consumer(tmp_path / "project")
        result = audit(project, with_token(first.url), tmp_path / "cache")
        assert found(result) == [acme.BREAK]
    assert first.authorizations and all(a is not None for a in first.authorizations)
    assert other.requests, "the redirect was not followed"
    assert other.authorizations == [None] * len(other.requests)
    assert TOKEN not in result.stdout + result.stderr


def test_credentials_never_go_to_another_port_of_the_same_host(
    tmp_path: Path, dist: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = FakeIndex()
    other.add(*acme.wheels(dist, ranged=True))
    first = FakeIndex()
    with serving(other), serving(first), indexes_closed_after(monkeypatch):
        first.redirect = other.url.removesuffix("/simple")
        found(audit(acme.consumer(tmp_path / "project"), with_token(first.url), tmp_path / "c"))
    assert other.authorizations == [None] * len(other.requests)


@pytest.mark.parametrize("where", ["file:///etc/passwd", "ftp://127.0.0.1/x"])
def test_a_redirect_off_http_is_never_followed(
    tmp_path: Path, index: FakeIndex, where: str
) -> None:
    index.redirect = where
    line = error_line(audit(acme.consumer(tmp_path / "project"), index.url, tmp_path / "cache"))
    assert "redirects to a" in line and "never followed" in line, line


def test_credentials_are_never_written_to_the_cache(tmp_path: Path, index: FakeIndex) -> None:
    """Item 6: pages/<key>/*.json held the index URL with the password."""
    cache = tmp_path / "cache"
    project = acme.consumer(tmp_path / "project")
    assert found(audit(project, with_token(index.url), cache)) == [acme.BREAK]
    assert found(audit(project, with_token(index.url), cache, "--offline")) == [acme.BREAK]
    files = [p for p in cache.rglob("*") if p.is_file()]
    assert any("pages" in p.parts for p in files)
    leaked = [p for p in files if TOKEN.encode() in p.read_bytes() or b"ci:" in p.read_bytes()]
    assert leaked == []


# --------------------------------------------------------------------------- 7: file:// rows


@pytest.mark.parametrize("target", ["/dev/zero", "fifo"])
def test_an_http_index_may_not_name_local_files(
    tmp_path: Path, index: FakeIndex, target: str
) -> None:
    """Item 7: an index row naming file:///dev/zero (1.9 GB into the cache) or a FIFO."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    url = Path(target).as_uri() if target.startswith("/") else fifo.as_uri()
    index.rows = [{"filename": "acme-0.3.tar.gz", "url": url, "hashes": {}}]
    cache = tmp_path / "cache"
    done = in_subprocess(acme.consumer(tmp_path / "p"), index.url, cache, spec="acme==0.3")
    assert done.returncode == 2, done.stderr
    assert "no release of acme matches 'acme==0.3'" in done.stderr, done.stderr
    assert "not on HTTP(S)" in done.stderr
    assert sum(p.stat().st_size for p in cache.rglob("*") if p.is_file()) < 1 << 20


# --------------------------------------------------------------------------- 8, 9: size caps


@pytest.mark.parametrize("form", ["wheel", "sdist"])
def test_an_endless_download_stops_at_the_cap(
    tmp_path: Path, index: FakeIndex, monkeypatch: pytest.MonkeyPatch, form: str
) -> None:
    """Item 8: a body without Content-Length that never ends (1.5 GB on disk)."""
    monkeypatch.setattr(limits, "MAX_DOWNLOAD_BYTES", 4 << 20, raising=False)
    if form == "sdist":
        index.files = {n: d for n, d in index.files.items() if "0.2" not in n}
        index.files["acme-0.2.tar.gz"] = b"placeholder"
    index.sizes = False
    index.endless.add("file")
    cache = tmp_path / "cache"
    line = error_line(audit(acme.consumer(tmp_path / "p"), index.url, cache))
    assert "is over the limit of 4194304 bytes" in line, line
    assert sum(p.stat().st_size for p in cache.rglob("*") if p.is_file()) < 5 << 20


def test_a_zeroed_sdist_is_an_error_never_a_pass(
    tmp_path: Path, dist: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Item 8: an all-zero sdist gave a warning and 'no drift found', exit 0."""
    fake = FakeIndex()
    fake.add(sdist(dist, "acme", "0.1", acme.OLD))
    fake.files["acme-0.2.tar.gz"] = bytes(10240)
    with serving(fake), indexes_closed_after(monkeypatch):
        line = error_line(audit(acme.consumer(tmp_path / "p"), fake.url, tmp_path / "cache"))
    assert line.startswith("acme-0.2.tar.gz is not a readable archive") or (
        "holds no Python source" in line
    ), line


def test_an_endless_page_stops_at_the_cap(
    tmp_path: Path, index: FakeIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Item 9: index pages were read whole into memory (a 2.5 GB page: 5.2 GB RSS)."""
    monkeypatch.setattr(limits, "MAX_PAGE_BYTES", 1 << 20, raising=False)
    index.endless.add("page")
    line = error_line(audit(acme.consumer(tmp_path / "p"), index.url, tmp_path / "cache"))
    assert "the page is over the limit of 1048576 bytes" in line, line


def test_a_page_that_declares_too_much_is_refused_before_it_is_read(
    tmp_path: Path, index: FakeIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(limits, "MAX_PAGE_BYTES", 1 << 20, raising=False)
    index.raw_page = b"{" + b" " * (2 << 20) + b"}"
    line = error_line(audit(acme.consumer(tmp_path / "p"), index.url, tmp_path / "cache"))
    assert "the page is over the limit" in line, line
    assert index.count("/simple/") == 1  # refused, not retried


def test_a_gzip_page_is_read_and_counted_as_sent(tmp_path: Path, index: FakeIndex) -> None:
    """Pages are asked for with gzip (files and ranges never are): the same findings, and
    the bytes counted are those on the wire."""
    project = acme.consumer(tmp_path / "p")
    plain = audit(project, index.url, tmp_path / "plain")
    index.gzip_pages = True
    index.requests.clear()
    packed = audit(project, index.url, tmp_path / "packed")
    for result in (plain, packed):
        assert result.exit_code == 1, (result.output, result.exception)
    one, two = json.loads(plain.stdout), json.loads(packed.stdout)
    assert one["findings"] == two["findings"]
    assert two["stats"]["bytes_fetched"] < one["stats"]["bytes_fetched"]


@pytest.mark.parametrize(
    ("body", "encoding", "words"),
    [
        (gzip.compress(b"{" + b" " * (4 << 20) + b"}"), "gzip", "once decompressed"),
        (b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\xff\xff\xff", "gzip", "gzip answer is corrupt"),
        (gzip.compress(b"{}")[:-6], "gzip", "ends early"),
        (b"{}", "br", "an encoding not asked for"),
    ],
    ids=["bomb", "corrupt", "cut", "brotli"],
)
def test_a_page_encoding_that_cannot_be_read_is_one_line(
    tmp_path: Path,
    index: FakeIndex,
    monkeypatch: pytest.MonkeyPatch,
    body: bytes,
    encoding: str,
    words: str,
) -> None:
    """A page that inflates past the page limit is refused as it grows (4 MiB of spaces
    gzip to ~4 KB: under the wire limit, over the 1 MiB page limit set here)."""
    monkeypatch.setattr(limits, "MAX_PAGE_BYTES", 1 << 20, raising=False)
    index.raw_page, index.page_encoding = body, encoding
    line = error_line(audit(acme.consumer(tmp_path / "p"), index.url, tmp_path / "cache"))
    assert words in line, line


# --------------------------------------------------------------------------- 10: deadlines


@pytest.mark.parametrize("where", ["page", "file"])
def test_a_trickling_server_is_cut_off_at_the_request_deadline(
    tmp_path: Path, index: FakeIndex, where: str
) -> None:
    """Item 10: a server sending 1 byte/s hung the audit for ever (per-read timeout only).
    One byte every 0.1 s never trips the 0.5 s read timeout; the deadline (10 reads) does."""
    index.trickle.add(where)
    started = time.monotonic()
    done = in_subprocess(
        acme.consumer(tmp_path / "p"), index.url, tmp_path / "cache",
        env={fetch.TIMEOUT_ENV: "0.5", fetch.RETRIES_ENV: "0"},
    )  # fmt: skip
    elapsed = time.monotonic() - started
    assert done.returncode == 2, done.stderr
    assert "took longer than its deadline" in done.stderr.splitlines()[0], done.stderr
    assert elapsed < 40, elapsed


def test_the_run_has_a_deadline_too(tmp_path: Path, index: FakeIndex) -> None:
    index.trickle.add("file")
    started = time.monotonic()
    done = in_subprocess(
        acme.consumer(tmp_path / "p"), index.url, tmp_path / "cache",
        env={"DRIFT_AUDIT_DEADLINE": "2", fetch.RETRIES_ENV: "0"},
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "(DRIFT_AUDIT_DEADLINE=2 s) ran out" in done.stderr.splitlines()[0], done.stderr
    assert time.monotonic() - started < 30


# --------------------------------------------------------------------------- 19, 20: settings


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("http://[::1", "is not a URL: Invalid IPv6 URL"),
        ("http://127.0.0.1:notaport/simple", "is not a URL"),
        ("/no/such/folder", "is neither a URL nor a folder"),
        ("ftp://127.0.0.1/simple", "is not http(s) or file"),
        (f"http://ci:{TOKEN}@[::1", "is not a URL"),
    ],
)
def test_a_malformed_index_url_is_one_line(tmp_path: Path, url: str, message: str) -> None:
    """Item 19: `--index-url 'http://[::1'` or a bare path was an internal error."""
    line = error_line(audit(acme.consumer(tmp_path / "p"), url, tmp_path / "cache"))
    assert message in line, line
    assert TOKEN not in line


def test_an_index_folder_given_as_a_path_is_read_as_a_local_index(tmp_path: Path) -> None:
    folder = tmp_path / "simple"
    (folder / "acme").mkdir(parents=True)
    result = audit(acme.consumer(tmp_path / "p"), str(folder), tmp_path / "cache")
    assert "no project named 'acme'" not in result.stderr or result.exit_code == 2
    assert "internal error" not in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("var", "value"),
    [
        (fetch.TIMEOUT_ENV, "1e300"),
        (fetch.TIMEOUT_ENV, "nan"),
        (fetch.TIMEOUT_ENV, "0"),
        (fetch.RETRIES_ENV, "100000000"),
        (fetch.RETRIES_ENV, "1e11"),
        (fetch.RETRIES_ENV, "100000000000"),
        ("DRIFT_AUDIT_DEADLINE", "inf"),
    ],
)
def test_absurd_network_settings_are_one_line(
    tmp_path: Path, index: FakeIndex, monkeypatch: pytest.MonkeyPatch, var: str, value: str
) -> None:
    """Items 19 and 20: DRIFT_AUDIT_TIMEOUT=1e300 crashed, DRIFT_AUDIT_RETRIES=100000000 ran
    for 51 s in 1.6 GB, and 1e11 was a MemoryError."""
    monkeypatch.setenv(var, value)
    started = time.monotonic()
    line = error_line(audit(acme.consumer(tmp_path / "p"), index.url, tmp_path / "cache"))
    assert line.startswith(f"{var}={value!r} is not a number of"), line
    assert time.monotonic() - started < 5


@pytest.mark.parametrize(
    "page",
    [
        {"files": ["x"]},
        {"files": None},
        {"files": [{"filename": "acme-0.2-py3-none-any.whl", "url": 3, "hashes": "abc"}]},
        {"files": [{"filename": "acme-0.2-py3-none-any.whl", "hashes": {"sha256": "../../x"}}]},
        {"files": [{"filename": ["acme-0.2.tar.gz"]}]},
        [1, 2],
    ],
)
def test_a_malformed_page_is_one_line_never_an_internal_error(
    tmp_path: Path, index: FakeIndex, page: object
) -> None:
    """Item 19: page `files` = ["x"] or null, or a `hashes` string, were internal errors."""
    index.raw_page = json.dumps(page).encode()
    result = audit(acme.consumer(tmp_path / "p"), index.url, tmp_path / "cache")
    line = error_line(result)  # one line, exit 2: no traceback, no internal error
    assert not list((tmp_path / "cache").rglob("x")), "a sha256 became a path"
    assert any(
        words in line
        for words in ("not PEP 691 JSON", "no release of acme matches", "not a readable archive")
    ), line


@pytest.mark.parametrize("config", ["/dev/zero", "fifo"])
def test_a_pip_config_that_is_not_a_file_is_ignored_with_a_warning(
    tmp_path: Path, index: FakeIndex, monkeypatch: pytest.MonkeyPatch, config: str
) -> None:
    """The environment is untrusted too: PIP_CONFIG_FILE naming a device or a FIFO."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    monkeypatch.setenv("PIP_CONFIG_FILE", config if config.startswith("/") else str(fifo))
    result = audit(acme.consumer(tmp_path / "p"), index.url, tmp_path / "cache")
    assert found(result) == [acme.BREAK]
    assert "ignoring unreadable pip config" in result.stderr
