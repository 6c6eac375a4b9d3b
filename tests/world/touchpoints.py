"""The touchpoint scan: every place a consumer touches the provider that can be written down
without type inference. Independent of drift-audit: it never imports `auditor`, only `ast`.

    scan_source(source, path, roots) -> FileScan     (roots: the provider's import names)

A touchpoint is one of

    import   `import P.x.y` (and `as` aliases): the module P.x.y
    from     `from P.x import Y` (and `as`): the name Y of P.x, as Python imports it
    chain    an attribute chain rooted at a name bound to the provider (`np.float`,
             `pd.Series.iteritems`, `DataFrame.append` after `from pandas import DataFrame`),
             through an instance of a class named directly (`pd.DataFrame(x).append`, written
             `pandas.DataFrame().append`: only when the called name is capitalised, as
             classes are); the longest chain only
    call     a call of such a chain or of a name imported from the provider, with its shape:
             positional count, keyword names, whether `*args` / `**kwargs` are passed

also inside functions, class bodies, decorators, default values. Not written down: what needs
types (`df.append(...)` on a local), names looked up by string (`getattr(np, "float")`),
names a `from P import *` brings, and a name bound to the provider and to something else in
the same scope (`try: import numpy as np / except ImportError: np = None`): its uses are
ambiguous (the imports themselves are touchpoints).

Each touchpoint carries the guards around it, innermost last, so the judge can tell what it
cannot run in context:

    try          inside `try:` whose handlers catch one of `catches` (ImportError,
                 AttributeError, TypeError, Exception... as written)
    except       inside an `except` handler (it runs only when its try failed)
    if           under a version check, a feature test (`hasattr`, `getattr`, `find_spec`) or a
                 version flag (`IS_V2`, `HAS_X`, `PANDAS_GE_2`), or in a function or class
                 decorated with a skip on such a test (`@pytest.mark.skipif(NUMPY_LT_2_0)`,
                 `@unittest.skipUnless(...)`); a test of Python's own version
                 (`sys.version_info`, `PY3`) is not a guard: the judge's Python decides it
    type-checking   under `if TYPE_CHECKING:` (never runs)
    annotation   in an annotation of a module with `from __future__ import annotations`
                 (not evaluated at run time; `detail` is "class" in a class body, where
                 dataclasses and pydantic read them)
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable

EXCEPTION_GUARDS = frozenset(
    {
        "ImportError",
        "ModuleNotFoundError",
        "AttributeError",
        "TypeError",
        "NameError",
        "Exception",
        "BaseException",
        "ValueError",
        "LookupError",
        "KeyError",
        "RuntimeError",
        "OSError",
    }
)
FEATURE_CALLS = frozenset({"hasattr", "getattr", "find_spec", "callable", "find_loader"})
SKIP_DECORATORS = frozenset({"skipif", "skipIf", "skipUnless", "xfail"})
PYTHON_VERSION = frozenset({"version_info", "version", "python_version", "hexversion"})
_FLAG = re.compile(r"^_*(IS|HAS|HAVE|USE|USES|SUPPORTS|CAN|NEW|OLD)_[A-Z0-9_]+$")
_FLAG_COMPARE = re.compile(r"(^|_)(GE|GT|LE|LT|EQ|LTE|GTE|AT_LEAST|BEFORE|AFTER)(_|\d|$)")
_PY_FLAG = re.compile(r"^_*PY(THON)?_?\d*(_?\d+)*$")


@dataclass(frozen=True)
class Shape:
    positional: int
    keywords: tuple[str, ...]
    star_args: bool
    star_kwargs: bool

    def as_dict(self) -> dict[str, object]:
        return {
            "positional": self.positional,
            "keywords": list(self.keywords),
            "star_args": self.star_args,
            "star_kwargs": self.star_kwargs,
        }


@dataclass(frozen=True)
class Guard:
    kind: str  # try | except | if | type-checking | annotation
    line: int
    detail: str = ""
    catches: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, object]:
        return {"kind": self.kind, "line": self.line, "detail": self.detail,
                "catches": list(self.catches)}  # fmt: skip


@dataclass(frozen=True)
class Touchpoint:
    path: str
    line: int
    column: int  # 1-based, as drift-audit's reports count
    stmt_line: int
    op: str  # import | from | chain | call
    target: str  # import: the module; from: "module:name"; chain/call: the chain
    scope: str
    guards: tuple[Guard, ...] = ()
    shape: Shape | None = None
    text: str = ""

    @property
    def symbol(self) -> str:
        return self.target.replace(":", ".")

    @property
    def last(self) -> str:
        """The name the consumer wrote last: `float` for np.float, `Y` for from P import Y."""
        return re.sub(r"\(\)|\[\*?\]", "", self.symbol).rsplit(".", 1)[-1]

    def query(self) -> dict[str, object]:
        """What the judge's probe runs for it (see probe.py)."""
        if self.op == "import":
            return {"op": "import", "module": self.target}
        if self.op == "from":
            module, name = self.target.split(":")
            return {"op": "from", "module": module, "name": name}
        if self.op == "chain":
            return {"op": "chain", "chain": self.target}
        assert self.shape is not None
        return {"op": "call", "chain": self.target, "shape": self.shape.as_dict()}

    def as_dict(self) -> dict[str, object]:
        return {
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "stmt_line": self.stmt_line,
            "op": self.op,
            "symbol": self.symbol,
            "scope": self.scope,
            "guards": [g.as_dict() for g in self.guards],
            "shape": self.shape.as_dict() if self.shape else None,
            "text": self.text,
        }


@dataclass
class FileScan:
    path: str
    touchpoints: list[Touchpoint] = field(default_factory=list)
    error: str | None = None  # the file does not parse
    _at: dict[tuple[int, int], tuple[Guard, ...]] = field(default_factory=dict)
    _lines: dict[int, tuple[Guard, ...]] = field(default_factory=dict)

    def guards_at(self, line: int, column: int | None = None) -> tuple[Guard, ...]:
        """The guards around what starts at (line, column), else around that line's
        innermost statement (a site the scan has no touchpoint for: a call on an instance)."""
        if column is not None and (line, column) in self._at:
            return self._at[(line, column)]
        return self._lines.get(line, ())

    def on_line(self, line: int) -> list[Touchpoint]:
        return [t for t in self.touchpoints if line in (t.line, t.stmt_line)]


# --------------------------------------------------------------------------- bindings

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_OTHER = ""  # a binding to something that is not the provider


def _in_roots(module: str, roots: frozenset[str]) -> bool:
    return module.partition(".")[0] in roots


def _target_names(node: ast.AST) -> list[str]:
    return [n.id for n in ast.walk(node) if isinstance(n, ast.Name)]


class _Binder(ast.NodeVisitor):
    """Every name one scope binds, with what it is bound to (a provider path or _OTHER)."""

    def __init__(self, roots: frozenset[str]) -> None:
        self.roots = roots
        self.bound: dict[str, set[str]] = {}
        self.globals: set[str] = set()

    def bind(self, name: str, value: str = _OTHER) -> None:
        self.bound.setdefault(name, set()).add(value)

    def run(self, scope: ast.AST) -> _Binder:
        if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            args = scope.args
            for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
                if arg is not None:
                    self.bind(arg.arg)
        body = scope.body if isinstance(scope.body, list) else [scope.body]
        for node in body:
            self.visit(node)
        return self

    def _nested(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        self.bind(node.name)
        for expr in node.decorator_list:
            self.visit(expr)

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _nested

    def visit_Lambda(self, node: ast.Lambda) -> None:
        pass

    def visit_ListComp(self, node: ast.AST) -> None:
        pass  # comprehension targets stay in the comprehension

    visit_SetComp = visit_DictComp = visit_GeneratorExp = visit_ListComp

    def visit_Global(self, node: ast.Global) -> None:
        self.globals.update(node.names)

    visit_Nonlocal = visit_Global

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.asname:
                provider = _in_roots(alias.name, self.roots)
                self.bind(alias.asname, alias.name if provider else _OTHER)
            else:
                top = alias.name.partition(".")[0]
                self.bind(top, top if top in self.roots else _OTHER)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        provider = node.level == 0 and _in_roots(module, self.roots)
        for alias in node.names:
            if alias.name != "*":
                value = f"{module}.{alias.name}" if provider else _OTHER
                self.bind(alias.asname or alias.name, value)

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            self.bind(node.id)

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.name:
            self.bind(node.name)
        self.generic_visit(node)

    def visit_MatchAs(self, node: ast.MatchAs) -> None:
        if node.name:
            self.bind(node.name)
        self.generic_visit(node)

    def visit_MatchStar(self, node: ast.MatchStar) -> None:
        if node.name:
            self.bind(node.name)


@dataclass
class _Scope:
    node: ast.AST
    name: str
    bound: dict[str, set[str]]
    globals: set[str]
    is_class: bool


# --------------------------------------------------------------------------- guards


def _names_in(node: ast.AST) -> list[str]:
    out = []
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name):
            out.append(sub.id)
        elif isinstance(sub, ast.Attribute):
            out.append(sub.attr)
    return out


def _is_type_checking(test: ast.AST) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def guard_test(test: ast.AST) -> str | None:
    """What kind of guard an `if` test is: "feature", "version", "flag", or None (a test
    of anything else, Python's own version included)."""
    for sub in ast.walk(test):
        if isinstance(sub, ast.Call):
            func = sub.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            if name in FEATURE_CALLS:
                return "feature"
    for name in _names_in(test):
        if _PY_FLAG.match(name) or name in PYTHON_VERSION:
            continue  # Python's own version: the same in the judge's venvs
        if "version" in name.lower():
            return "version"
        if _FLAG.match(name) or (name.isupper() and _FLAG_COMPARE.search(name)):
            return "flag"
    return None


def _callee(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _catches(handler: ast.ExceptHandler) -> tuple[str, ...]:
    if handler.type is None:
        return ("BaseException",)
    types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    out = []
    for t in types:
        if isinstance(t, ast.Name):
            out.append(t.id)
        elif isinstance(t, ast.Attribute):
            out.append(t.attr)
    return tuple(out)


# --------------------------------------------------------------------------- the scan


def _shape(call: ast.Call) -> Shape:
    return Shape(
        positional=sum(1 for a in call.args if not isinstance(a, ast.Starred)),
        keywords=tuple(k.arg for k in call.keywords if k.arg is not None),
        star_args=any(isinstance(a, ast.Starred) for a in call.args),
        star_kwargs=any(k.arg is None for k in call.keywords),
    )


class _Scanner(ast.NodeVisitor):
    def __init__(self, source: str, path: str, roots: frozenset[str]) -> None:
        self.source = source
        self.lines = source.splitlines(keepends=True)
        self.path = path
        self.roots = roots
        self.module = path[:-3].replace("/", ".").removesuffix(".__init__")
        self.scan = FileScan(path)
        self.scopes: list[_Scope] = []
        self.guards: list[Guard] = []
        self.stmt_line = 1
        self.postponed = False
        self.seen: set[tuple[int, int, str, str]] = set()

    def segment(self, node: ast.AST) -> str:
        """The source text of a node, its first lines only: what ast.get_source_segment
        gives, without splitting the whole file again for every node."""
        start, end = getattr(node, "lineno", None), getattr(node, "end_lineno", None)
        col, end_col = getattr(node, "col_offset", None), getattr(node, "end_col_offset", None)
        if None in (start, end, col, end_col):
            return ""
        lines = self.lines[start - 1 : min(end, start + 3)]
        if not lines:
            return ""
        if end == start:
            return lines[0].encode()[col:end_col].decode("utf-8", "replace")
        if end > start + 3:
            return "".join([lines[0].encode()[col:].decode("utf-8", "replace"), *lines[1:]])
        middle = lines[1:-1]
        last = lines[-1].encode()[:end_col].decode("utf-8", "replace")
        return "".join([lines[0].encode()[col:].decode("utf-8", "replace"), *middle, last])

    # ---- scopes and names

    def _enter(self, node: ast.AST, name: str) -> None:
        binder = _Binder(self.roots).run(node)
        self.scopes.append(
            _Scope(node, name, binder.bound, binder.globals, isinstance(node, ast.ClassDef))
        )

    def resolve(self, name: str) -> str | None:
        """The provider path a name stands for here; None when it is anything else."""
        innermost = self.scopes[-1]
        for index in range(len(self.scopes) - 1, -1, -1):
            scope = self.scopes[index]
            if scope.is_class and scope is not innermost:
                continue  # a class body's names are not seen from its methods
            if name in scope.globals:
                scope = self.scopes[0]
            if name in scope.bound:
                values = scope.bound[name]
                if len(values) == 1 and _OTHER not in values:
                    return next(iter(values))
                return None
        return None

    def _scope_name(self) -> str:
        names = [s.name for s in self.scopes[1:]]
        return ".".join([self.module, *names]) if names else self.module

    # ---- recording

    def _record(self, node: ast.AST, op: str, target: str, shape: Shape | None = None) -> None:
        line, col = node.lineno, node.col_offset + 1  # type: ignore[attr-defined]
        key = (line, col, op, target)
        if key in self.seen:
            return
        self.seen.add(key)
        if op == "from":
            module, name = target.split(":")
            text = f"from {module} import {name}"
        elif op == "import":
            text = f"import {target}"
        else:
            text = " ".join((self.segment(node) or "").split())
        self.scan.touchpoints.append(
            Touchpoint(
                self.path,
                line,
                col,
                self.stmt_line,
                op,
                target,
                self._scope_name(),
                tuple(self.guards),
                shape,
                text if len(text) <= 120 else text[:117] + "...",
            )
        )

    def visit(self, node: ast.AST) -> None:
        if isinstance(node, ast.stmt):
            previous = self.stmt_line
            self.stmt_line = node.lineno
            for line in range(node.lineno, (node.end_lineno or node.lineno) + 1):
                self.scan._lines[line] = tuple(self.guards)
            super().visit(node)
            self.stmt_line = previous
            return
        if hasattr(node, "lineno") and hasattr(node, "col_offset"):
            self.scan._at.setdefault((node.lineno, node.col_offset + 1), tuple(self.guards))
        super().visit(node)

    def _guarded(self, guard: Guard, nodes: list[ast.AST] | ast.AST | None) -> None:
        if nodes is None:
            return
        self.guards.append(guard)
        for node in nodes if isinstance(nodes, list) else [nodes]:
            self.visit(node)
        self.guards.pop()

    # ---- statements

    def visit_Module(self, node: ast.Module) -> None:
        self.postponed = any(
            isinstance(s, ast.ImportFrom)
            and s.module == "__future__"
            and any(a.name == "annotations" for a in s.names)
            for s in node.body
        )
        self._enter(node, "")
        for stmt in node.body:
            self.visit(stmt)

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> None:
        if not isinstance(node, ast.Lambda):
            for expr in node.decorator_list:
                self.visit(expr)
        args = node.args
        for default in [*args.defaults, *args.kw_defaults]:
            if default is not None:
                self.visit(default)
        if not isinstance(node, ast.Lambda):
            every = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
            for arg in every:
                if arg is not None and arg.annotation is not None:
                    self._annotation(arg.annotation, "")
            if node.returns is not None:
                self._annotation(node.returns, "")
        self._enter(node, getattr(node, "name", "<lambda>"))
        body = node.body if isinstance(node.body, list) else [node.body]
        self._body(node, body)
        self.scopes.pop()

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _function

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for expr in [*node.decorator_list, *node.bases, *(k.value for k in node.keywords)]:
            self.visit(expr)
        self._enter(node, node.name)
        self._body(node, node.body)
        self.scopes.pop()

    def _body(self, node: ast.AST, body: list[ast.stmt]) -> None:
        """A function's or class's body, guarded by a skip decorator whose test is a guard
        (`@pytest.mark.skipif(NUMPY_LT_2_0, ...)`, `@unittest.skipUnless(HAS_X, ...)`)."""
        guard = None
        for expr in getattr(node, "decorator_list", []):
            if isinstance(expr, ast.Call) and expr.args:
                name = _callee(expr)
                kind = guard_test(expr.args[0]) if name in SKIP_DECORATORS else None
                if kind is not None:
                    test = " ".join((self.segment(expr.args[0]) or "").split())
                    guard = Guard("if", expr.lineno, f"{kind}: @{name}({test})"[:120])
        if guard is None:
            for stmt in body:
                self.visit(stmt)
        else:
            self._guarded(guard, list(body))

    def _annotation(self, node: ast.AST, detail: str) -> None:
        if self.postponed:
            self._guarded(Guard("annotation", node.lineno, detail), node)  # type: ignore[attr-defined]
        else:
            self.visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self._annotation(node.annotation, "class" if self.scopes[-1].is_class else "")
        self.visit(node.target)
        if node.value is not None:
            self.visit(node.value)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if _in_roots(alias.name, self.roots):
                self._record(alias, "import", alias.name)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        if node.level or not _in_roots(module, self.roots):
            return
        for alias in node.names:
            if alias.name == "*":
                self._record(node, "import", module)
            else:
                self._record(alias, "from", f"{module}:{alias.name}")

    def visit_Try(self, node: ast.Try) -> None:
        caught = tuple(c for h in node.handlers for c in _catches(h))
        catches = tuple(c for c in caught if c in EXCEPTION_GUARDS)
        if catches:
            self._guarded(Guard("try", node.lineno, ", ".join(catches), catches), node.body)
        else:
            for stmt in node.body:
                self.visit(stmt)
        for handler in node.handlers:
            guard = Guard("except", handler.lineno, ", ".join(_catches(handler)))
            if handler.type is not None:
                self.visit(handler.type)
            self._guarded(guard, handler.body)
        for stmt in [*node.orelse, *node.finalbody]:
            self.visit(stmt)

    visit_TryStar = visit_Try

    def _branches(self, node: ast.If | ast.IfExp) -> None:
        self.visit(node.test)
        body = node.body if isinstance(node.body, list) else [node.body]
        orelse = node.orelse if isinstance(node.orelse, list) else [node.orelse]
        test = node.test
        negated = isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
        if _is_type_checking(test.operand if negated else test):  # type: ignore[attr-defined]
            typing_only, runs = (orelse, body) if negated else (body, orelse)
            self._guarded(Guard("type-checking", node.lineno), typing_only)
            for part in runs:
                self.visit(part)
            return
        kind = guard_test(test)
        if kind is None:
            for part in [*body, *orelse]:
                self.visit(part)
            return
        detail = f"{kind}: {' '.join((self.segment(test) or '').split())}"
        guard = Guard("if", node.lineno, detail[:120])
        self._guarded(guard, body)
        self._guarded(guard, orelse)

    visit_If = visit_IfExp = _branches

    def visit_BoolOp(self, node: ast.BoolOp) -> None:
        guard: Guard | None = None
        for value in node.values:
            if guard is not None:
                self._guarded(guard, value)
                continue
            self.visit(value)
            kind = guard_test(value)
            if kind is not None:
                guard = Guard("if", value.lineno, f"{kind}: (a test before `and`/`or`)")

    # ---- expressions

    def chain(self, node: ast.AST) -> str | None:
        """The provider chain an expression spells, or None."""
        if isinstance(node, ast.Name):
            return self.resolve(node.id)
        if isinstance(node, ast.Attribute):
            base = self.chain(node.value)
            return f"{base}.{node.attr}" if base else None
        if isinstance(node, ast.Call):
            base = self.chain(node.func)
            if base and base.rsplit(".", 1)[-1][:1].isupper():
                return f"{base}()"
        return None

    def _descend(self, node: ast.AST) -> None:
        """Inside a chain already recorded: record its inner calls, visit their arguments."""
        while True:
            if isinstance(node, ast.Attribute):
                node = node.value
            elif isinstance(node, ast.Call):
                self._call(node)
                return
            else:
                return

    def _call(self, node: ast.Call) -> None:
        target = self.chain(node.func)
        if target is not None:
            self._record(node, "call", target, _shape(node))
            self._descend(node.func)
        else:
            self.visit(node.func)
        for arg in [*node.args, *(k.value for k in node.keywords)]:
            self.visit(arg)

    def visit_Call(self, node: ast.Call) -> None:
        self._call(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if not isinstance(node.ctx, ast.Load):
            self.visit(node.value)  # `np.x.y = v` writes y: what it reads is np.x
            return
        target = self.chain(node)
        if target is None:
            self.visit(node.value)
            return
        self._record(node, "chain", target)
        self._descend(node.value)


def scan_source(source: str, path: str, roots: Iterable[str]) -> FileScan:
    """The touchpoints of one consumer file (`path` posix, relative to its import root)."""
    scanner = _Scanner(source, path, frozenset(roots))
    try:
        tree = ast.parse(source, filename=path)
    except (SyntaxError, ValueError) as exc:
        scanner.scan.error = f"{type(exc).__name__}: {exc}"
        return scanner.scan
    scanner.visit(tree)
    scanner.scan.touchpoints.sort(key=lambda t: (t.line, t.column, t.op, t.target))
    return scanner.scan
