# Maintainers: a site decided by the difference between two releases.
#
# Owns: `Basis`, what one site's verdict against one release rests on: every lookup it made,
#       with the answer, and every provider module those answers read, with the digest of
#       its files (the memo's own dependencies, provider/memo.py); `basis()`, which gives
#       None when the verdict rests on something the files do not settle (an unknown that is
#       not `closed`, a compiled module with no stub, a file that could not be read, a
#       callable whose signature is hidden by code that was not followed); `unchanged()`.
#       A site the newest target leaves undecided is decided "unchanged" when the baseline's
#       basis is the same: the same lookups, the same answers, the same files, and what is
#       still unknown lies outside the provider (the standard library, another distribution,
#       the program's own data) or in those very files. Python's answer is then the same in
#       both releases: the upgrade does not break the site. It is counted, never a finding.
# Takes: the lookups a check made (pipeline._VerdictMemo) and the provider's dependencies.
# Gives: bases and yes/no. Pure.
"""Decide by difference: what a verdict rests on, compared between two releases."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from auditor.model import Lookup

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from auditor.model import Resolution

Query = tuple[str, bool, bool, "Resolution"]  # dotted, module_only, from_import, answer
Deps = tuple[tuple[str, str], ...]  # (module, digest of its files)
Basis = tuple[tuple[Query, ...], frozenset[tuple[str, str]]]
OPAQUE_DIGESTS = ("compiled",)  # an extension module with no stub: its bytes are not read
UNREADABLE = ":unreadable"


def basis(
    queries: Iterable[Query], deps_of: Callable[[str, bool, bool], Deps | None]
) -> Basis | None:
    """What a verdict rests on, or None when the files it read do not settle it."""
    asked: list[Query] = []
    files: set[tuple[str, str]] = set()
    for dotted, module_only, from_import, answer in queries:
        if not _settled(answer):
            return None
        deps = deps_of(dotted, module_only, from_import)
        if deps is None or any(_opaque(digest) for _, digest in deps):
            return None
        files.update(deps)
        asked.append((dotted, module_only, from_import, answer))
    return tuple(asked), frozenset(files)


def unchanged(before: Basis | None, after: Basis | None) -> bool:
    """Whether two releases give a verdict on the same basis (so Python's same answer)."""
    return before is not None and before == after


def _settled(answer: Resolution) -> bool:
    """An answer the files it read settle: found (with nothing hidden), missing, or an
    unknown whose cause lies outside them (`closed`)."""
    if answer.status in (Lookup.UNKNOWN, Lookup.UNLISTED):
        return answer.closed
    if answer.status is Lookup.UNREADABLE:
        return False
    symbol = answer.symbol
    return symbol is None or symbol.why_unknown is None or symbol.unknown_closed


def _opaque(digest: str) -> bool:
    return digest in OPAQUE_DIGESTS or digest.endswith(UNREADABLE)


# --------------------------------------------------------------------------- by definition
# A module that differs between the releases may differ only in what the verdict does not
# rest on (a function added at its end, another class edited). Its *slice* for the names the
# lookups consulted there is what Python's answer can depend on: every top-level statement
# that binds or mentions one of them, every statement that writes the namespace in ways
# not written out (a star import, globals(), setattr(), exec), and, to a fixed point, the
# statements binding what those statements name (a class's bases, decorators, the imports
# they come from; an import leads to the name in the module it imports from). Two releases
# whose dependency modules have the same slices give Python the same answer.


def same_by_definition(
    before: Basis,
    after: Basis,
    readers: tuple[Callable[[str], str | None], Callable[[str], str | None]],
    own: frozenset[str],
) -> bool:
    """Whether two bases whose lookups and answers are the same rest on modules that differ
    only outside what those lookups consulted (and what that, in turn, names). `own`: the
    provider's top-level names; a module outside them (the standard library's, the same in
    both releases) may be read in one release and not the other."""
    (asked_before, files_before), (asked_after, files_after) = before, after
    if asked_before != asked_after:
        return False
    read_before, read_after = readers
    old, new = dict(files_before), dict(files_after)
    if {m for m in set(old) ^ set(new) if m.split(".")[0] in own}:
        return False
    old = {m: d for m, d in old.items() if m in new}
    new = {m: d for m, d in new.items() if m in old}
    if any(old[m].count(":") != new[m].count(":") for m in old):
        return False
    wanted = _consulted(asked_after, set(new))
    attrs = frozenset(_bare(p) for dotted, *_ in asked_after for p in dotted.split("."))
    done: set[tuple[str, str]] = set()
    queue = [(m, n) for m, names in sorted(wanted.items()) for n in sorted(names)]
    slices: dict[str, tuple[_Slicer, _Slicer]] = {}
    while queue:
        module, name = queue.pop()
        if (module, name) in done:
            continue
        done.add((module, name))
        pair = slices.get(module)
        if pair is None:
            pair = slices[module] = (
                _Slicer(module, old[module], read_before, attrs),
                _Slicer(module, new[module], read_after, attrs),
            )
        for slicer in pair:
            queue.extend((m, n) for m, n in slicer.add(name) if m in new)
    return all(
        a.broken is None and b.broken is None and a.dumps() == b.dumps()
        for module, (a, b) in slices.items()
        if old[module] != new[module]
    ) and all(old[m] == new[m] for m in old if m not in slices)


def _consulted(asked: tuple[Query, ...], modules: set[str]) -> dict[str, set[str]]:
    """The names each dependency module was asked for: the part after it in a dotted path
    looked up, or in the path of the symbol found."""
    found: dict[str, set[str]] = {}
    paths = [dotted for dotted, _, _, _ in asked]
    paths += [a.symbol.path for *_, a in asked if a.symbol is not None]
    for path in paths:
        parts = [_bare(p) for p in path.split(".")]
        for size in range(1, len(parts)):
            module = ".".join(parts[:size])
            if module in modules:
                found.setdefault(module, set()).add(parts[size])
    return found


def _bare(part: str) -> str:
    cut = min((i for i in (part.find("("), part.find("[")) if i >= 0), default=len(part))
    return part[:cut]


_DYNAMIC_CALLS = frozenset({"globals", "vars", "locals", "setattr", "exec", "eval", "__import__"})


class _Parsed:
    """A module's top-level statements, each with the names it binds and names."""

    def __init__(self, statements: list[ast.stmt], package: str) -> None:
        self.statements = statements
        self.package = package  # what its relative imports are relative to
        self.bound = [_bound(s) for s in statements]
        self.loads = [_loads(s) for s in statements]
        self.dynamic = {i for i, s in enumerate(statements) if _dynamic(s)}


_PARSED: dict[str, _Parsed | str | None] = {}  # a module's digest -> it parsed (or why not)
MAX_PARSED = 4096


def _parsed(module: str, digest: str, read: Callable[[str], str | None]) -> _Parsed | str | None:
    """The module the digest names, parsed once per digest (the digest is its text's):
    None for a namespace package or an absent module, a reason when it cannot be read."""
    if digest in _PARSED:
        return _PARSED[digest]
    if len(_PARSED) >= MAX_PARSED:
        _PARSED.clear()
    found: _Parsed | str | None = None
    files = [part.rsplit(":", 1)[0] for part in digest.split(" ") if ":" in part]
    statements: list[ast.stmt] = []
    package = module
    for path in files:
        text = _text(read, path)
        if text is None:
            found = "unreadable"
            break
        if not path.endswith(("/__init__.py", "/__init__.pyi")):
            package = module.rpartition(".")[0]
        try:
            statements += ast.parse(text).body
        except (SyntaxError, ValueError, RecursionError):
            found = "unparsable"
            break
    else:
        found = _Parsed(statements, package) if files else None
    _PARSED[digest] = found
    return found


class _Slicer:
    """One release's module, and the statements of it that the names asked for rest on.

    A name the lookups consulted keeps every statement that binds or names it (`Cls.x = 1`
    after the class names it); a name a kept statement uses keeps the statements that bind
    it (the import of a base, `import typing as t`), not every statement that also uses it.
    A class is compared by what a lookup of an attribute the lookups named can meet: its
    header (bases, keywords, decorators), whether its body binds that name or its methods set
    it on `self`, and the statements binding it or a hook (`__getattr__`, `__init_subclass__`,
    `__init__`...); the whole class when it writes attributes by name at run time."""

    def __init__(
        self, module: str, digest: str, read: Callable[[str], str | None], attrs: frozenset[str]
    ) -> None:
        parsed = _parsed(module, digest, read)
        self.parsed = parsed if isinstance(parsed, _Parsed) else None
        self.broken = parsed if isinstance(parsed, str) else None
        self.attrs = attrs
        self.kept: set[int] = set(self.parsed.dynamic) if self.parsed is not None else set()
        self.consulted: set[str] = set()
        self.needed: set[str] = set()

    def add(self, name: str) -> list[tuple[str, str]]:
        """Keep what the consulted `name` rests on; the (module, name) pairs its imports
        lead to."""
        parsed = self.parsed
        if parsed is None or name in self.consulted:
            return []
        self.consulted.add(name)
        leads: list[tuple[str, str]] = []
        pending = [(name, True)]
        while pending:
            current, named = pending.pop()
            for i, statement in enumerate(parsed.statements):
                if i in self.kept:
                    continue
                if not (current in parsed.bound[i] or (named and current in parsed.loads[i])):
                    continue
                self.kept.add(i)
                leads += _imported(statement, parsed.package)
                for more in parsed.loads[i] - self.needed - self.consulted:
                    self.needed.add(more)
                    pending.append((more, False))
        return leads

    def dumps(self) -> list[str]:
        if self.parsed is None:
            return []
        statements = self.parsed.statements
        return [_dump(statements[i], self.attrs) for i in sorted(self.kept)]


CLASS_HOOKS = frozenset(
    {"__getattr__", "__getattribute__", "__init_subclass__", "__class_getitem__", "__slots__",
     "__new__", "__init__", "__set_name__", "__prepare__", "__dict__"}
)  # fmt: skip


def _dump(statement: ast.stmt, attrs: frozenset[str]) -> str:
    if not isinstance(statement, ast.ClassDef) or _dynamic(statement):
        return ast.dump(statement)
    header = ast.dump(ast.Tuple([*statement.bases, *statement.decorator_list], ast.Load()))
    keywords = [ast.dump(k) for k in statement.keywords]
    wanted = attrs | CLASS_HOOKS
    bound = sorted({n for part in statement.body for n in _bound_here(part)} & wanted)
    stores = sorted(_self_stores(statement) & wanted)
    members = [ast.dump(p) for p in statement.body if _bound_here(p) & wanted]
    return repr((statement.name, header, keywords, bound, stores, members))


def _bound_here(statement: ast.stmt) -> set[str]:
    """The names a statement of a class body binds there (not inside its methods)."""
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {statement.name}
    found = set()
    for node in ast.walk(statement):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            break
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            found.add(node.id)
        elif isinstance(node, ast.alias):
            found.add((node.asname or node.name).split(".")[0])
    return found


def _self_stores(node: ast.ClassDef) -> set[str]:
    return {
        n.attr
        for n in ast.walk(node)
        if isinstance(n, ast.Attribute)
        and isinstance(n.ctx, (ast.Store, ast.Del))
        and isinstance(n.value, ast.Name)
        and n.value.id == "self"
    }


def _text(read: Callable[[str], str | None], path: str) -> str | None:
    try:
        return read(path)
    except (OSError, UnicodeDecodeError):
        return None


def _dynamic(statement: ast.stmt) -> bool:
    """A statement that may bind names not written out: a star import, a namespace written
    through globals()/vars()/setattr(), exec."""
    if isinstance(statement, ast.ImportFrom) and any(a.name == "*" for a in statement.names):
        return True
    for node in ast.walk(statement):
        func = node.func if isinstance(node, ast.Call) else None
        if isinstance(func, ast.Name) and func.id in _DYNAMIC_CALLS:
            return True
        if isinstance(node, ast.Attribute) and node.attr == "modules":
            return True  # sys.modules[...]: a module replaced or written
    return False


def _bound(statement: ast.stmt) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(statement):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            found.add(node.id)
        elif isinstance(node, ast.alias):
            found.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            found.update(node.names)
    return found


def _loads(statement: ast.stmt) -> set[str]:
    return {
        n.id for n in ast.walk(statement) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
    } | {a for n in ast.walk(statement) if isinstance(n, ast.Attribute) for a in (n.attr,)}


def _imported(statement: ast.stmt, package: str) -> list[tuple[str, str]]:
    """Where the names an import statement binds come from: (module, name)."""
    leads: list[tuple[str, str]] = []
    for node in ast.walk(statement):
        if isinstance(node, ast.ImportFrom):
            base = _absolute(node.module, node.level, package)
            for alias in node.names:
                if base is not None:
                    leads.append((base, alias.name))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                leads += [(".".join(parts[:i]), parts[i]) for i in range(1, len(parts))]
    return leads


def _absolute(module: str | None, level: int, package: str) -> str | None:
    if level == 0:
        return module
    parts = package.split(".") if package else []
    if level - 1 > len(parts):
        return None
    base = parts[: len(parts) - (level - 1)]
    return ".".join([*base, module] if module else base) or None
