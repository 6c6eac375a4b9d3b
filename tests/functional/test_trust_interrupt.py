"""Ctrl-C mid-audit: exit status 130, no report and no temp file beside it, no broken cache
entry (a later run succeeds, and finds nothing damaged), and no long wait to exit."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.trust.archives import Member, wheel
from tests.trust.fakeindex import FakeIndex, serving, wait_for

if TYPE_CHECKING:
    from collections.abc import Iterator

REPO_ROOT = Path(__file__).resolve().parents[2]
PROVIDER = {
    "acme/__init__.py": "from acme.core import run\n",
    "acme/core.py": "def run(x, *, fast=False):\n    return x\n",
    "acme/extra.py": "def more(y):\n    return y\n",
}
SLOW = 60.0  # seconds the fake index holds a delayed answer (until the test ends)


@pytest.fixture
def index(tmp_path: Path) -> Iterator[FakeIndex]:
    dist = tmp_path / "dist"
    dist.mkdir()
    fake = FakeIndex()
    fake.add(
        wheel(dist, "acme", "1.0", PROVIDER, extra=[Member("acme/_n.so", os.urandom(600_000))])
    )
    with serving(fake):
        yield fake


def start(tmp_path: Path, index: FakeIndex, *more: str) -> subprocess.Popen[str]:
    consumer = tmp_path / "consumer" / "widget"
    consumer.mkdir(parents=True, exist_ok=True)
    (consumer / "__init__.py").write_text("from acme import run\n\nrun(1, slow=True)\n")
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PYTHONPATH": str(REPO_ROOT),
        "PIP_CONFIG_FILE": os.devnull,
    }
    args = [
        sys.executable, "-m", "auditor", str(consumer), "--against", "acme==1.0",
        "--index-url", index.url, "--cache-dir", str(tmp_path / "cache"), "--format", "json",
        *more,
    ]  # fmt: skip
    return subprocess.Popen(
        args, env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=restore_sigint,
    )  # fmt: skip


def restore_sigint() -> None:
    """In the child: Ctrl-C's default action back. A suite started from a shell that ignores
    SIGINT (a background job: `make test &`) passes SIG_IGN on, and Python then installs no
    KeyboardInterrupt handler, so the child would never see our Ctrl-C."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def interrupt_when(proc: subprocess.Popen[str], ready: object) -> tuple[int, str, float]:
    assert wait_for(ready), "the audit never reached the slow request"
    time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    sent = time.monotonic()
    _, stderr = proc.communicate(timeout=SLOW / 2)
    return proc.returncode, stderr, time.monotonic() - sent


def later_run_is_sound(tmp_path: Path, index: FakeIndex) -> None:
    index.file_delay = index.range_delay = 0.0
    for extra in ((), ("--offline",)):
        done = start(tmp_path, index, *extra)
        out, err = done.communicate(timeout=60)
        assert done.returncode == 1, err
        assert "damaged" not in err and "error" not in err, err
        findings = json.loads(out)["findings"]
        assert [(f["kind"], f["line"]) for f in findings] == [("unexpected-keyword", 3)]


@pytest.mark.parametrize("where", ["tail", "members"])
def test_ctrl_c_mid_audit_leaves_no_report_and_no_broken_cache(
    tmp_path: Path, index: FakeIndex, where: str
) -> None:
    if where == "tail":  # the main thread waits on the first request for the wheel
        index.file_delay = SLOW
    else:  # worker threads wait on member ranges, the main thread on them
        index.range_delay = SLOW
    report = tmp_path / "out" / "report.json"
    report.parent.mkdir()
    proc = start(tmp_path, index, "-o", str(report))

    def slow_request_seen() -> bool:
        if where == "tail":
            return index.count("/files/") > 0
        return any(r and not r.startswith("bytes=-") for _, r in index.requests)

    status, stderr, waited = interrupt_when(proc, slow_request_seen)
    assert status == 130, stderr
    assert stderr.strip().splitlines()[-1] == "drift-audit: interrupted", stderr
    assert "Traceback" not in stderr
    assert waited < 10, f"took {waited:.1f}s to stop after Ctrl-C"
    assert list(report.parent.iterdir()) == []  # no report, no .report.json.*.tmp
    cache = tmp_path / "cache"
    assert not list((cache / "tmp").iterdir()) if (cache / "tmp").exists() else True
    assert not list(cache.rglob(".tmp-*"))
    later_run_is_sound(tmp_path, index)


def test_ctrl_c_while_the_report_is_written_leaves_neither_it_nor_a_temp_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from auditor import files

    real_fdopen = os.fdopen

    class Interrupted:
        def __init__(self, fd: int, *args: object, **kwargs: object) -> None:
            self.inner = real_fdopen(fd, *args, **kwargs)  # type: ignore[call-overload]

        def __enter__(self) -> Interrupted:
            return self

        def __exit__(self, *exc: object) -> None:
            self.inner.close()

        def write(self, data: bytes) -> int:
            self.inner.write(data[:10])
            raise KeyboardInterrupt

        def fileno(self) -> int:
            return int(self.inner.fileno())

    monkeypatch.setattr(files.os, "fdopen", Interrupted)
    report = tmp_path / "report.json"
    report.write_text("the previous report\n")
    with pytest.raises(KeyboardInterrupt):
        files.write_outputs([files.Output(report, b"the new report\n" * 1000)])
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]
    assert report.read_text() == "the previous report\n"  # left whole, as it was


def test_the_ctrl_c_tests_pass_when_the_suite_ignores_sigint(tmp_path: Path) -> None:
    """Item 26: run from a shell where SIGINT is ignored, the tests above failed."""
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"{__file__}::"
         "test_ctrl_c_mid_audit_leaves_no_report_and_no_broken_cache[tail]"],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=120, check=False,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:]
    assert "1 passed" in done.stdout
