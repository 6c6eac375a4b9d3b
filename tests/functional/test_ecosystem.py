"""`drift-audit ecosystem`: outcomes, the store, the engines, the reports, end to end.

The consumers here are this suite's fixture folders audited against the tests/fixes/ acme
pair (0.1 -> 0.2), named by direct references, so nothing touches the network: one
consumer regresses (tests/fixes), one fails with both releases (tests/behaviour's probes call
functions this acme never had), one cannot be audited (a missing folder). The 200-consumer
synthetic index run is tests/functional/test_ecosystem_world.py.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner

from auditor import ecosystem
from auditor.cli import main
from auditor.engine import LocalEngine
from auditor.model import Outcome

REPO = Path(__file__).resolve().parents[2]
TARGET = f"acme @ {(REPO / 'tests/fixes/provider/0.2').as_uri()}"
BASELINE = f"acme @ {(REPO / 'tests/fixes/provider/0.1').as_uri()}"
REGRESSED = str(REPO / "tests/fixes/consumer/widget")
STILL_BROKEN = str(REPO / "tests/behaviour/consumer/widget")
MISSING = "/nonexistent/consumer/folder"


def eco(tmp_path: Path, *args: str) -> Any:
    (tmp_path / "consumers.txt").write_text(
        f"# fixture consumers\n{REGRESSED}\n\n{STILL_BROKEN}  # probes of another acme\n{MISSING}\n"
    )
    argv = [
        "ecosystem", "--against", TARGET, "--baseline", BASELINE,
        "--consumers", str(tmp_path / "consumers.txt"), "--offline",
        "--cache-dir", str(tmp_path / "cache"), *args,
    ]  # fmt: skip
    runner = CliRunner()
    return runner.invoke(_entry, argv, catch_exceptions=False)


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PIP_CONFIG_FILE", "/dev/null")
    monkeypatch.delenv("PIP_INDEX_URL", raising=False)


@click.command(context_settings={"ignore_unknown_options": True, "allow_extra_args": True})
@click.pass_context
def _entry(ctx: click.Context) -> None:
    """`drift-audit ...` as the console script sees it (main() dispatches `ecosystem`)."""
    main(list(ctx.args))


def test_outcomes_findings_and_exit_status(tmp_path: Path) -> None:
    result = eco(tmp_path, "--format", "json")
    assert result.exit_code == 1, result.output  # a consumer regressed
    data = json.loads(result.stdout)
    assert data["schema_version"] == 1
    assert data["provider"] == {"name": "acme", "baseline": BASELINE, "target": TARGET}
    outcomes = {c["spec"]: c["outcome"] for c in data["consumers"]}
    assert outcomes == {REGRESSED: "regressed", STILL_BROKEN: "still-broken", MISSING: "error"}
    error = next(c for c in data["consumers"] if c["spec"] == MISSING)["error"]
    assert "is not a folder" in error and "\n" not in error
    symbols = {s["symbol"]: (s["consumers"], s["sites"]) for s in data["symbols"]}
    assert symbols["acme.build"] == (1, 1)  # one cause, one finding: keyword-only now
    assert list(symbols) == sorted(symbols, key=lambda s: (-symbols[s][0], -symbols[s][1], s))


def test_a_consumers_findings_are_the_audits_json_for_it_alone(tmp_path: Path) -> None:
    data = json.loads(eco(tmp_path, "--format", "json").stdout)
    alone = subprocess.run(
        [sys.executable, "-m", "auditor", REGRESSED, "--against", TARGET, "--baseline", BASELINE,
         "--offline", "--cache-dir", str(tmp_path / "cache"), "--format", "json"],
        capture_output=True, text=True, cwd=tmp_path,
    )  # fmt: skip
    assert alone.returncode == 1, alone.stderr
    expected = json.loads(alone.stdout)["findings"]
    got = next(c for c in data["consumers"] if c["spec"] == REGRESSED)["findings"]
    assert got == expected


def test_the_store_keeps_results_and_a_rerun_skips_them(tmp_path: Path) -> None:
    """A rerun skips what the store holds, but audits again the consumer whose audit
    failed (MISSING: an error is not a result; a network failure would pass next time)."""
    store = tmp_path / "results.sqlite"
    first = json.loads(eco(tmp_path, "--format", "json", "--store", str(store)).stdout)
    assert first["stats"]["audited"] == 3
    again = json.loads(eco(tmp_path, "--format", "json", "--store", str(store)).stdout)
    assert again["stats"]["audited"] == 1 and again["stats"]["reused_from_store"] == 2
    first.pop("stats"), again.pop("stats")
    assert again == first


def _schema_errors(validator: Any, document: Any) -> list[str]:
    errors = sorted(validator.iter_errors(document), key=lambda e: e.json_path)
    return [f"{e.json_path}: {e.message[:200]}" for e in errors]


def test_the_json_report_follows_the_published_schema(
    tmp_path: Path, ecosystem_validator: Any
) -> None:
    """docs/ecosystem.schema.json accepts what the command writes: every outcome this run
    has (regressed, still-broken, error), a rerun that reads results back from the store,
    and the report written to a file with -o."""
    store = tmp_path / "results.sqlite"
    out = tmp_path / "eco.json"
    first = eco(tmp_path, "--format", "json", "--store", str(store), "-o", str(out))
    assert first.exit_code == 1, first.output
    again = eco(tmp_path, "--format", "json", "--store", str(store))
    for document in (json.loads(out.read_text(encoding="utf-8")), json.loads(again.stdout)):
        assert {c["outcome"] for c in document["consumers"]} == {
            "regressed", "still-broken", "error",
        }  # fmt: skip
        assert _schema_errors(ecosystem_validator, document) == []
    assert json.loads(again.stdout)["stats"]["reused_from_store"] == 2


@pytest.mark.parametrize(
    ("where", "change", "complaint"),
    [
        ("consumer", lambda c: c.update(outcome="broken"), "is not one of"),
        ("consumer", lambda c: c.pop("baseline"), "'baseline' is a required property"),
        ("finding", lambda f: f.update(kind="no-such-kind"), "is not one of"),
        ("finding", lambda f: f.pop("fingerprint"), "'fingerprint' is a required property"),
        ("finding", lambda f: f.update(colour="red"), "Additional properties"),
        ("top", lambda d: d["stats"].pop("engine"), "'engine' is a required property"),
    ],
)
def test_the_schema_rejects_a_document_that_does_not_fit(
    tmp_path: Path, ecosystem_validator: Any, where: str, change: Any, complaint: str
) -> None:
    """The schema has teeth, down to a consumer's findings (checked by the audit's schema)."""
    document = json.loads(eco(tmp_path, "--format", "json").stdout)
    regressed = next(c for c in document["consumers"] if c["outcome"] == "regressed")
    target = {"top": document, "consumer": regressed, "finding": regressed["findings"][0]}
    change(target[where])
    errors = _schema_errors(ecosystem_validator, document)
    assert errors and complaint in " ".join(errors), errors


def test_an_interrupted_run_keeps_what_finished(tmp_path: Path) -> None:
    store = tmp_path / "results.sqlite"
    seen: list[str] = []

    def stop_after_one(result: Any, done: int, total: int) -> None:
        seen.append(result.spec)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        ecosystem.run(
            [REGRESSED, STILL_BROKEN, MISSING], TARGET, baseline=BASELINE, store=store,
            cache_dir=str(tmp_path / "cache"), offline=True, jobs=1, on_result=stop_after_one,
        )  # fmt: skip
    assert len(seen) == 1
    rest = ecosystem.run(
        [REGRESSED, STILL_BROKEN, MISSING], TARGET, baseline=BASELINE, store=store,
        cache_dir=str(tmp_path / "cache"), offline=True, jobs=1,
    )  # fmt: skip
    assert rest.stats["reused_from_store"] == 1 and rest.stats["audited"] == 2
    assert [r.outcome for r in rest.consumers] == [
        Outcome.REGRESSED, Outcome.STILL_BROKEN, Outcome.ERROR,
    ]  # fmt: skip


def test_every_format(tmp_path: Path) -> None:
    text = eco(tmp_path).stdout
    assert "outcomes: 1 regressed, 1 error, 1 still-broken, 0 fixed, 0 clean" in text
    markdown = eco(tmp_path, "--format", "markdown").stdout
    assert markdown.startswith("## drift-audit ecosystem:")
    assert "| Consumer | Outcome | New errors |" in markdown and "<details>" in markdown
    out = tmp_path / "eco.html"
    result = eco(tmp_path, "--format", "html", "-o", str(out))
    assert result.stdout == "" and out.read_text().startswith("<!DOCTYPE html>")
    # like the audit, a report written to a file leaves its summary line on stderr
    summary = "3 consumers; outcomes: 1 regressed, 1 error, 1 still-broken, 0 fixed, 0 clean"
    assert f"drift-audit: {summary}; report in {out}" in result.stderr.splitlines()
    quiet = eco(tmp_path, "--format", "json", "-o", str(out), "--quiet")
    assert "outcomes:" not in quiet.stderr


def test_the_command_needs_one_consumer_source(tmp_path: Path) -> None:
    result = CliRunner().invoke(_entry, ["ecosystem", "--against", TARGET], catch_exceptions=False)
    assert result.exit_code == 2
    assert "give one of --consumers FILE or --dependents" in result.stderr


# --------------------------------------------------------------------------- the engine


def _sleep(seconds: float) -> float:
    time.sleep(seconds)
    return seconds


def _hog(mib: int) -> int:
    block = bytearray(mib << 20)
    return len(block)


def _crash(_: int) -> int:
    raise RuntimeError("boom")


def _big(size: int) -> bytes:
    return b"x" * size


def test_a_result_larger_than_a_pipe_comes_back_at_once() -> None:
    """verl's and ray's reports (66-99 KiB) once filled the pipe: the child blocked writing,
    the parent waited for it to exit, and both ended as timeouts after 600 s."""
    started = time.monotonic()
    done = list(LocalEngine(2).run(_big, [1 << 20, 10], timeout=60, memory=None))
    assert time.monotonic() - started < 20
    assert sorted(len(d.result or b"") for d in done) == [10, 1 << 20]
    assert all(d.failure is None for d in done)


def test_a_hung_or_hungry_task_is_an_error_and_the_run_goes_on() -> None:
    engine = LocalEngine(2)
    started = time.monotonic()
    done = list(engine.run(_sleep, [30.0, 0.01], timeout=1.0, memory=None))
    assert time.monotonic() - started < 10
    by_task = {d.task: d for d in done}
    assert by_task[0.01].result == 0.01
    assert by_task[30.0].failure == "timed out after 1 s"
    hungry = list(engine.run(_hog, [2048], timeout=30, memory=512 << 20))
    assert hungry[0].failure == "ran out of its memory limit"
    crashed = list(engine.run(_crash, [1], timeout=30, memory=None))
    assert crashed[0].failure == "crashed: RuntimeError: boom"


def test_ray_and_local_give_the_same_results(tmp_path: Path) -> None:
    pytest.importorskip("ray")
    specs = [REGRESSED, STILL_BROKEN, MISSING]
    options = {"baseline": BASELINE, "cache_dir": str(tmp_path / "cache"), "offline": True}
    local = ecosystem.run(specs, TARGET, engine="local", **options)  # type: ignore[arg-type]
    ray = ecosystem.run(specs, TARGET, engine="ray", jobs=2, **options)  # type: ignore[arg-type]
    assert [(r.spec, r.outcome, r.findings) for r in ray.consumers] == [
        (r.spec, r.outcome, r.findings) for r in local.consumers
    ]
