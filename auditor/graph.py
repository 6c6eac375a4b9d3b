"""Call graph: which consumer entry points reach which provider site, and by what chain.

What it owns: a networkx DiGraph of the consumer's modules, classes and functions (nodes), the
references between them (edges, from scan/), and an edge from each consumer scope to every
provider symbol it reaches (nodes named `provider:<dotted path>`); and which consumer
definitions count as entry points. networkx stays behind this door.

What it takes: a `ConsumerScan`, and the object references of the consumer's declared entry
points (console scripts and other entry points from its metadata, `pkg.cli:main`). What it
gives: `CallGraph.reached_from(scope)`, the shortest chains of consumer dotted paths from an
entry point to a scope; `imported_outside_tests`, the files named like test files that the
consumer's other code reaches (they run in production); and the graph itself for reporters
that want to draw it.

Entry points, in two tiers. First: the declared ones (a `module:attr` reference becomes the
definition `module.attr`, or the module when the attribute is not a definition of it); the
public API, i.e. the names the top-level package exports (its `__all__`, else every public
name its `__init__` binds), followed through re-exports to where they are defined; and every
`__main__` module. A scope none of those reaches falls back to the second tier, the consumer's
public modules (no `_private` part): importing one runs it and exposes what it defines.
"""

from __future__ import annotations

import ast
import contextlib
import hashlib
import json
import os
from functools import cached_property
from typing import TYPE_CHECKING, Any

from auditor.files import confined

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping
    from pathlib import Path

    from auditor.files import Confined
    from auditor.model import ConsumerScan

MAX_CHAINS = 3
MAX_ENTRY_WALKS = 64  # entry points walked one by one for their distances (_keep_for_entries)
MAX_STORE_BYTES = 64 << 20
MAX_REEXPORTS = 10  # re-export hops followed from the top package to a definition
_INIT_NAMES = ("/__init__.py", "/__init__.pyi", ".py", ".pyi")


class CallGraph:
    """Built on first use, when a chain is asked for, and not even then when `store` already
    holds the chains of a graph of this shape; networkx only for `graph` itself."""

    def __init__(
        self,
        scan: ConsumerScan,
        entry_points: Iterable[str] = (),
        store: Path | None = None,
        root: Path | None = None,
        complete: Callable[[], ConsumerScan] | None = None,
    ) -> None:
        self._given = scan
        self._complete = complete
        self._declared = tuple(entry_points)
        self._store_folder = store
        self._root = root
        self._cache: dict[str, tuple[tuple[str, ...], ...]] = {}
        self._new = False

    @cached_property
    def _scan(self) -> ConsumerScan:
        """Every definition and edge: the complete scan, asked for only when a chain is
        (a scan that walked only the files reaching the provider has not got them all)."""
        return self._complete() if self._complete is not None else self._given

    @cached_property
    def entry_points(self) -> frozenset[str]:
        exports = _Exports(self._scan)
        declared = {t for ref in self._declared if (t := exports.reference(ref)) is not None}
        mains = {m for m in self._modules if m.rsplit(".", 1)[-1] == "__main__"}
        return frozenset(declared | exports.public_api() | mains)

    @cached_property
    def public_modules(self) -> frozenset[str]:
        return frozenset(m for m in self._modules if _is_public(m))

    @cached_property
    def _modules(self) -> list[str]:
        return [d.name for d in self._scan.definitions if d.kind == "module"]

    @cached_property
    def _store(self) -> tuple[Confined, str] | None:
        folder = self._store_folder
        path = folder / f"{self.fingerprint()}.json" if folder is not None else None
        return confined(path, self._root) if path is not None else None

    @cached_property
    def _stored(self) -> dict[str, list[list[str]]]:
        return _load_chains(self._store)

    def fingerprint(self) -> str:
        """A hash of what the chains depend on: names, edges, sites' scopes, entry points
        (not line numbers: an edit that keeps who-calls-whom keeps every chain)."""
        digest = hashlib.sha256()
        parts = [
            sorted(f"{d.name}|{d.kind}" for d in self._scan.definitions),
            sorted(f"{e.caller}>{e.callee}" for e in self._scan.edges),
            sorted({f"{s.scope}>{s.target}" for s in self._scan.sites}),
            sorted(self.entry_points),
            sorted(self.public_modules),
        ]
        for part in parts:
            digest.update("\n".join(part).encode())
            digest.update(b"\x00")
        return digest.hexdigest()[:32]

    def save(self) -> None:
        """Keep the chains computed in this run for the next one (atomic; errors ignored)."""
        if not self._new or self._store is None:
            return
        document = {scope: [list(c) for c in chains] for scope, chains in self._cache.items()}
        document.update({k: v for k, v in self._stored.items() if k not in document})
        fs, rel = self._store
        with contextlib.suppress(OSError):
            fs.write(rel, json.dumps(document, sort_keys=True).encode())

    @cached_property
    def graph(self) -> Any:
        """The networkx DiGraph: definitions, their references, and edges into the provider."""
        import networkx as nx

        graph = nx.DiGraph()
        for definition in self._scan.definitions:
            graph.add_node(definition.name, kind=definition.kind)
        for edge in self._scan.edges:
            graph.add_edge(edge.caller, edge.callee)
        for site in self._scan.sites:
            graph.add_edge(site.scope, f"provider:{site.target}", action=site.action.value)
        return graph

    def imported_outside_tests(self, is_test: Callable[[str], bool]) -> frozenset[str]:
        """The consumer files named like test files (`is_test`, on a file's path) that code
        in other files reaches: a module that library code imports or calls into runs in
        production, and so does what it imports in turn, so none of them is a test file."""
        where = {d.name: d.location.path for d in self._scan.definitions}
        uses: dict[str, set[str]] = {}
        for edge in self._scan.edges:
            caller, callee = where.get(edge.caller), where.get(edge.callee)
            if caller is not None and callee is not None and caller != callee:
                uses.setdefault(caller, set()).add(callee)
        reached = {path for path in where.values() if not is_test(path)}
        level = set(reached)
        while level:
            level = {p for path in level for p in uses.get(path, ())} - reached
            reached |= level
        return frozenset(path for path in reached if is_test(path))

    def reached_from(self, scope: str) -> tuple[tuple[str, ...], ...]:
        """Up to three shortest chains entry point -> ... -> scope (entry point first).

        From the declared entry points, the public API and `__main__` modules; when none of
        them reaches the scope, from the public modules.
        """
        if scope not in self._cache:
            stored = self._stored.get(scope)
            if stored is not None:
                self._cache[scope] = tuple(tuple(chain) for chain in stored)
            else:
                self._cache[scope] = self._chains(scope)
                self._new = True
        return self._cache[scope]

    def _chains(self, scope: str) -> tuple[tuple[str, ...], ...]:
        """The MAX_CHAINS shortest chains (length, then names) from an entry point, else
        from a public module. DRIFT_AUDIT_NO_OWN_BFS=1 asks networkx, as before."""
        if os.environ.get("DRIFT_AUDIT_NO_OWN_BFS"):
            return self._networkx_chains(scope)
        callers = self._callers
        if scope not in callers:
            return ()
        # Chains from entry points when one reaches the scope, else from public modules
        # (what networkx's paths gave, filtered). The walk below is networkx's breadth-first
        # search back from the scope, each node's callers in the order networkx holds them,
        # so each node's first path is networkx's; it keeps only nodes that can matter.
        # (transformers: 1,732 scopes, each a walk of most of a ~45,000-node graph when
        # walked to the end, 17 s.) A node's first path comes from a node of the level
        # before that has an edge to it; if the node is kept for a start, so is that one
        # (_keep_for_entries), so keeping fewer nodes changes no kept node's path.
        if scope in self._reached_by_entry:
            starts, keep = self.entry_points, self._keep_for_entries(scope)
        else:
            starts, keep = self.public_modules, self._keep_for_publics
        parent: dict[str, str | None] = {scope: None}
        met = {scope}  # kept or not: a node left out when first met is never kept later
        found = [scope] if scope in starts else []
        level = [scope]
        depth = 0
        # Once a level is complete with MAX_CHAINS starts found, no farther one can be among
        # the shortest: the walk stops there.
        while level and len(found) < MAX_CHAINS:
            depth += 1
            following = []
            for node in level:
                for caller in callers[node]:
                    if caller in met:
                        continue
                    met.add(caller)
                    if keep(caller, depth):
                        parent[caller] = node
                        following.append(caller)
                        if caller in starts:
                            found.append(caller)
            level = following
        chains = [_chain(parent, start) for start in found]
        chains.sort(key=lambda chain: (len(chain), chain))
        return tuple(chains[:MAX_CHAINS])

    def _keep_for_entries(self, scope: str) -> Callable[[str, int], bool]:
        """Which nodes a walk from `scope` keeps for chains from entry points: with few of
        them (MAX_ENTRY_WALKS), those on a shortest chain from an entry point that reaches
        the scope no farther than the MAX_CHAINS nearest do (the node that first reaches
        such a node is on it too); with many, every node an entry point reaches (the callee
        of such a node is one too)."""
        distances = self._entry_distances
        if distances is None:
            reached = self._reached_by_entry
            return lambda node, depth: node in reached
        wanted = [(d, d[scope]) for d in distances if scope in d]
        if len(wanted) > MAX_CHAINS:  # one farther than the MAX_CHAINS nearest cannot count
            cutoff = sorted(far for _, far in wanted)[MAX_CHAINS - 1]
            wanted = [(d, far) for d, far in wanted if far <= cutoff]

        # (met first deeper than its distance to the scope, a node is on no shortest chain:
        # far <= its distance from the entry + that distance < it + depth). Asked for every
        # caller the walk meets: a plain loop, and one entry point without one.
        if len(wanted) == 1:
            ((only, farthest),) = wanted

            def on_the_shortest_chain(node: str, depth: int) -> bool:
                return only.get(node) == farthest - depth

            return on_the_shortest_chain

        def on_a_shortest_chain(node: str, depth: int) -> bool:
            for d, far in wanted:  # noqa: SIM110 - any() over a generator: twice the cost
                if d.get(node) == far - depth:
                    return True
            return False

        return on_a_shortest_chain

    def _keep_for_publics(self, node: str, depth: int) -> bool:
        return node in self._reached_by_public

    @cached_property
    def _entry_distances(self) -> list[dict[str, int]] | None:
        """For each entry point (when there are at most MAX_ENTRY_WALKS), how far along the
        edges every node it reaches is; None when there are more."""
        entries = sorted(e for e in self.entry_points if e in self._callers)
        if len(entries) > MAX_ENTRY_WALKS:
            return None
        return [self._distances_from(entry) for entry in entries]

    def _distances_from(self, *starts: str) -> dict[str, int]:
        """How far along the edges each node is from the nearest of `starts` (those in the
        graph), for every node they reach."""
        callees = self._callees
        far = {s: 0 for s in starts if s in self._callers}
        level = list(far)
        while level:
            following = []
            for node in level:
                for callee in callees.get(node, ()):
                    if callee not in far:
                        far[callee] = far[node] + 1
                        following.append(callee)
            level = following
        return far

    @cached_property
    def _reached_by_entry(self) -> frozenset[str]:
        return self._reached(self.entry_points)

    @cached_property
    def _reached_by_public(self) -> frozenset[str]:
        return self._reached(self.public_modules)

    @cached_property
    def _callees(self) -> dict[str, list[str]]:
        callees: dict[str, list[str]] = {}
        for node, its_callers in self._callers.items():
            for caller in its_callers:
                callees.setdefault(caller, []).append(node)
        return callees

    def _reached(self, starts: frozenset[str]) -> frozenset[str]:
        """Every node a chain from one of `starts` can reach (the starts included)."""
        return frozenset(self._distances_from(*starts))

    def _networkx_chains(self, scope: str) -> tuple[tuple[str, ...], ...]:
        import networkx as nx

        if scope not in self.graph:
            return ()
        paths = nx.single_source_shortest_path(self.graph.reverse(copy=False), scope)
        for starts in (self.entry_points, self.public_modules):
            found = [tuple(reversed(p)) for node, p in paths.items() if node in starts]
            if found:
                found.sort(key=lambda chain: (len(chain), chain))
                return tuple(found[:MAX_CHAINS])
        return ()

    @cached_property
    def _callers(self) -> dict[str, dict[str, None]]:
        """Each node's callers, in the order `graph` would hold them (edges as added)."""
        callers: dict[str, dict[str, None]] = {}
        for definition in self._scan.definitions:
            callers.setdefault(definition.name, {})
        for edge in self._scan.edges:
            callers.setdefault(edge.caller, {})
            callers.setdefault(edge.callee, {})[edge.caller] = None
        for site in self._scan.sites:
            callers.setdefault(site.scope, {})
            callers.setdefault(f"provider:{site.target}", {})[site.scope] = None
        return callers


def _chain(parent: dict[str, str | None], start: str) -> tuple[str, ...]:
    """The chain from `start` down to the walk's scope, by the walk's parents."""
    chain = [start]
    while (step := parent[chain[-1]]) is not None:
        chain.append(step)
    return tuple(chain)


def _is_public(module: str) -> bool:
    return all(
        not part.startswith("_") or part in {"__init__", "__main__"} for part in module.split(".")
    )


def _load_chains(store: tuple[Confined, str] | None) -> dict[str, list[list[str]]]:
    """The stored chains: scope -> chains of dotted paths; {} when absent, corrupt or of
    another shape (the cache is untrusted), and any entry that does not fit is left out."""
    if store is None:
        return {}
    fs, rel = store
    data = fs.read_json(rel, limit=MAX_STORE_BYTES)
    return {
        scope: chains
        for scope, chains in data.items()
        if isinstance(chains, list)
        and all(isinstance(c, list) and all(isinstance(n, str) for n in c) for c in chains)
    }


def build_graph(
    scan: ConsumerScan,
    entry_points: Iterable[str] = (),
    store: Path | None = None,
    root: Path | None = None,
    complete: Callable[[], ConsumerScan] | None = None,
) -> CallGraph:
    """The consumer's call graph with its edges into the provider.

    Args:
        scan: the consumer scan.
        entry_points: object references from the consumer's metadata (`pkg.cli:main`,
            `pkg.cli:App.run`, `pkg.plugin`); ones that name nothing in the scan are ignored.
        complete: gives the complete scan when `scan` walked only some files
            (scan.scan_sites); called the first time a chain is asked for.
    """
    return CallGraph(scan, entry_points, store, root, complete)


# --------------------------------------------------------------------------- exports


class _Exports:
    """Which definitions a module's public names stand for, following re-exports statically.

    Reads the module sources the scan kept (`scan.lines`); a module that does not parse
    exports nothing.
    """

    def __init__(self, scan: ConsumerScan) -> None:
        self.defined = {d.name for d in scan.definitions}
        self.lines = scan.lines
        self.packages = tuple(p for p in scan.package.split(",") if p)
        self._bindings: dict[str, dict[str, str] | None] = {}

    def public_api(self) -> set[str]:
        """The definitions behind every name the top-level packages export."""
        found: set[str] = set()
        for package in self.packages:
            bindings = self._module_bindings(package)
            if bindings is None:
                continue
            for name in _exported_names(self._tree(package), bindings):
                target = self.resolve(package, name)
                if target is not None:
                    found.add(target)
        return found

    def reference(self, ref: str) -> str | None:
        """`pkg.cli:main` -> the definition it names (or its module), None when neither exists."""
        ref = ref.split("[", 1)[0].strip()  # `module:attr [extra]`
        module, _, attr = ref.partition(":")
        module, attr = module.strip(), attr.strip()
        if attr:
            head, _, rest = attr.partition(".")
            target = self.resolve(module, head)
            if target is not None and rest and f"{target}.{rest}" in self.defined:
                return f"{target}.{rest}"
            if target is not None:
                return target
        return module if module in self.defined else None

    def resolve(self, module: str, name: str, depth: int = 0) -> str | None:
        """The definition `module.name` stands for: defined there, or imported from elsewhere."""
        dotted = f"{module}.{name}"
        if dotted in self.defined:
            return dotted
        bindings = self._module_bindings(module)
        source = bindings.get(name) if bindings is not None else None
        if source is None or depth >= MAX_REEXPORTS:
            return None
        if source in self.defined:  # `from . import sub`, `import pkg.sub as sub`
            return source
        origin, _, original = source.rpartition(".")
        return self.resolve(origin, original, depth + 1) if origin else None

    def _module_bindings(self, module: str) -> dict[str, str] | None:
        """name -> absolute dotted source of each import in the module; None: no such source."""
        if module not in self._bindings:
            tree = self._tree(module)
            self._bindings[module] = None if tree is None else _import_bindings(tree, module, self)
        return self._bindings[module]

    def _tree(self, module: str) -> ast.Module | None:
        base = module.replace(".", "/")
        for suffix in _INIT_NAMES:
            lines = self.lines.get(base + suffix)
            if lines is not None:
                return _safe_parse(lines)
        return None

    def is_package(self, module: str) -> bool:
        base = module.replace(".", "/")
        return any(base + suffix in self.lines for suffix in _INIT_NAMES[:2])


def _safe_parse(lines: tuple[str, ...]) -> ast.Module | None:
    try:
        return ast.parse("\n".join(lines))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _import_bindings(tree: ast.Module, module: str, exports: _Exports) -> dict[str, str]:
    """Top-level imports of a module: bound name -> absolute dotted path of what it binds."""
    package = module if exports.is_package(module) else module.rpartition(".")[0]
    bindings: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            base = _absolute(node, package)
            for alias in node.names:
                if base is not None and alias.name != "*":
                    bindings[alias.asname or alias.name] = f"{base}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    bindings[alias.asname] = alias.name
    return bindings


def _absolute(node: ast.ImportFrom, package: str) -> str | None:
    if not node.level:
        return node.module
    parts = package.split(".") if package else []
    if node.level - 1 > len(parts):
        return None
    base = ".".join(parts[: len(parts) - (node.level - 1)])
    return f"{base}.{node.module}" if node.module and base else (node.module or base or None)


def _exported_names(tree: ast.Module | None, bindings: Mapping[str, str]) -> list[str]:
    """`__all__` when the module spells it out, else every public name it binds at top level."""
    if tree is None:
        return []
    listed = _dunder_all(tree)
    if listed is not None:
        return listed
    names = set(bindings)
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
    return sorted(n for n in names if not n.startswith("_"))


def _dunder_all(tree: ast.Module) -> list[str] | None:
    """The names `__all__` lists (`=`, `+=`); None when it is absent or not a literal list."""
    names: list[str] | None = None
    for node in tree.body:
        value: ast.expr | None = None
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and _assigns_all(node):
            names, value = [], node.value
        elif isinstance(node, ast.AugAssign) and _is_all(node.target):
            value = node.value
        else:
            continue
        if not isinstance(value, (ast.List, ast.Tuple)):
            return None
        names = (names or []) + [
            e.value for e in value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)
        ]
    return names


def _assigns_all(node: ast.Assign | ast.AnnAssign) -> bool:
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    return any(_is_all(t) for t in targets)


def _is_all(target: ast.expr) -> bool:
    return isinstance(target, ast.Name) and target.id == "__all__"
