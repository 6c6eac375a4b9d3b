"""Rule 2 of docs/world.md ("Choosing dependents"): dependents added for the names the release
notes give as removed or changed, so that every breaking upgrade has breaks to measure.

Rule 1 (select_dependents.py) keeps the first N candidates of the pool that require the
provider. Rule 2 then walks the rest of the same pool, in the same name order, with the same
clauses (0), (a), (b), (c) and the same cut-off, and keeps a candidate when the touchpoint scan
(touchpoints.py, the judge's own) finds in the files the judge reads of that release an
unguarded touchpoint of a name in the upgrade's `named` list. It stops once the upgrade's
expected breaks, the unguarded named touchpoints of all its dependents (rule 1's and rule 2's),
reach TARGET, or when the pool ends. It never reads drift-audit's output, nor runs anything:
the sources are read with `ast`.

A name in `named` is written as the release notes write it, dotted from the provider's import
name:

    numpy.float                  the name (and everything reached through it: numpy.float.x)
    sqlalchemy.orm.mapper$       the name alone (a module of that name was kept: the function went)
    pandas.read_csv(squeeze)     a call of it that passes the keyword `squeeze`
    transformers.TF[A-Z]*        fnmatch patterns, part by part (the notes name a family)
    httpx.*(proxies)             a call of any such name that passes `proxies`

A touchpoint touches `a.b.c` when its symbol, with the scan's instance marks taken out
(`pandas.DataFrame().append` is `pandas.DataFrame.append`), is `a.b.c` or starts with `a.b.c.`.
It is unguarded when no guard around it would absorb what the target raises for it (the judge's
own test, verdicts.absorbing_guard): ModuleNotFoundError for `import`, ImportError for `from`,
TypeError for a named keyword, AttributeError otherwise.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from tests.world import touchpoints, verdicts
from tests.world.touchpoints import scan_source
from tests.world.verdicts import absorbing_guard, bare

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from tests.world.touchpoints import Touchpoint

TARGET = 10  # expected breaks an upgrade is given by rule 2, at least (when its pool has them)
_NAMED = re.compile(r"^([A-Za-z_][\w.\[\]*?-]*?)(?:\((\w+)\))?$")
_RAISES = {
    "import": ["ModuleNotFoundError", "ImportError", "Exception", "BaseException"],
    "from": ["ImportError", "Exception", "BaseException"],
    "keyword": ["TypeError", "Exception", "BaseException"],
    "name": ["AttributeError", "Exception", "BaseException"],
}


class NamedError(ValueError):
    """An entry of `named` that is not a dotted name, a call with a keyword, or a pattern."""


@dataclass(frozen=True)
class Named:
    path: str  # dotted; a part may be an fnmatch pattern (it never spans a dot)
    keyword: str | None = None
    alone: bool = False  # `$`: the name itself, not what is reached through it

    @property
    def text(self) -> str:
        if self.keyword:
            return f"{self.path}({self.keyword})"
        return f"{self.path}$" if self.alone else self.path

    def touched_by(self, tp: Touchpoint) -> bool:
        symbol = bare(tp.symbol)
        if self.keyword is not None:
            keywords = tp.shape.keywords if tp.shape is not None else ()
            return tp.op == "call" and self._names(symbol, exact=True) and self.keyword in keywords
        return self._names(symbol, exact=self.alone)

    def _names(self, symbol: str, *, exact: bool) -> bool:
        if not any(c in self.path for c in "*?["):
            return symbol == self.path or (not exact and symbol.startswith(self.path + "."))
        parts, pattern = symbol.split("."), self.path.split(".")
        if len(parts) < len(pattern) or (exact and len(parts) != len(pattern)):
            return False
        return all(fnmatch.fnmatchcase(p, q) for p, q in zip(parts, pattern, strict=False))


def parse_named(entries: Iterable[str]) -> tuple[Named, ...]:
    out = []
    for entry in entries:
        text = entry.strip()
        alone = text.endswith("$")
        match = _NAMED.match(text.removesuffix("$"))
        if not match or (alone and match.group(2)):
            raise NamedError(f"named: {entry!r} is not a dotted name, name(keyword) or pattern")
        out.append(Named(match.group(1), match.group(2), alone))
    return tuple(out)


@dataclass(frozen=True)
class Hit:
    """An unguarded touchpoint of a named name."""

    path: str
    line: int
    text: str
    named: str


def _raises(tp: Touchpoint, named: Named) -> list[str]:
    if named.keyword is not None:
        return _RAISES["keyword"]
    return _RAISES.get(tp.op, _RAISES["name"])


def named_hits(files: dict[str, str], roots: Iterable[str], named: tuple[Named, ...]) -> list[Hit]:
    """The unguarded touchpoints of `named` in a release's files ({path: source})."""
    hits = []
    for path in sorted(files):
        for tp in scan_source(files[path], path, roots).touchpoints:
            name = next((n for n in named if n.touched_by(tp)), None)
            if name is None or absorbing_guard(tp.guards, {"mro": _raises(tp, name)}):
                continue  # not named, or guarded: the judge counts a guarded break apart
            hits.append(Hit(path, tp.line, tp.text, name.text))
    return hits


def evidence(hits: list[Hit]) -> str:
    """What a kept dependent is written down with: the count and its first touchpoint."""
    first = hits[0]
    more = f" (+{len(hits) - 1} more)" if len(hits) > 1 else ""
    return f"{len(hits)} named: {first.path}:{first.line} `{first.text}` ({first.named}){more}"


# ------------------------------------------------------------------------------- the walk


@dataclass
class Extension:
    """What rule 2 gives an upgrade: the dependents it adds (with their evidence), the verdict on
    each candidate it examined, and the expected breaks of all dependents."""

    expected: int = 0
    added: list[list[str]] = field(default_factory=list)  # [name==version, evidence]
    skipped: dict[str, str] = field(default_factory=dict)  # candidate -> why
    unread: list[str] = field(default_factory=list)  # rule 1's dependents whose files failed


def extend(
    kept: list[str],
    rest: list[str],
    examine: Callable[[str], tuple[str, str | None]],
    hits_of: Callable[[str], list[Hit] | str],
) -> Extension:
    """Rule 2 over `rest` (the candidates rule 1 did not examine, in name order), after the
    dependents rule 1 `kept`. `examine(name)` applies clauses (0), (a), (b), (c): ("", spec) or
    (why, None); `hits_of(spec)` is `named_hits` over the files the judge reads of the release,
    or why they cannot be read."""
    out = Extension()
    for spec in kept:
        hits = hits_of(spec)
        if isinstance(hits, str):
            out.unread.append(f"{spec}: {hits}")
        else:
            out.expected += len(hits)
    for name in rest:
        if out.expected >= TARGET:
            break
        why, spec = examine(name)
        if spec is None:
            out.skipped[name] = why
            continue
        hits = hits_of(spec)
        if isinstance(hits, str):
            out.skipped[name] = f"(2) {spec}: its files could not be read ({hits})"
        elif not hits:
            out.skipped[name] = f"(2) {spec}: no unguarded touchpoint of a named name"
        else:
            out.expected += len(hits)
            out.added.append([spec, evidence(hits)])
    return out


def digest(roots: Iterable[str], named: tuple[Named, ...]) -> str:
    """What a release's hits depend on besides its files: the names, the provider's import
    names, and the code that finds them (this module, the scan, the judge's guard test)."""
    sha = hashlib.sha256(json.dumps([sorted(roots), [n.text for n in named]]).encode())
    for module in (__file__, touchpoints.__file__, verdicts.__file__):
        sha.update(Path(module).read_bytes())
    return sha.hexdigest()[:16]


def to_json(hits: list[Hit]) -> list[list[object]]:
    return [[h.path, h.line, h.text, h.named] for h in hits]


def from_json(rows: list[list[object]]) -> list[Hit]:
    return [Hit(str(p), int(str(n)), str(t), str(m)) for p, n, t, m in rows]
