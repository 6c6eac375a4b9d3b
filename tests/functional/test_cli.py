"""The command line: options over settings, exit statuses, errors, atomic output, colour.

`auditor.pipeline.audit` is replaced by a fake returning Reports built from literals, so these
tests pin the CLI contract (DESIGN.md) without running an audit.
"""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any
from unittest.mock import ANY

import pytest
from click.testing import CliRunner, Result

from auditor import reporters
from auditor.cli import cli, use_color
from auditor.errors import AuditError, BadSpecError
from auditor.kinds import Kind
from auditor.model import ConsumerInfo, Finding, Location, ProviderInfo, Report, Stats, Status
from auditor.reporters import baseline_file, json_report

if TYPE_CHECKING:
    from collections.abc import Callable

REPO_ROOT = Path(__file__).resolve().parents[2]


def finding(kind: Kind, status: Status = Status.NEW, line: int = 3) -> Finding:
    return Finding(
        kind=kind,
        location=Location("widget/core.py", line, 5, line, 12),
        scope="widget.core.run",
        symbol="acme.engine.Engine",
        parameter="block_size",
        broken_in=("0.2",),
        baseline_signature="(model)",
        target_signature="(model, block_size)",
        source=((line, "    Engine(model)"),),
        status=status,
    )


def report(*findings: Finding) -> Report:
    return Report(
        consumer=ConsumerInfo("widget", "1.0", "folder /src/widget"),
        provider=ProviderInfo("acme", "0.1", ("0.2",)),
        findings=findings,
        stats=Stats(files_scanned=2, call_sites=3, seconds=0.01),
    )


class FakeAudit:
    """Stands in for auditor.pipeline.audit: records the call, returns or raises."""

    def __init__(self, result: Report | BaseException) -> None:
        self.result = result
        self.calls: list[tuple[tuple[Any, ...], dict[str, Any]]] = []

    def __call__(self, *args: Any, **kwargs: Any) -> Report:
        self.calls.append((args, kwargs))
        if isinstance(self.result, BaseException):
            raise self.result
        return self.result


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty working folder (no pyproject.toml unless a test writes one)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    return tmp_path


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Callable[[Report | BaseException], FakeAudit]:
    def install(result: Report | BaseException) -> FakeAudit:
        audit = FakeAudit(result)
        monkeypatch.setattr("auditor.pipeline.audit", audit)
        return audit

    return install


def invoke(*args: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(cli, list(args), env=env, prog_name="drift-audit")


# --------------------------------------------------------------------------- exit statuses

NEW_ERROR = finding(Kind.UNEXPECTED_KEYWORD)
NEW_WARNING = finding(Kind.POSITIONAL_SHIFT)
NEW_INFO = finding(Kind.CHANGED_DEFAULT)
OLD_ERROR = finding(Kind.MISSING_ARGUMENT, Status.PREEXISTING)


@pytest.mark.parametrize(
    ("findings", "fail_on", "code"),
    [
        ((), None, 0),
        ((NEW_ERROR,), None, 1),
        ((NEW_WARNING,), None, 0),
        ((NEW_WARNING,), "warning", 1),
        ((NEW_INFO,), "warning", 0),
        ((NEW_INFO,), "info", 1),
        ((NEW_ERROR,), "never", 0),
        ((OLD_ERROR,), "info", 0),
        ((finding(Kind.REMOVED_SYMBOL, Status.BASELINED),), "info", 0),
        ((finding(Kind.REMOVED_SYMBOL, Status.SUPPRESSED),), "info", 0),
        ((OLD_ERROR, NEW_WARNING), "warning", 1),
    ],
)
def test_cli_exit_status_follows_fail_on_for_new_findings(
    project: Path,
    fake: Callable[..., FakeAudit],
    findings: tuple[Finding, ...],
    fail_on: str | None,
    code: int,
) -> None:
    fake(report(*findings))
    args = ["--against", "acme==0.2", *(["--fail-on", fail_on] if fail_on else [])]
    result = invoke(*args)
    assert result.exit_code == code, result.output


def test_cli_passes_every_option_to_audit(project: Path, fake: Callable[..., FakeAudit]) -> None:
    (project / "b.json").write_text("{}", encoding="utf-8")
    audit = fake(report())
    result = invoke(
        "widget", "--against", "acme==0.2", "--against", "acme==0.3", "--baseline", "acme==0.1",
        "--index-url", "http://127.0.0.1:9/simple", "--cache-dir", "cache", "--offline",
        "--exclude", "tests/**", "--exclude", "docs/**", "--pre", "--baseline-file", "b.json",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert audit.calls == [
        (
            ("widget", ("acme==0.2", "acme==0.3")),
            {
                "baseline": ("acme==0.1",),
                "index_url": "http://127.0.0.1:9/simple",
                "cache_dir": "cache",
                "offline": True,
                "exclude": ("tests/**", "docs/**"),
                "pre": True,
                "baseline_file": "b.json",
                "baseline_file_root": None,
                "project_root": None,
                "select": None,
                "ignore": (),
                "severity": {},
                "progress": ANY,
                "fixes": True,  # the text report says which findings --fix repairs
                "provenance": ANY,
                "left_out": (),
                "excluded_by": ("command-line", None),  # --exclude: named as the command line's
                "ungated": (),
            },
        )
    ]


def test_cli_default_consumer_is_the_current_folder(
    project: Path, fake: Callable[..., FakeAudit]
) -> None:
    audit = fake(report())
    invoke("--against", "acme==0.2")
    assert audit.calls[0][0][0] == "."
    assert audit.calls[0][1]["baseline"] is None
    assert audit.calls[0][1]["offline"] is False


def test_cli_without_against_is_a_usage_error(
    project: Path, fake: Callable[..., FakeAudit]
) -> None:
    audit = fake(report())
    result = invoke()
    assert result.exit_code == 2
    assert "--against" in result.stderr
    assert audit.calls == []


# --------------------------------------------------------------------------- errors


def test_cli_audit_error_prints_one_line_and_a_hint(
    project: Path, fake: Callable[..., FakeAudit]
) -> None:
    fake(BadSpecError("'vllm=0.16' is not a PEP 508 requirement", hint="write vllm==0.16"))
    result = invoke("--against", "vllm=0.16")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == (
        "drift-audit: error: 'vllm=0.16' is not a PEP 508 requirement\n"
        "drift-audit: hint: write vllm==0.16\n"
    )


def test_cli_audit_error_without_hint_is_one_line(
    project: Path, fake: Callable[..., FakeAudit]
) -> None:
    fake(AuditError("the index is unreachable"))
    result = invoke("--against", "acme==0.2")
    assert (result.exit_code, result.stderr) == (
        2,
        "drift-audit: error: the index is unreachable\n",
    )


def test_cli_unexpected_exception_is_one_line_asking_for_debug(
    project: Path, fake: Callable[..., FakeAudit]
) -> None:
    fake(RuntimeError("boom"))
    result = invoke("--against", "acme==0.2")
    assert result.exit_code == 2
    assert result.stderr == (
        "drift-audit: internal error: RuntimeError: boom (rerun with --debug for the traceback)\n"
    )


def test_cli_debug_reraises_unexpected_exceptions(
    project: Path, fake: Callable[..., FakeAudit]
) -> None:
    fake(RuntimeError("boom"))
    result = invoke("--against", "acme==0.2", "--debug")
    assert isinstance(result.exception, RuntimeError)
    assert "internal error" not in result.stderr


def test_cli_interrupt_exits_130_without_output_file(
    project: Path, fake: Callable[..., FakeAudit]
) -> None:
    fake(KeyboardInterrupt())
    result = invoke("--against", "acme==0.2", "-o", "out.txt")
    assert result.exit_code == 130
    assert result.stderr == "drift-audit: interrupted\n"
    assert list(project.iterdir()) == []


# --------------------------------------------------------------------------- output


def test_cli_output_file_is_written_and_stdout_stays_empty(
    project: Path, fake: Callable[..., FakeAudit]
) -> None:
    rep = report(NEW_ERROR)
    fake(rep)
    result = invoke("--against", "acme==0.2", "--format", "json", "-o", "drift.json")
    assert result.exit_code == 1
    assert result.stdout == ""
    assert (project / "drift.json").read_text(encoding="utf-8") == json_report.render(rep)
    assert sorted(p.name for p in project.iterdir()) == ["drift.json"]


def test_cli_rendering_failure_leaves_no_file_and_keeps_the_old_one(
    project: Path, fake: Callable[..., FakeAudit], monkeypatch: pytest.MonkeyPatch
) -> None:
    fake(report(NEW_ERROR))

    def broken(report: Report, *, color: bool = False) -> str:
        raise ValueError("cannot render")

    monkeypatch.setitem(reporters.REPORTERS, "json", broken)
    result = invoke("--against", "acme==0.2", "--format", "json", "-o", "new.json")
    assert result.exit_code == 2
    assert "internal error: ValueError: cannot render" in result.stderr
    assert list(project.iterdir()) == []

    (project / "old.json").write_text("previous", encoding="utf-8")
    invoke("--against", "acme==0.2", "--format", "json", "-o", "old.json")
    assert (project / "old.json").read_text(encoding="utf-8") == "previous"
    assert [p.name for p in project.iterdir()] == ["old.json"]


def test_cli_write_failure_removes_the_temp_file(
    project: Path, fake: Callable[..., FakeAudit], monkeypatch: pytest.MonkeyPatch
) -> None:
    fake(report())

    from auditor import files

    def refuse(*args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(files.os, "replace", refuse)
    result = invoke("--against", "acme==0.2", "-o", "out.txt")
    assert result.exit_code == 2
    assert "drift-audit: error: cannot write out.txt: Permission denied" in result.stderr
    assert list(project.iterdir()) == []


def test_cli_output_into_a_missing_folder_is_an_error(
    project: Path, fake: Callable[..., FakeAudit]
) -> None:
    fake(report())
    result = invoke("--against", "acme==0.2", "-o", "no/such/folder/out.txt")
    assert result.exit_code == 2
    assert result.stderr.startswith("drift-audit: error: cannot write no/such/folder/out.txt")
    assert "drift-audit: hint:" in result.stderr


def test_cli_write_baseline_writes_the_fingerprints(
    project: Path, fake: Callable[..., FakeAudit]
) -> None:
    rep = report(NEW_ERROR, OLD_ERROR)
    fake(rep)
    result = invoke("--against", "acme==0.2", "--write-baseline", "base.json", "--fail-on", "never")
    assert result.exit_code == 0
    assert "widget/core.py:3:5: error[unexpected-keyword]" in result.stdout
    recorded = baseline_file.load(project / "base.json")
    assert {f.fingerprint for f in recorded.findings} == {f.fingerprint for f in rep.findings}


def test_cli_text_report_goes_to_stdout(project: Path, fake: Callable[..., FakeAudit]) -> None:
    fake(report(NEW_ERROR))
    result = invoke("--against", "acme==0.2")
    assert result.stdout.startswith("widget 1.0 against acme 0.2 (baseline 0.1)\n")
    assert "    3 |     Engine(model)\n" in result.stdout
    assert result.stdout.splitlines()[-1].startswith("1 new error, 0 new warnings")
    assert result.stderr == ""


# --------------------------------------------------------------------------- colour


@pytest.mark.parametrize(
    ("args", "env", "coloured"),
    [
        ((), {}, False),
        (("--color",), {}, True),
        ((), {"FORCE_COLOR": "1"}, True),
        ((), {"FORCE_COLOR": "1", "NO_COLOR": "1"}, False),
        (("--color",), {"NO_COLOR": "1"}, True),
        (("--no-color",), {"FORCE_COLOR": "1"}, False),
        (("--color", "--format", "json"), {}, False),
        (("--color", "always"), {"TERM": "dumb"}, True),
        (("--color=never",), {"FORCE_COLOR": "1"}, False),
        (("--color", "auto"), {"FORCE_COLOR": "1"}, True),
        ((), {"FORCE_COLOR": "0"}, False),
    ],
)
def test_cli_colour_rules(
    project: Path,
    fake: Callable[..., FakeAudit],
    args: tuple[str, ...],
    env: dict[str, str],
    coloured: bool,
) -> None:
    fake(report(NEW_ERROR))
    result = invoke("--against", "acme==0.2", *args, env=env)
    assert ("\x1b[" in result.stdout) is coloured


def test_cli_colour_decision_on_a_terminal() -> None:
    assert use_color(None, fmt="text", to_file=False, env={}, isatty=True)
    assert not use_color(None, fmt="text", to_file=True, env={}, isatty=True)
    assert not use_color(None, fmt="text", to_file=False, env={"NO_COLOR": "1"}, isatty=True)
    assert not use_color(None, fmt="sarif", to_file=False, env={}, isatty=True)
    assert not use_color("auto", fmt="text", to_file=False, env={"TERM": "dumb"}, isatty=True)
    assert not use_color("auto", fmt="text", to_file=False, env={"FORCE_COLOR": "0"}, isatty=True)
    assert use_color("auto", fmt="text", to_file=False, env={"FORCE_COLOR": "1"}, isatty=False)
    assert use_color("always", fmt="text", to_file=True, env={"NO_COLOR": "1"}, isatty=False)


# --------------------------------------------------------------------------- logging


def test_cli_logging_goes_to_stderr_and_quiet_hides_warnings(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def noisy(*args: Any, **kwargs: Any) -> Report:
        log = logging.getLogger("drift_audit.sources")
        log.warning("cache is cold")
        log.info("fetching acme 0.2")
        return report()

    monkeypatch.setattr("auditor.pipeline.audit", noisy)
    plain = invoke("--against", "acme==0.2")
    assert plain.stderr == "drift-audit: warning: cache is cold\n"
    verbose = invoke("--against", "acme==0.2", "-v")
    assert "drift-audit: info: fetching acme 0.2\n" in verbose.stderr
    quiet = invoke("--against", "acme==0.2", "-q")
    assert quiet.stderr == ""


# --------------------------------------------------------------------------- settings


def test_cli_settings_from_pyproject_fill_defaults(
    project: Path, fake: Callable[..., FakeAudit]
) -> None:
    (project / "pyproject.toml").write_text(
        '[tool.drift-audit]\nagainst = ["acme==0.2"]\nbaseline = "acme==0.1"\nfail-on = "warning"\n'
        'format = "json"\nexclude = ["tests/**"]\nbaseline-file = "b.json"\n',
        encoding="utf-8",
    )
    (project / "b.json").write_text("{}", encoding="utf-8")
    audit = fake(report(NEW_WARNING))
    result = invoke()
    assert result.exit_code == 1
    assert json.loads(result.stdout)["schema_version"] == 1
    args, kwargs = audit.calls[0]
    assert args == (".", ("acme==0.2",))
    assert kwargs["baseline"] == ("acme==0.1",)
    assert kwargs["exclude"] == ("tests/**",)
    assert kwargs["baseline_file"] == "b.json"


def test_cli_command_line_wins_over_settings(project: Path, fake: Callable[..., FakeAudit]) -> None:
    (project / "pyproject.toml").write_text(
        '[tool.drift-audit]\nagainst = "acme==0.2"\nfail-on = "warning"\nformat = "json"\n'
        'output = "drift.json"\n',
        encoding="utf-8",
    )
    audit = fake(report(NEW_WARNING))
    result = invoke(
        "--against", "acme==0.3", "--fail-on", "error", "--format", "markdown", "-o", "-"
    )
    assert result.exit_code == 0
    assert result.stdout.startswith("## drift-audit")
    assert audit.calls[0][0][1] == ("acme==0.3",)
    assert not (project / "drift.json").exists()


def test_cli_settings_output_is_relative_to_the_project(
    project: Path, fake: Callable[..., FakeAudit]
) -> None:
    package = project / "proj" / "widget"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (project / "proj" / "pyproject.toml").write_text(
        '[tool.drift-audit]\nagainst = "acme==0.2"\noutput = "drift.txt"\n', encoding="utf-8"
    )
    fake(report())
    result = invoke("proj/widget")
    assert result.exit_code == 0
    assert (project / "proj" / "drift.txt").read_text(encoding="utf-8").startswith("widget 1.0")


def test_cli_unknown_settings_key_is_an_error_naming_it(
    project: Path, fake: Callable[..., FakeAudit]
) -> None:
    (project / "pyproject.toml").write_text(
        '[tool.drift-audit]\nfail_on = "error"\n', encoding="utf-8"
    )
    audit = fake(report())
    result = invoke("--against", "acme==0.2")
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        f"drift-audit: error: unknown key 'fail_on' in [tool.drift-audit] of "
        f"{Path('pyproject.toml')}",
        "drift-audit: hint: did you mean 'fail-on'? valid keys: against, baseline, fail-on, "
        "format, output, exclude, baseline-file, select, ignore, severity, gate-tests",
    ]
    assert audit.calls == []


def test_cli_settings_with_an_unknown_format_is_an_error(
    project: Path, fake: Callable[..., FakeAudit]
) -> None:
    (project / "pyproject.toml").write_text(
        '[tool.drift-audit]\nformat = "xml"\n', encoding="utf-8"
    )
    fake(report())
    result = invoke("--against", "acme==0.2")
    assert result.exit_code == 2
    assert "format = 'xml'" in result.stderr


def test_cli_settings_may_name_one_baseline_per_provider(
    project: Path, fake: Callable[..., FakeAudit]
) -> None:
    (project / "pyproject.toml").write_text(
        '[tool.drift-audit]\nagainst = ["acme==0.2", "bolt==2.0"]\n'
        'baseline = ["acme==0.1", "bolt==1.0"]\n',
        encoding="utf-8",
    )
    audit = fake(report())
    assert invoke().exit_code == 0
    assert audit.calls[0][1]["baseline"] == ("acme==0.1", "bolt==1.0")
    assert invoke("--baseline", "acme==0.0").exit_code == 0
    assert audit.calls[1][1]["baseline"] == ("acme==0.0",)


# --------------------------------------------------------------------------- information


def test_cli_list_kinds_prints_every_kind_aligned(project: Path) -> None:
    result = invoke("--list-kinds")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert [line.split()[0] for line in lines] == [k.slug for k in Kind]
    severity_columns = {
        line.index(k.severity.value, len(k.slug)) for line, k in zip(lines, Kind, strict=True)
    }
    assert len(severity_columns) == 1
    assert lines[0].endswith(Kind.REMOVED_MODULE.summary)


def test_cli_version(project: Path) -> None:
    result = invoke("--version")
    assert result.exit_code == 0
    assert result.stdout.startswith("drift-audit ")


def test_cli_help_has_examples_kept_as_written(project: Path) -> None:
    result = invoke("--help")
    assert result.exit_code == 0
    assert (
        "  Examples:\n    drift-audit speculators==0.3.0 --against vllm==0.17.0\n" in result.stdout
    )
    assert "--list-kinds" in result.stdout
    assert "--format [text|concise|json|sarif|github|markdown|html|gitlab|junit]" in result.stdout


def test_cli_runs_as_python_dash_m_auditor() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "auditor", "--list-kinds"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0].startswith("removed-module")
