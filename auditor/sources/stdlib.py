# Maintainers: the standard library of the audited Python, as a source tree of stubs.
#
# Owns: `StdlibStubs`, a SourceTree of typeshed's standard-library stubs (the `.pyi` files
#       the typeshed_client distribution ships as data; the package itself is never
#       imported), each stub's text with the branches the running Python does not take cut
#       out (`if sys.version_info >= (3, 12):`, `if sys.platform == "win32":`), and only the
#       modules typeshed's VERSIONS file gives this Python; `with_stdlib(tree, names)`, a
#       provider tree that also answers for the standard library's top-level names (the
#       provider's own names first). The provider analysis then reads a standard-library base
#       (`unittest.TestCase`, `dict`, `enum.Enum`), a return type or a re-export
#       (`requests.compat.urlparse` is `urllib.parse.urlparse`) as it reads a compiled
#       module's stub: what the stub declares is there, what it leaves out is unknown, never
#       missing. The standard library is the same at the baseline and the target, so it can
#       only decide, never be, a change.
# Takes: nothing but the interpreter (sys.version_info, sys.platform, stdlib_module_names).
# Gives: text by path; a digest per file without transforming it (the warm path's memo).
"""The audited Python's standard library, read as typeshed's stubs."""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import logging
import operator
import sys
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from auditor.files import read_file

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator

    from auditor.sources import SourceTree

log = logging.getLogger("drift_audit")
MAX_STUB_BYTES = 4 << 20  # builtins.pyi is ~100 KB
BUILTINS = "builtins"


@lru_cache(maxsize=1)
def typeshed_root() -> Path | None:
    """typeshed's stdlib folder inside the installed typeshed_client (found, not imported);
    None when it is not installed: then the standard library is not known, as before."""
    try:
        spec = importlib.util.find_spec("typeshed_client")
    except (ImportError, ValueError):
        return None
    locations = list(spec.submodule_search_locations or ()) if spec is not None else []
    for location in locations:
        folder = Path(location) / "typeshed"
        if (folder / "VERSIONS").is_file() and (folder / "builtins.pyi").is_file():
            return folder
    return None


def stdlib_names() -> frozenset[str]:
    """The top-level names of the standard library (and `builtins`)."""
    return frozenset(sys.stdlib_module_names) | {BUILTINS}


class StdlibStubs:
    """typeshed's stubs for the running Python: `unittest/case.pyi`, `builtins.pyi`..."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.available = _available(root)

    def _module_of(self, path: str) -> str | None:
        if not path.endswith(".pyi") or ".." in path or path.startswith("/"):
            return None
        stem = path[: -len(".pyi")].removesuffix("/__init__")
        module = stem.replace("/", ".")
        return module if _listed(module, self.available) else None

    def read_text(self, path: str) -> str | None:
        if self._module_of(path) is None:
            return None
        return _pruned(str(self.root / path))

    def digest(self, path: str) -> str | None:
        if self._module_of(path) is None:
            return None
        return _raw_digest(str(self.root / path))

    def is_dir(self, path: str) -> bool:
        if ".." in path or path.startswith("/") or not path:
            return False
        return _listed(path.replace("/", "."), self.available) and (self.root / path).is_dir()

    def has_extension(self, base: str) -> bool:
        return False

    def walk(self) -> Iterator[str]:
        raise NotImplementedError("a provider tree is read by path, never walked")


class WithStdlib:
    """A provider tree that answers for the standard library's names too: the provider's
    own top-level names are the provider's, the rest of the standard library's are typeshed's
    stubs (a provider that ships a package named like a standard module keeps it)."""

    def __init__(self, tree: SourceTree, stubs: StdlibStubs, provider_names: Iterable[str]):
        self.tree = tree
        self.stubs = stubs
        self.stdlib = stdlib_names() - frozenset(provider_names)

    def _source(self, path: str) -> SourceTree | StdlibStubs:
        top = path.split("/", 1)[0].removesuffix(".pyi").removesuffix(".py")
        return self.stubs if top in self.stdlib else self.tree

    def read_text(self, path: str) -> str | None:
        return self._source(path).read_text(path)

    def digest(self, path: str) -> str | None:
        source = self._source(path)
        if source is self.stubs:
            return self.stubs.digest(path)
        from auditor.sources import file_digest

        return file_digest(self.tree, path)

    def is_dir(self, path: str) -> bool:
        return self._source(path).is_dir(path)

    def has_extension(self, base: str) -> bool:
        from auditor.sources import has_extension

        source = self._source(base)
        return False if source is self.stubs else has_extension(self.tree, base)

    def entries(self, path: str) -> tuple[str, ...]:
        """The provider tree's folder_entries(); () for the standard library's folders."""
        from auditor.sources import folder_entries

        source = self._source(path)
        return () if source is self.stubs else folder_entries(self.tree, path) or ()

    def walk(self) -> Iterator[str]:
        raise NotImplementedError("a provider tree is read by path, never walked")

    def prefetch(self, paths: Iterable[str]) -> None:
        prefetch = getattr(self.tree, "prefetch", None)
        if prefetch is not None:
            prefetch([p for p in paths if self._source(p) is self.tree])


def with_stdlib(tree: SourceTree, provider_names: Iterable[str]) -> SourceTree | WithStdlib:
    """`tree`, answering for the standard library too when typeshed's stubs are installed."""
    root = typeshed_root()
    if root is None:
        return tree
    return WithStdlib(tree, _stubs(root), provider_names)


@lru_cache(maxsize=2)
def _stubs(root: Path) -> StdlibStubs:
    return StdlibStubs(root)


# --------------------------------------------------------------------------- VERSIONS


def _available(root: Path) -> frozenset[str]:
    """The modules VERSIONS gives the running Python (`asyncio.taskgroups: 3.11-`)."""
    try:
        text = read_file(root / "VERSIONS", limit=MAX_STUB_BYTES).decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return frozenset()
    here = sys.version_info[:2]
    found = set()
    for line in text.splitlines():
        name, _, span = line.partition("#")[0].partition(":")
        low, _, high = span.strip().partition("-")
        if not name.strip() or not low:
            continue
        if _version(low) <= here and (not high or here <= _version(high)):
            found.add(name.strip())
    return frozenset(found)


def _version(text: str) -> tuple[int, int]:
    major, _, minor = text.strip().partition(".")
    return int(major), int(minor or 0)


def _listed(module: str, available: frozenset[str]) -> bool:
    """Whether VERSIONS gives the module, or the package it is in, to this Python."""
    parts = module.split(".")
    return any(".".join(parts[:n]) in available for n in range(len(parts), 0, -1))


# --------------------------------------------------------------------------- the text


@lru_cache(maxsize=256)
def _raw_digest(path: str) -> str | None:
    raw = _safe_bytes(path)
    if raw is None:
        return None
    version = ".".join(map(str, sys.version_info[:2])) + sys.platform
    return hashlib.sha256(version.encode() + b"\0" + raw).hexdigest()


@lru_cache(maxsize=256)
def _pruned(path: str) -> str | None:
    raw = _safe_bytes(path)
    if raw is None:
        return None
    text = raw.decode("utf-8", "replace")
    try:
        tree = ast.parse(text, type_comments=False)
    except (SyntaxError, ValueError, RecursionError):
        return text
    tree.body = _taken(tree.body)
    return ast.unparse(tree) + "\n"


def _safe_bytes(path: str) -> bytes | None:
    try:
        return read_file(path, limit=MAX_STUB_BYTES)
    except OSError:
        return None


def _taken(body: list[ast.stmt]) -> list[ast.stmt]:
    """The statements the running Python runs: each `if` on sys.version_info or sys.platform
    replaced by the branch it takes (a test that cannot be decided keeps both)."""
    out: list[ast.stmt] = []
    for node in body:
        if isinstance(node, ast.If):
            verdict = _decide(node.test)
            if verdict is not None:
                out.extend(_taken(node.body if verdict else node.orelse))
                continue
            node.body = _taken(node.body) or [ast.Pass()]
            node.orelse = _taken(node.orelse)
        elif isinstance(node, ast.ClassDef):
            node.body = _taken(node.body) or [ast.Pass()]
        out.append(node)
    return out


def _decide(test: ast.expr) -> bool | None:
    """True or False for a test of the running Python's version or platform; else None."""
    if isinstance(test, ast.BoolOp):
        values = [_decide(v) for v in test.values]
        if isinstance(test.op, ast.And):
            return False if False in values else (None if None in values else True)
        return True if True in values else (None if None in values else False)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _decide(test.operand)
        return None if inner is None else not inner
    if isinstance(test, ast.Call):
        return _platform_call(test)
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    left, op, right = test.left, test.ops[0], test.comparators[0]
    subject = _subject(left)
    try:
        value = ast.literal_eval(right)
    except (ValueError, SyntaxError, TypeError):
        return None
    if subject is None:
        return None
    return _compare(subject, op, value)


def _subject(node: ast.expr) -> object | None:
    """What `sys.version_info`, `sys.version_info[:2]`, `sys.version_info[0]` or
    `sys.platform` is on this Python."""
    if _is_sys(node, "platform"):
        return sys.platform
    version = tuple(sys.version_info)
    if _is_sys(node, "version_info"):
        return version
    if not (isinstance(node, ast.Subscript) and _is_sys(node.value, "version_info")):
        return None
    part = node.slice
    if isinstance(part, ast.Constant) and type(part.value) is int:
        return version[part.value] if -len(version) <= part.value < len(version) else None
    if (
        isinstance(part, ast.Slice)
        and part.lower is None
        and part.step is None
        and isinstance(part.upper, ast.Constant)
        and type(part.upper.value) is int
    ):
        return version[: part.upper.value]
    return None


def _is_sys(node: ast.expr, name: str) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and node.attr == name
        and isinstance(node.value, ast.Name)
        and node.value.id == "sys"
    )


_ORDERS: dict[type[ast.cmpop], Callable[[Any, Any], object]] = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.GtE: operator.ge,
    ast.Gt: operator.gt, ast.LtE: operator.le, ast.Lt: operator.lt,
}  # fmt: skip


def _compare(subject: object, op: ast.cmpop, value: object) -> bool | None:
    compare = _ORDERS.get(type(op))
    if compare is None:
        return None
    try:
        return bool(compare(subject, value))
    except TypeError:
        return None


def _platform_call(test: ast.Call) -> bool | None:
    """`sys.platform.startswith("linux")`."""
    func = test.func
    if not (
        isinstance(func, ast.Attribute)
        and func.attr == "startswith"
        and _is_sys(func.value, "platform")
        and len(test.args) == 1
        and isinstance(test.args[0], ast.Constant)
        and isinstance(test.args[0].value, str)
    ):
        return None
    return sys.platform.startswith(test.args[0].value)
