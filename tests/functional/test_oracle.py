"""The differential oracle: the tool's verdict on every probe equals what the interpreter did.

tests/idioms/<idiom>/ holds a tiny provider `acme` in several versions (provider/<version>/)
and a consumer `widget` whose `probe_*` functions each do one thing with it. For every idiom
and every provider version, tests/idioms/run_probes.py *runs* each probe in a subprocess
(these are our own fixtures) and records what Python did: ok, a provider warning, or the
exception that escaped. The tool audits the same consumer against the same version (no
baseline: every finding is absolute) and its findings inside each probe are reduced to the
same classes:

    removed-module, removed-symbol, probable          -> missing   (ImportError, AttributeError)
    unexpected-keyword, missing-argument,
    too-many-positional, override-mismatch            -> TypeError
    deprecated                                        -> warn
    nothing (or only warnings of other kinds, info)   -> ok

A probe whose source says `# oracle: unknown` is one the analysis cannot decide by design: the
tool must stay silent there whatever Python did (those are counted, for docs/analysis.md).
Any other probe must be decided: a site the tool leaves undecided there (and no finding) is the
verdict `undecided`, which agrees with nothing, unless the probe says `# oracle: by-difference`
(decided only against a baseline) or `# oracle: gap` (a known gap: tolerated, and a gap the
tool now decides everywhere fails until its marker goes).

Then the differential rule, release by release: audited against each version with the one
before it as baseline, the tool's *new* findings in a probe must be what changed in Python:
a probe that ran (ok or warn) and now fails is new with that failure, one that ran and now
warns is a new warning, anything else (still fine, or failing in both) is nothing new. A
probe marked `# oracle: differential` is checked only here (an override of a provider
method can only break by what changed: its absolute verdict is not the tool's to give).
Any disagreement fails the test, naming the probe, the version and both verdicts.
"""

from __future__ import annotations

import ast
import itertools
import json
import os
import shutil
import subprocess
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path

import pytest

IDIOMS = Path(__file__).resolve().parents[1] / "idioms"
RUNNER = IDIOMS / "run_probes.py"
MISSING = frozenset({"removed-module", "removed-symbol", "probable"})  # probable: a warning
# that claims an AttributeError: Python must raise one there
TYPE_ERRORS = frozenset(
    {"unexpected-keyword", "missing-argument", "too-many-positional", "override-mismatch"}
)
UNDECIDED = "undecided"  # no finding, and a site the tool could not decide
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
    differential: bool = False  # `# oracle: differential`: only the release-to-release check
    by_difference: bool = False  # `# oracle: by-difference`: decided only release to release
    gap: bool = False  # `# oracle: gap`: Python decides it, the tool does not yet (undecided)


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
                found[name] = Probe(
                    name,
                    "# oracle: unknown" in body,
                    "# oracle: differential" in body,
                    "# oracle: by-difference" in body,
                    "# oracle: gap" in body,
                )
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


def tool(idiom: Path, version: str, cache: Path, baseline: str | None = None) -> dict[str, str]:
    """probe -> the tool's verdict, from its (new) findings inside that probe's function; a
    probe with a site the tool left undecided (and no finding) is `undecided`."""
    from auditor.model import Status
    from auditor.pipeline import audit

    spec = f"acme @ {(idiom / 'provider' / version).as_uri()}"
    base = f"acme @ {(idiom / 'provider' / baseline).as_uri()}" if baseline else None
    report = audit(
        str(idiom / "consumer" / "widget"), [spec], baseline=base, cache_dir=cache, offline=True
    )
    verdicts: dict[str, set[str]] = {}
    for finding in report.findings:
        if finding.status is Status.NEW:
            verdicts.setdefault(_probe_of(finding.scope), set()).add(finding.kind.slug)
    said = {probe: _reduce(kinds) for probe, kinds in verdicts.items()}
    for entry in report.undecided:
        said.setdefault(_probe_of(entry.scope), UNDECIDED)
    return said


def changed(before: str, after: str) -> str:
    """What a new finding must say when Python went from `before` to `after`."""
    if before in ("ok", "warn") and after not in ("ok", "warn"):
        return after
    if before == "ok" and after == "warn":
        return "warn"
    return "ok"


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


def built(idiom: Path, tmp_path: Path) -> Path:
    """The idiom itself; or, when a provider holds C sources (a compiled module, known to the
    tool only by its stub), a copy with each `.c` built into an extension module beside it."""
    sources = sorted((idiom / "provider").rglob("*.c"))
    if not sources:
        return idiom
    compiler = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler to build the compiled idiom (Debian: apt-get install gcc)")
    copy = tmp_path / idiom.name
    shutil.copytree(idiom, copy, ignore=shutil.ignore_patterns("__pycache__"))
    include = sysconfig.get_paths()["include"]
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    for source in sorted((copy / "provider").rglob("*.c")):
        target = source.with_name(source.stem + suffix)
        subprocess.run(
            [compiler, "-shared", "-fPIC", "-O0", f"-I{include}", str(source), "-o", str(target)],
            check=True, capture_output=True, timeout=120,
        )  # fmt: skip
    return copy


@pytest.mark.parametrize("idiom", idioms(), ids=lambda p: p.name)
def test_the_tool_agrees_with_the_interpreter(idiom: Path, tmp_path: Path) -> None:
    idiom = built(idiom, tmp_path)
    listed = probes(idiom)
    assert listed, f"{idiom.name}: no probe_* function"
    problems = []
    undecided: set[str] = set()  # probes the tool left undecided somewhere
    python: dict[str, dict[str, str]] = {}
    for version in versions(idiom):
        ran = interpreter(idiom, version)
        said = tool(idiom, version, tmp_path / "cache")
        assert set(ran) == set(listed), (set(ran) ^ set(listed), "probes the runner saw")
        python[version] = {n: INTERPRETER.get(o, f"other: {o}") for n, o in ran.items()}
        for name, probe in listed.items():
            verdict, ours = python[version][name], said.get(name, "ok")
            expected = "ok" if probe.unknown else verdict
            if ours == UNDECIDED:
                undecided.add(name)
            if ours == UNDECIDED and (probe.by_difference or probe.gap):
                continue  # decided only release to release, or a known gap: silent
            if ours == UNDECIDED and probe.unknown:
                ours = "ok"  # silent, as it must be
            if verdict.startswith("other"):
                problems.append(f"{version} {name}: the fixture raised {ran[name]}")
            elif ours != expected and not probe.differential:
                problems.append(f"{version} {name}: python {verdict}, drift-audit {ours}")
    ordered = versions(idiom)
    for before, after in itertools.pairwise(ordered):
        said = tool(idiom, after, tmp_path / "cache", baseline=before)
        for name, probe in listed.items():
            if probe.unknown:
                continue
            expected = changed(python[before][name], python[after][name])
            ours = said.get(name, "ok")
            if ours == UNDECIDED:
                undecided.add(name)
            if ours == UNDECIDED and probe.gap:
                continue  # a known gap: silent
            if ours == UNDECIDED and probe.differential:
                ours = "ok"  # an override: only what changed is the tool's to say
            if ours != expected:
                problems.append(
                    f"{before}->{after} {name}: python {python[before][name]} -> "
                    f"{python[after][name]}, drift-audit new {ours}"
                )
    problems.extend(
        f"{name}: marked `# oracle: gap` but decided everywhere now: remove the marker"
        for name, probe in listed.items()
        if probe.gap and name not in undecided
    )
    assert not problems, f"{idiom.name}:\n  " + "\n  ".join(problems)


def test_the_catalogue_is_large_and_every_probe_has_a_purpose() -> None:
    """At least 60 probes over the idioms, each run against at least two versions."""
    total = sum(len(probes(i)) for i in idioms())
    assert total >= 60, total
    assert all(len(versions(i)) >= 2 for i in idioms())
