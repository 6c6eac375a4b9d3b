"""The figures the docs quote, each from one source, and the check that every doc agrees.

A figure in a doc is written between markers, which Markdown does not show:

    the oracle runs <!-- fig:idioms.probes -->302<!-- /fig --> probes

and the value between them must be the figure of that name. Where each comes from:

    idioms.*     tests/idioms/, read as the oracle reads it (tests/functional/test_oracle.py):
                 idioms, probes, probe runs (a probe against each provider version), and the
                 probes marked `# oracle: unknown`, `gap`, `by-difference`
    cases.*      tests/cases/: the fixture cases (one folder each)
    realworld.*  tests/realworld/*/case.toml, counted as summary.py counts them: cases,
                 breaks, break sites, found (required expectations without `missed`), ...
    world.*      tests/world/results.json (`make world` writes it): its `overall` figures,
                 precision and recall to two places, and the families
    bench.*      the newest row of benchmarks/results.md (`make bench` appends it), by column
                 (`bench.cold_wall`; a column of several, `whole wheels + griffe (wall /
                 fetched / peak)`, as `bench.whole_wheels_griffe.wall` ...)
    tests.*      pytest's collection: every test, those `make test-fast` runs (not marked
                 network), those marked network, and per file the network ones
                 (`tests.network.realworld.test_realworld`)

docs/figures.json keeps every figure as last written. The check (`--check`, and
tests/functional/test_docfigures.py) fails when a marked figure in a doc is not the one in
docs/figures.json, when a marker names no figure, or when a figure docs/figures.json keeps
is no longer what its source gives now (every source but pytest's collection, which is
slow: that one is recomputed by --write only).

    python -m tests.docfigures --check      # exit 1 naming each figure that differs
    python -m tests.docfigures --write      # recompute everything, rewrite the json and docs
    python -m tests.docfigures --write --no-collect   # the same, keeping the test counts
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping

REPO = Path(__file__).resolve().parents[1]
FIGURES = REPO / "docs" / "figures.json"
MARKER = re.compile(r"<!-- fig:([A-Za-z0-9_.-]+) -->(.*?)<!-- /fig -->", re.DOTALL)
COLLECTED = "tests."  # the figures only --write recomputes (pytest's collection)


def documents(repo: Path = REPO) -> list[Path]:
    """The docs whose markers are checked: README.md, docs/*.md, tests/*/README.md."""
    found = [repo / "README.md", *sorted((repo / "docs").glob("*.md"))]
    found += sorted((repo / "tests").glob("*/README.md"))
    return [path for path in found if path.is_file()]


# --------------------------------------------------------------------------- formatting


def count(value: int) -> str:
    """An integer as the docs write it: 1,820."""
    return f"{value:,}"


def ratio(value: float | None) -> str:
    """A precision or recall to two places (1.00, 0.93); `n/a` for none."""
    return "n/a" if value is None else f"{value:.2f}"


def percent(part: int, whole: int) -> str:
    return f"{part / whole:.0%}" if whole else "n/a"


# --------------------------------------------------------------------------- sources


def idiom_figures() -> dict[str, str]:
    sys.path.insert(0, str(REPO))
    from tests.functional.test_oracle import idioms, probes, versions

    listed = idioms()
    read = {idiom: probes(idiom) for idiom in listed}
    every = [p for found in read.values() for p in found.values()]
    runs = sum(len(found) * len(versions(idiom)) for idiom, found in read.items())
    return {
        "idioms.idioms": count(len(listed)),
        "idioms.probes": count(len(every)),
        "idioms.runs": count(runs),
        "idioms.unknown": count(sum(p.unknown for p in every)),
        "idioms.gap": count(sum(p.gap for p in every)),
        "idioms.by_difference": count(sum(p.by_difference for p in every)),
    }


def case_figures() -> dict[str, str]:
    folders = [p for p in (REPO / "tests" / "cases").iterdir() if p.is_dir()]
    return {"cases.cases": count(sum(1 for p in folders if not p.name.startswith(("_", "."))))}


def realworld_figures() -> dict[str, str]:
    sys.path.insert(0, str(REPO / "tests" / "realworld"))
    import test_realworld as corpus

    cases = corpus.CASES
    breaks = [c for c in cases if c.breaking]
    required = {c.name: [e for e in c.expects if not e.optional] for c in breaks}
    sites = sum(len(found) for found in required.values())
    found = sum(1 for wanted in required.values() for e in wanted if not e.missed)
    fully = sum(1 for wanted in required.values() if not any(e.missed for e in wanted))
    releases = {spec for c in cases for spec in (c.consumer, c.target, c.baseline)}
    return {
        "realworld.cases": count(len(cases)),
        "realworld.breaks": count(len(breaks)),
        "realworld.pairs": count(len(cases) - len(breaks)),
        "realworld.sites": count(sites),
        "realworld.found": count(found),
        "realworld.recall": percent(found, sites),
        "realworld.fully": count(fully),
        "realworld.families": count(len({c.target.split("==")[0] for c in cases})),
        "realworld.releases": count(len(releases)),
    }


def world_figures() -> dict[str, str]:
    data = json.loads((REPO / "tests" / "world" / "results.json").read_text(encoding="utf-8"))
    overall: dict[str, Any] = data["overall"]
    out = {
        f"world.{key}": ratio(value) if key in ("precision", "recall") else count(value)
        for key, value in overall.items()
        if isinstance(value, (int, float)) and not isinstance(value, bool)
    }
    out["world.families"] = count(len(data["families"]))
    return out


def bench_figures() -> dict[str, str]:
    """The newest row of benchmarks/results.md's table, one figure per column."""
    lines = (REPO / "benchmarks" / "results.md").read_text(encoding="utf-8").splitlines()
    rows = [_cells(line) for line in lines if line.startswith("|")]
    header, *body = [r for r in rows if not all(set(c) <= set("-: ") for c in r)]
    newest = body[-1]
    out: dict[str, str] = {}
    for title, cell in zip(header, newest, strict=True):
        name, _, parts = title.partition("(")
        slug = _slug(name)
        subparts = [_slug(p) for p in parts.rstrip(")").split("/")] if parts else []
        values = [v.strip() for v in cell.split(" / ")]
        if len(subparts) > 1 and len(values) == len(subparts):
            out.update({f"bench.{slug}.{p}": v for p, v in zip(subparts, values, strict=True)})
        else:
            out[f"bench.{slug}"] = cell
    return out


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


def collected_figures() -> dict[str, str]:
    """Collected tests (slow: pytest collects the whole suite, twice)."""
    every = _collected([])
    network = _collected(["-m", "network"])
    out = {
        "tests.total": count(len(every)),
        "tests.fast": count(len(every) - len(network)),
        "tests.network": count(len(network)),
    }
    per_file = Counter(node.split("::", 1)[0] for node in network)
    for path, found in per_file.items():
        name = path.removeprefix("tests/").removesuffix(".py").replace("/", ".")
        out[f"tests.network.{name}"] = count(found)
    return out


def _collected(args: list[str]) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *args],
        cwd=REPO, capture_output=True, text=True, check=False, timeout=1800,
    )  # fmt: skip
    if done.returncode not in (0, 5):  # 5: nothing collected
        raise SystemExit(f"pytest --collect-only failed:\n{done.stdout}\n{done.stderr}")
    return [line for line in done.stdout.splitlines() if "::" in line]


SOURCES: dict[str, Callable[[], dict[str, str]]] = {
    "idioms": idiom_figures,
    "cases": case_figures,
    "realworld": realworld_figures,
    "world": world_figures,
    "bench": bench_figures,
}


def computed(*, collect: bool) -> dict[str, str]:
    """Every figure from its source now (pytest's collection only when `collect`)."""
    out: dict[str, str] = {}
    for source in SOURCES.values():
        out.update(source())
    if collect:
        out.update(collected_figures())
    return dict(sorted(out.items()))


# --------------------------------------------------------------------------- the docs


def markers(text: str) -> list[tuple[str, str]]:
    """(figure name, the value written) of every marker in a doc, in order."""
    return [(m.group(1), m.group(2)) for m in MARKER.finditer(text)]


def rewrite(text: str, figures: Mapping[str, str]) -> str:
    """The doc with every marked value replaced by its figure (unknown names left as they are)."""

    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        shown = figures.get(name, match.group(2))
        return f"<!-- fig:{name} -->{shown}<!-- /fig -->"

    return MARKER.sub(value, text)


def problems(
    figures: Mapping[str, str], now: Mapping[str, str], docs: Iterable[Path], repo: Path = REPO
) -> list[str]:
    """Each disagreement, one line: a doc's figure against docs/figures.json, a marker naming
    no figure, and a kept figure against what its source gives `now`."""
    found = []
    for name, value in sorted(now.items()):
        if name in figures and figures[name] != value:
            found.append(f"docs/figures.json: {name} is {figures[name]}, its source gives {value}")
        elif name not in figures:
            found.append(f"docs/figures.json: {name} ({value}) is missing")
    for path in docs:
        where = path.relative_to(repo).as_posix() if path.is_relative_to(repo) else str(path)
        for name, value in markers(path.read_text(encoding="utf-8")):
            if name not in figures:
                found.append(f"{where}: no figure named {name!r}")
            elif value != figures[name]:
                found.append(f"{where}: {name} is written {value}, the figure is {figures[name]}")
    return found


def kept(path: Path = FIGURES) -> dict[str, str]:
    if not path.is_file():
        return {}
    data: dict[str, str] = json.loads(path.read_text(encoding="utf-8"))
    return data


def check() -> list[str]:
    """What --check reports: [] when every doc agrees with every source."""
    return problems(kept(), computed(collect=False), documents())


def write(*, collect: bool) -> list[Path]:
    """Recompute docs/figures.json (keeping the test counts without `collect`) and rewrite
    every marked figure in the docs; the files changed."""
    figures = {k: v for k, v in kept().items() if k.startswith(COLLECTED) and not collect}
    figures.update(computed(collect=collect))
    figures = dict(sorted(figures.items()))
    changed = []
    text = json.dumps(figures, indent=2) + "\n"
    if not FIGURES.is_file() or FIGURES.read_text(encoding="utf-8") != text:
        FIGURES.write_text(text, encoding="utf-8")
        changed.append(FIGURES)
    for path in documents():
        old = path.read_text(encoding="utf-8")
        new = rewrite(old, figures)
        if new != old:
            path.write_text(new, encoding="utf-8")
            changed.append(path)
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.docfigures", description=__doc__)
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true", help="report each figure that differs")
    mode.add_argument("--write", action="store_true", help="recompute and rewrite the figures")
    parser.add_argument(
        "--no-collect", action="store_true", help="with --write: keep the test counts"
    )
    args = parser.parse_args(argv)
    if args.write:
        for path in write(collect=not args.no_collect):
            print(f"rewrote {path.relative_to(REPO)}")
        return 0
    found = check()
    for line in found:
        print(line)
    if found:
        print("run `python -m tests.docfigures --write` to bring them in line", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
