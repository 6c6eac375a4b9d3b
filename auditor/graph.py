"""Call graph: which consumer entry points reach which provider site, and by what chain.

What it owns: a networkx DiGraph of the consumer's modules, classes and functions (nodes), the
references between them (edges, from scan/), and an edge from each consumer scope to every
provider symbol it reaches (nodes named `provider:<dotted path>`). networkx stays behind this
door.

What it takes: a `ConsumerScan`. What it gives: `CallGraph.reached_from(scope)`, the shortest
chains of consumer dotted paths from an entry point to a scope, and the graph itself for
reporters that want to draw it.

Entry points: the consumer's public modules (no `_private` part, `__main__` included) and any
console-script targets the caller passes in.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import networkx as nx

if TYPE_CHECKING:
    from collections.abc import Iterable

    from auditor.model import ConsumerScan

MAX_CHAINS = 3


class CallGraph:
    def __init__(self, scan: ConsumerScan, entry_points: Iterable[str] = ()) -> None:
        graph: nx.DiGraph = nx.DiGraph()
        for definition in scan.definitions:
            graph.add_node(definition.name, kind=definition.kind)
        for edge in scan.edges:
            graph.add_edge(edge.caller, edge.callee)
        for site in scan.sites:
            graph.add_edge(site.scope, f"provider:{site.target}", action=site.action.value)
        self.graph = graph
        modules = [d.name for d in scan.definitions if d.kind == "module"]
        self.entry_points = frozenset(
            [m for m in modules if _is_public(m)] + [e for e in entry_points if e in graph]
        )
        self._reverse = graph.reverse(copy=False)
        self._cache: dict[str, tuple[tuple[str, ...], ...]] = {}

    def reached_from(self, scope: str) -> tuple[tuple[str, ...], ...]:
        """Up to three shortest chains entry point -> ... -> scope (entry point first)."""
        if scope not in self._cache:
            self._cache[scope] = self._chains(scope)
        return self._cache[scope]

    def _chains(self, scope: str) -> tuple[tuple[str, ...], ...]:
        if scope not in self.graph:
            return ()
        paths = nx.single_source_shortest_path(self._reverse, scope)
        found = [tuple(reversed(p)) for node, p in paths.items() if node in self.entry_points]
        found.sort(key=lambda chain: (len(chain), chain))
        return tuple(found[:MAX_CHAINS])


def _is_public(module: str) -> bool:
    return all(
        not part.startswith("_") or part in {"__init__", "__main__"} for part in module.split(".")
    )


def build_graph(scan: ConsumerScan, entry_points: Iterable[str] = ()) -> CallGraph:
    """The consumer's call graph with its edges into the provider."""
    return CallGraph(scan, entry_points)
