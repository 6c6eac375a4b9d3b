"""The differential oracle: the tool's verdict on every probe equals what the interpreter did.

tests/idioms/<idiom>/ holds a tiny provider `acme` in several versions (provider/<version>/)
and a consumer `widget` whose `probe_*` functions each do one thing with it. For every idiom
and every provider version, tests/idioms/run_probes.py *runs* each probe in a subprocess
(these are our own fixtures) and records what Python did: ok, a provider warning, or the
exception that escaped. The tool audits the same consumer against the same version (no
baseline: every finding is absolute) and its findings inside each probe are reduced to the
same classes:

    removed-module, removed-symbol                    -> missing   (ImportError, AttributeError)
    unexpected-keyword, missing-argument,
    too-many-positional, override-mismatch            -> TypeError
    deprecated                                        -> warn
    nothing (or only warnings of other kinds, info)   -> ok

A probe whose source says `# oracle: unknown` is one the analysis cannot decide by design: the
tool must stay silent there whatever Python did (those are counted, for docs/analysis.md).
Any other disagreement fails the test, naming the probe, the version and both verdicts.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

IDIOMS = Path(__file__).resolve().parents[1] / "idioms"
RUNNER = IDIOMS / "run_probes.py"
MISSING = frozenset({"removed-module", "removed-symbol"})
TYPE_ERRORS = frozenset(
    {"unexpected-keyword", "missing-argument", "too-many-positional", "override-mismatch"}
)
INTERPRETER = {
    "ok": "ok",
    "warn": "warn",
    "AttributeError": "missing",
    "ImportError": "missing",
    "ModuleNotFoundError": "missing",
    "TypeError": "TypeError",
}


@dataclass(frozen=True)
class Probe:
    name: str  # widget.module.probe_x, as run_probes.py keys it
    unknown: bool  # `# oracle: unknown`: the tool must stay silent


def idioms() -> list[Path]:
    return sorted(p for p in IDIOMS.iterdir() if (p / "consumer" / "widget").is_dir())


def versions(idiom: Path) -> list[str]:
    return sorted(p.name for p in (idiom / "provider").iterdir() if p.is_dir())


def probes(idiom: Path) -> dict[str, Probe]:
    found = {}
    root = idiom / "consumer"
    for path in sorted((root / "widget").rglob("*.py")):
        module = ".".join(path.relative_to(root).with_suffix("").parts).removesuffix(".__init__")
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        for node in ast.parse(text).body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith("probe_"):
                body = "\n".join(lines[node.lineno - 1 : node.end_lineno])
                name = f"{module}.{node.name}"
                found[name] = Probe(name, "# oracle: unknown" in body)
    return found


def interpreter(idiom: Path, version: str) -> dict[str, str]:
    provider = idiom / "provider" / version
    done = subprocess.run(
        [sys.executable, "-I", str(RUNNER), str(idiom / "consumer"), str(provider)],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    outcomes: dict[str, str] = json.loads(done.stdout)
    return outcomes


def tool(idiom: Path, version: str, cache: Path) -> dict[str, str]:
    """probe -> the tool's verdict, from its findings inside that probe's function."""
    from auditor.pipeline import audit

    spec = f"acme @ {(idiom / 'provider' / version).as_uri()}"
    report = audit(str(idiom / "consumer" / "widget"), [spec], cache_dir=cache, offline=True)
    verdicts: dict[str, set[str]] = {}
    for finding in report.findings:
        verdicts.setdefault(_probe_of(finding.scope), set()).add(finding.kind.slug)
    return {probe: _reduce(kinds) for probe, kinds in verdicts.items()}


def _probe_of(scope: str) -> str:
    parts = scope.split(".")
    for i, part in enumerate(parts):
        if part.startswith("probe_"):
            return ".".join(parts[: i + 1])
    return scope


def _reduce(kinds: set[str]) -> str:
    if kinds & MISSING:
        return "missing"
    if kinds & TYPE_ERRORS:
        return "TypeError"
    return "warn" if "deprecated" in kinds else "ok"


@pytest.mark.parametrize("idiom", idioms(), ids=lambda p: p.name)
def test_the_tool_agrees_with_the_interpreter(idiom: Path, tmp_path: Path) -> None:
    listed = probes(idiom)
    assert listed, f"{idiom.name}: no probe_* function"
    problems = []
    for version in versions(idiom):
        ran = interpreter(idiom, version)
        said = tool(idiom, version, tmp_path / "cache")
        assert set(ran) == set(listed), (set(ran) ^ set(listed), "probes the runner saw")
        for name, probe in listed.items():
            python = INTERPRETER.get(ran[name], f"other: {ran[name]}")
            ours = said.get(name, "ok")
            expected = "ok" if probe.unknown else python
            if python.startswith("other"):
                problems.append(f"{version} {name}: the fixture raised {ran[name]}")
            elif ours != expected:
                problems.append(f"{version} {name}: python {python}, drift-audit {ours}")
    assert not problems, f"{idiom.name}:\n  " + "\n  ".join(problems)


def test_the_catalogue_is_large_and_every_probe_has_a_purpose() -> None:
    """At least 60 probes over the idioms, each run against at least two versions."""
    total = sum(len(probes(i)) for i in idioms())
    assert total >= 60, total
    assert all(len(versions(i)) >= 2 for i in idioms())
