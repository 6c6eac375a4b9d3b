"""Memoized lookups: answer from earlier audits when the provider files read are unchanged.

What it owns: `ResolutionMemo`, a persistent map from a lookup (`vllm.x.Scheduler`,
module-only or not) to the answers it gave before, each with the modules it depended on and
the sha256 of each module's file; and `MemoizedProvider`, the object the pipeline resolves
through. A lookup whose every dependency still hashes the same is answered from the memo,
without griffe (which is not even imported on a fully warm run); otherwise the real
`ProviderAPI` resolves it and the memo records the answer. Releases share entries: a module
that did not change between 0.15 and 0.16 is parsed at most once. A path under a top-level
name the release does not ship reads no file and is never memoized: `Absent` says what it is
(a removed module when another release of the provider ships the name, else unknown).

What it takes: a SourceTree and a memo file under the cache. What it gives: Resolutions.
Entries are keyed by the analysis version (a hash of this package's source), so a change to
the provider analysis never reuses stale answers. Writes are atomic.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from auditor.files import Confined, confined
from auditor.jsontext import loads
from auditor.model import (
    Lookup,
    Param,
    ParamKind,
    Resolution,
    Signature,
    Symbol,
    SymbolKind,
    interpreter,
)
from auditor.provider.paths import candidates
from auditor.sources import file_digest, folder_entries, has_extension
from auditor.sources.stdlib import with_stdlib

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from auditor.provider.api import ProviderAPI
    from auditor.sources import SourceTree

logger = logging.getLogger("drift_audit")
FORMAT = 1
MAX_MEMO_BYTES = 256 << 20
Deps = tuple[tuple[str, str], ...]  # (module name, digest of its file) sorted


@dataclass(frozen=True)
class Absent:
    """A top-level name of the provider that one release does not ship: `removed` (a
    lookup into it is a removed module) or not (unknown: something else may provide it),
    and why, in words."""

    removed: bool
    why: str


@lru_cache(maxsize=1)
def analysis_version() -> str:
    """A hash of the provider analysis code and of the Python running it: memo entries never
    outlive a change to the code, nor serve another Python (model.interpreter)."""
    digest = hashlib.sha256(interpreter().encode())
    here = Path(__file__).parent
    stdlib = here.parent / "sources" / "stdlib.py"  # how the standard library's stubs read
    for path in sorted([*here.glob("*.py"), here.parent / "model.py", stdlib]):
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


class ResolutionMemo:
    """Lookups answered before, per provider distribution, persisted as JSON."""

    def __init__(self, path: Path | None, root: Path | None = None) -> None:
        """`path`: the memo file; `root`: the cache folder it lies in (nothing below it is
        followed as a link; default the memo's own folder)."""
        self.path = path
        self._entries: dict[str, list[tuple[Deps, Any]]] = {}
        self._unread: dict[str, list[Any]] = {}  # key -> its stored rows, checked when asked
        # key -> the modules an entry depends on -> their digests -> (entry's rank, value)
        self._index: dict[str, dict[tuple[str, ...], dict[tuple[str, ...], tuple[int, Any]]]] = {}
        self.indexed = not os.environ.get("DRIFT_AUDIT_NO_MEMO_INDEX")
        self._dirty = False
        self._decoded: dict[int, tuple[Any, Resolution]] = {}  # id(value) -> (value, it read)
        self.hits = 0
        self.misses = 0
        self.answered: set[str] = set()  # modules whose lookups a hit answered unparsed
        self.answered_earlier: set[str] = set()  # of those, by what an earlier run stored
        self._made_here: set[int] = set()  # id() of the values stored in this run
        self._store = confined(path, root) if path is not None else None
        if self._store is not None:
            self._load(*self._store)

    @classmethod
    def for_cache(cls, cache_root: Path | None, provider: str) -> ResolutionMemo:
        if cache_root is None:
            return cls(None)
        path = cache_root / "resolutions" / analysis_version() / f"{provider}.json"
        return cls(path, cache_root)

    def lookup(self, key: str, digest_of: Any) -> Any:
        """The first stored answer whose every dependency has the digest it had then.

        Indexed: entries are grouped by the modules they depend on, each group a table from
        those modules' digests to the answer, so a lookup costs one probe per group, not a
        comparison per entry (a 35-release timeline stores ~35 entries per key).
        DRIFT_AUDIT_NO_MEMO_INDEX=1 compares entry by entry, as before."""
        found = self.lookup_with_modules(key, digest_of)
        return None if found is None else found[0]

    def lookup_with_modules(self, key: str, digest_of: Any) -> tuple[Any, tuple[str, ...]] | None:
        """lookup(), and the modules the answer depends on."""
        if self.indexed:
            return self._indexed_lookup(key, digest_of)
        for deps, value in self._rows(key):
            if all(digest_of(module) == digest for module, digest in deps):
                modules = tuple(module for module, _ in deps)
                self.count_hit(modules, earlier=self.stored_earlier(value))
                return value, modules
        self.misses += 1
        return None

    def count_hit(self, modules: tuple[str, ...], *, earlier: bool) -> None:
        """A lookup answered (from here, or from what a hit here gave before in this run);
        `earlier`: by an answer an earlier run stored, not one made in this run."""
        self.hits += 1
        self.answered.update(modules)
        if earlier:
            self.answered_earlier.update(modules)

    def stored_earlier(self, value: Any) -> bool:
        """Whether a stored answer was read from the memo file (an earlier run's), not
        stored by this run."""
        return id(value) not in self._made_here

    def _indexed_lookup(self, key: str, digest_of: Any) -> tuple[Any, tuple[str, ...]] | None:
        groups = self._index.get(key)
        if groups is None:
            groups = self._index[key] = self._groups(key)
        best: tuple[int, Any] | None = None
        found: tuple[str, ...] = ()
        for modules, table in groups.items():
            entry = table.get(tuple(digest_of(m) for m in modules))
            if entry is not None and (best is None or entry[0] < best[0]):
                best, found = entry, modules
        if best is None:
            self.misses += 1
            return None
        self.count_hit(found, earlier=self.stored_earlier(best[1]))
        return best[1], found

    def _groups(self, key: str) -> dict[tuple[str, ...], dict[tuple[str, ...], tuple[int, Any]]]:
        groups: dict[tuple[str, ...], dict[tuple[str, ...], tuple[int, Any]]] = {}
        for rank, (deps, value) in enumerate(self._rows(key)):
            modules = tuple(m for m, _ in deps)
            table = groups.setdefault(modules, {})
            table.setdefault(tuple(d for _, d in deps), (rank, value))
        return groups

    def store(self, key: str, deps: Deps, value: Any) -> None:
        self._rows(key)
        entries = self._entries.setdefault(key, [])
        if all(existing != deps for existing, _ in entries):
            entries.append((deps, value))
            self._made_here.add(id(value))  # kept alive by the entry, so the id stays its own
            self._index.pop(key, None)  # regrouped on the next lookup
            self._dirty = True

    @property
    def modules_answered(self) -> int:
        return len(self.answered)

    @property
    def modules_answered_earlier(self) -> int:
        """Modules answered by what earlier runs stored (the rest of modules_answered were
        answered by lookups made earlier in this run: another release's, or a repeat)."""
        return len(self.answered_earlier)

    def save(self) -> None:
        """Write the memo atomically (a temp file renamed into place); errors only warn."""
        if self.path is None or not self._dirty:
            return
        for key in list(self._unread):
            self._rows(key)  # what does not fit is left out, as ever
        document = {
            "format": FORMAT,
            "entries": {
                key: [[list(map(list, deps)), value] for deps, value in entries]
                for key, entries in sorted(self._entries.items())
            },
        }
        assert self._store is not None
        fs, rel = self._store
        try:
            fs.write(rel, json.dumps(document, separators=(",", ":")).encode())
            self._dirty = False
        except OSError as error:
            logger.warning("could not write the lookup memo %s: %s", self.path, error)

    def _load(self, fs: Confined, rel: str) -> None:
        """Read the memo; an absent, corrupt or oddly shaped file (it is only a memo, and the
        cache is untrusted) leaves it empty, or without the entries that do not fit."""
        try:
            raw = fs.read(rel, limit=MAX_MEMO_BYTES)
            document = loads(raw) if raw is not None else None
        except (OSError, ValueError, RecursionError):
            return
        if not isinstance(document, dict) or document.get("format") != FORMAT:
            return
        entries = document.get("entries")
        for key, rows in entries.items() if isinstance(entries, dict) else ():
            if isinstance(rows, list):
                self._unread[key] = rows

    def _rows(self, key: str) -> list[tuple[Deps, Any]]:
        """The entries of one key, its stored rows checked on the first ask (a run asks a
        few hundred of the thousands a timeline keeps); a row that does not fit is dropped."""
        rows = self._unread.pop(key, None)
        if rows is not None:
            kept = []
            for row in rows:
                entry = _entry(key, row)
                if entry is not None:
                    kept.append(entry)
            if kept:
                self._entries[key] = kept
        return self._entries.get(key, [])

    def resolution(self, key: str, value: Any) -> Resolution | None:
        """A stored resolution's value read back, once per run (a timeline's releases share
        most answers), and only when a lookup gives it (a key keeps one answer per release
        of a timeline; a run asks for one or a few). None when it does not read back: the
        entry is then forgotten, and the lookup counted as the miss it is."""
        known = self._decoded.get(id(value))
        if known is not None and known[0] is value:
            return known[1]
        try:
            resolution: Resolution | None = resolution_from_json(value)
        except (KeyError, TypeError, ValueError, AttributeError):
            resolution = None
        if resolution is None or not _well_typed(resolution):
            self._entries[key] = [e for e in self._rows(key) if e[1] is not value]
            self._index.pop(key, None)
            self._dirty = True
            self.hits, self.misses = self.hits - 1, self.misses + 1
            return None
        self._decoded[id(value)] = (value, resolution)
        return resolution


def _entry(key: str, row: object) -> tuple[Deps, Any] | None:
    """One stored (deps, value) pair, if it has the shape save() writes (a resolution's
    value is read back when a lookup gives it: ResolutionMemo.resolution)."""
    if not isinstance(row, list) or len(row) != 2 or not isinstance(row[0], list):
        return None
    deps_rows, value = row
    if not all(
        isinstance(d, list) and len(d) == 2 and all(isinstance(x, str) for x in d)
        for d in deps_rows
    ):
        return None
    if key.startswith("moved:"):
        if not isinstance(value, dict) or not isinstance(value.get("found"), (str, type(None))):
            return None
    elif not isinstance(value, dict):
        return None
    return tuple((m, d) for m, d in deps_rows), value


def _well_typed(resolution: Resolution) -> bool:
    """Whether every text field of a Resolution read back is text (or None where allowed)."""
    symbol = resolution.symbol
    flags: list[object] = [resolution.closed, symbol.unknown_closed if symbol else False]
    if not all(isinstance(flag, bool) for flag in flags):  # read back from JSON: any type
        return False
    texts: list[object] = [resolution.path]
    optional: list[object] = [resolution.missing, resolution.detail]
    if symbol is not None:
        texts += [symbol.path, *symbol.deprecated_params, *(n for p in symbol.renamed for n in p)]
        texts += [*symbol.forward_taken, *symbol.forward_added]
        limit: object = symbol.positional_limit
        if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool)):
            return False
        optional += [symbol.why_unknown, symbol.deprecated, symbol.forwards, symbol.forward_unless]
        if symbol.signature is not None:
            texts += [p.name for p in symbol.signature.params]
            optional += [symbol.signature.returns]
            optional += [x for p in symbol.signature.params for x in (p.default, p.annotation)]
    return all(isinstance(t, str) for t in texts) and all(
        o is None or isinstance(o, str) for o in optional
    )


LISTED = "listed:"  # a memo dependency on a package folder's listing, not on a module


class MemoizedProvider:
    """The pipeline's resolver for one release: the memo first, griffe only on a miss."""

    def __init__(
        self,
        tree: SourceTree,
        import_names: Iterable[str],
        version: str | None,
        memo: ResolutionMemo,
        absent: Mapping[str, Absent] | None = None,
    ) -> None:
        """`absent`: top-level names of the provider this release does not ship, and what
        a lookup into each answers (releases.absent_names): a removed module, or unknown."""
        self.import_names = frozenset(import_names)
        self.tree = with_stdlib(tree, self.import_names)  # the standard library's stubs too
        self.version = version
        self.memo = memo
        self.absent = dict(absent or {})
        self._api: ProviderAPI | None = None
        self._digests: dict[str, str] = {}
        # one release answers a key one way (not kept with DRIFT_AUDIT_NO_MEMO_INDEX=1):
        # the answer, the modules it rests on, and whether an earlier run's memo gave it
        self._resolved: dict[str, tuple[Resolution, tuple[str, ...], bool]] = {}

    @property
    def modules_loaded(self) -> int:
        return self._api.modules_loaded if self._api is not None else 0

    def resolve(
        self, dotted: str, *, module_only: bool = False, from_import: bool = False
    ) -> Resolution:
        outside = self._outside(dotted)
        if outside is not None:
            return outside
        key = f"{dotted}|{int(module_only)}" + ("|from" if from_import else "")
        known = self._resolved.get(key)
        if known is not None:  # counted as the memo hit it would have been
            self.memo.count_hit(known[1], earlier=known[2])
            return known[0]
        stored = self.memo.lookup_with_modules(key, self._digest)
        if stored is not None and (resolution := self.memo.resolution(key, stored[0])) is not None:
            self._keep(key, resolution, stored[1], earlier=self.memo.stored_earlier(stored[0]))
            return resolution
        real = self._real()
        resolution, modules = real.resolve_tracked(
            dotted, module_only=module_only, from_import=from_import
        )
        deps = self._deps(modules)
        self.memo.store(key, deps, resolution_to_json(resolution))
        self._keep(key, resolution, tuple(m for m, _ in deps), earlier=False)
        return resolution

    def deps_of(
        self, dotted: str, module_only: bool = False, from_import: bool = False
    ) -> tuple[tuple[str, str], ...] | None:
        """The modules a lookup made in this release rests on, each with the digest of its
        files (difference.py); () for a name the release does not ship; None when not kept
        (DRIFT_AUDIT_NO_MEMO_INDEX=1) or not asked."""
        if self._outside(dotted) is not None:
            return ()
        key = f"{dotted}|{int(module_only)}" + ("|from" if from_import else "")
        known = self._resolved.get(key)
        if known is None:
            return None
        return tuple((module, self._digest(module)) for module in known[1])

    def _keep(
        self, key: str, resolution: Resolution, modules: tuple[str, ...], *, earlier: bool
    ) -> None:
        if self.memo.indexed:
            self._resolved[key] = (resolution, modules, earlier)

    def _outside(self, dotted: str) -> Resolution | None:
        """The answer for a path under a top-level name this release does not ship, never
        memoized: it reads no file, and rests on which names the run counts as the
        provider's (a module another release of it ships is removed here)."""
        top = dotted.split(".", 1)[0]
        if top in self.import_names:
            return None
        absent = self.absent.get(top)
        if absent is not None and absent.removed:
            return Resolution(Lookup.MISSING_MODULE, dotted, missing=top, detail=absent.why)
        why = absent.why if absent is not None else f"{dotted} is outside the provider"
        return Resolution(Lookup.UNKNOWN, dotted, detail=why)

    def moved(self, dotted: str) -> str | None:
        # a gone top-level name is searched for from the release's own packages (moves.py)
        gone = dotted.split(".", 1)[0] not in self.import_names
        key = f"moved:{dotted}" + ("|gone" if gone else "")
        stored = self.memo.lookup(key, self._digest)
        if stored is not None:
            return str(stored["found"]) if stored["found"] else None
        api = self._real()
        found = api.moved(dotted)
        basis = api.move_basis()  # the texts and folder listings the search read too
        if basis is None:  # a file it needed could not be fetched: nothing to keep
            return found
        deps = (*api.loaded_modules(), *basis[0], *(LISTED + folder for folder in basis[1]))
        self.memo.store(key, self._deps(deps), {"found": found})
        return found

    def _real(self) -> ProviderAPI:
        if self._api is None:
            from auditor.provider.api import ProviderAPI

            self._api = ProviderAPI(self.tree, self.import_names, self.version)
        return self._api

    def _deps(self, modules: Iterable[str]) -> Deps:
        return tuple(sorted((m, self._digest(m)) for m in set(modules)))

    def _digest(self, module: str) -> str:
        """What a module is in this tree: its file's sha256, a namespace folder, or absent."""
        if module not in self._digests:
            self._digests[module] = self._compute_digest(module)
        return self._digests[module]

    def _compute_digest(self, module: str) -> str:
        """Every file that may hold the module counts: the source that runs and a stub
        beside it (a lazy loader's `attach_stub` reads the `.pyi` of a `.py` package). A
        `LISTED` package stands for its folder's listing (moves.py lists folders)."""
        if module.startswith(LISTED):
            package = module.removeprefix(LISTED)
            return "listed:" + repr(folder_entries(self.tree, package.replace(".", "/")))
        base = module.replace(".", "/")
        found = []
        for candidate in candidates(module):
            try:
                digest = file_digest(self.tree, candidate)
            except (UnicodeDecodeError, OSError):
                return f"{candidate}:unreadable"  # the resolver reports such a module unknown
            if digest is not None:
                found.append(f"{candidate}:{digest}")
        if found:
            return " ".join(found)
        if has_extension(self.tree, base):
            return "compiled"  # an extension module with no stub: opaque
        return "namespace" if self.tree.is_dir(base) else "absent"


# ---------------------------------------------------------------------- (de)serialising


def resolution_to_json(resolution: Resolution) -> dict[str, Any]:
    symbol = resolution.symbol
    return {
        "status": resolution.status.value,
        "path": resolution.path,
        "missing": resolution.missing,
        "detail": resolution.detail,
        "closed": resolution.closed,
        "symbol": None if symbol is None else _symbol_to_json(symbol),
    }


def resolution_from_json(data: dict[str, Any]) -> Resolution:
    symbol = data.get("symbol")
    return Resolution(
        status=Lookup(data["status"]),
        path=data["path"],
        symbol=None if symbol is None else _symbol_from_json(symbol),
        missing=data.get("missing"),
        detail=data.get("detail"),
        closed=data.get("closed", False),
    )


def _symbol_to_json(symbol: Symbol) -> dict[str, Any]:
    signature = symbol.signature
    return {
        "path": symbol.path,
        "kind": symbol.kind.value,
        "why_unknown": symbol.why_unknown,
        "unknown_closed": symbol.unknown_closed,
        "deprecated": symbol.deprecated,
        "deprecated_params": list(symbol.deprecated_params),
        "renamed": [list(pair) for pair in symbol.renamed],
        "positional_limit": symbol.positional_limit,
        "reconstructs": symbol.reconstructs,
        "forwards": symbol.forwards,
        "forward_unless": symbol.forward_unless,
        "forward_taken": list(symbol.forward_taken),
        "forward_added": list(symbol.forward_added),
        "compiled": symbol.compiled,
        "returns": None if signature is None else signature.returns,
        "params": None
        if signature is None
        else [[p.name, p.kind.value, p.default, p.annotation] for p in signature.params],
    }


def _symbol_from_json(data: dict[str, Any]) -> Symbol:
    params = data.get("params")
    signature = None
    if params is not None:
        signature = Signature(
            tuple(Param(n, ParamKind(k), d, a) for n, k, d, a in params), data.get("returns")
        )
    return Symbol(
        path=data["path"],
        kind=SymbolKind(data["kind"]),
        signature=signature,
        why_unknown=data.get("why_unknown"),
        unknown_closed=data.get("unknown_closed", False),
        deprecated=data.get("deprecated"),
        deprecated_params=tuple(data.get("deprecated_params", ())),
        renamed=tuple((str(a), str(b)) for a, b in data.get("renamed", ())),
        positional_limit=data.get("positional_limit"),
        reconstructs=data.get("reconstructs") is True,
        forwards=data.get("forwards"),
        forward_unless=data.get("forward_unless"),
        forward_taken=tuple(data.get("forward_taken", ())),
        forward_added=tuple(data.get("forward_added", ())),
        compiled=data.get("compiled") is True,
    )
