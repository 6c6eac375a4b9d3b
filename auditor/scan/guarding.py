# Maintainers: the walker's guard context, one file's part of deciding what runs.
#
# Owns: the visits of statements that guard the lines inside them (try/except and what each
# handler catches, `with suppress(...)`, `if` and conditional expressions on TYPE_CHECKING,
# a version or feature test or a flag, `@skipif` conditions, the lines after an early
# return), module-level flags (`_flag`), gates (model.VersionGate, or model.FlagGate until
# other modules' flags are known: scan/flags.py), and isinstance narrowing.
# Takes: the Walker's state (this is its base class: walker.py holds the rest of the pass).
# Gives: guarded/fallback context for the uses walker.py records, Handled blocks, gates,
# flag definitions and gates in the file's facts.
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from auditor.model import FlagDef, FlagGate, Handled, VersionGate
from auditor.scan import flags, guards
from auditor.scan.calls import dotted_chain
from auditor.scan.scopes import Binding, SourceKind, local_binding

if TYPE_CHECKING:
    from collections.abc import Iterable
    from contextlib import AbstractContextManager

    from auditor.model import FlagExpr, VersionTest
    from auditor.scan.facts import FileFacts
    from auditor.scan.imports import ImportRecorder
    from auditor.scan.scopes import Source

    FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


class Guarding:
    """The guard visits of walker.Walker (its base class)."""

    if TYPE_CHECKING:  # what the Walker gives its base
        facts: FileFacts
        imports: ImportRecorder
        reader: flags.Reader
        flags: dict[str, VersionTest]
        named: dict[str, FlagExpr]
        assigned: set[str]

        def visit(self, node: ast.AST) -> None: ...
        def _children(self, node: ast.AST) -> None: ...
        def _body(self, nodes: Iterable[ast.AST]) -> None: ...
        def _context(
            self, *, guarded: bool = False, fallback: bool = False
        ) -> AbstractContextManager[None]: ...
        def _store(self, name: str, source: Source | None = None) -> None: ...
        def _value(self, expr: ast.expr, kind: SourceKind = SourceKind.VALUE) -> Source: ...

    def _gate_rest(self, node: ast.If, rest: list[ast.AST]) -> bool:
        """`if tornado.version_info >= (5, 0): return new()` then `return old()`: the lines
        after an `if` whose one branch always leaves run only when the other is taken.
        True when they are guarded as the branches are (a version or feature test)."""
        following = [n for n in rest if isinstance(n, ast.stmt)]
        body_leaves = leaves(node.body) and not node.orelse
        if len(following) != len(rest) or not (body_leaves or leaves(node.orelse)):
            return False
        if not body_leaves and leaves(node.body):
            return False
        expr = self._read(node.test)  # only now: most `if`s leave no branch
        if expr is None:
            return False
        self._gate(following, flags.negate(expr) if body_leaves else expr)
        return expr.vague or expr.test is not None

    def _read(self, test: ast.expr) -> FlagExpr | None:
        """What a test stands for (scan/flags.Reader), read with its source lines."""
        return self.reader.expr(test, self._source_of(test))

    def _skipped_unless(self, node: FunctionNode) -> bool:
        """`@pytest.mark.skipif(NUMPY_LT_2_0, ...)`: the body runs only when the condition
        does not hold (a gate); True when the condition is a flag or a feature test."""
        skipped = False
        for decorator in node.decorator_list:
            if not isinstance(decorator, ast.Call) or not decorator.args:
                continue
            if getattr(decorator.func, "attr", None) != "skipif":
                continue
            condition = decorator.args[0]
            expr = self._read(condition)
            if expr is not None:
                self._gate(node.body, flags.negate(expr))
                skipped = skipped or expr.ref is None
        return skipped

    def _flag(self, node: ast.Assign) -> None:
        """`IOLOOP_REMOVED = tornado.version_info >= (5, 0)`: a name that stands for a
        version test wherever `if` tests it (if it is assigned only this once)."""
        names = [t.id for t in node.targets if isinstance(t, ast.Name)]
        for name in names:
            self.flags.pop(name, None)
            self.named.pop(name, None)
        expr = self._read(node.value)
        for name in names:
            if expr is not None and name not in self.assigned and len(node.targets) == 1:
                if expr.test is not None:
                    self.flags[name] = expr.test
                else:
                    self.named[name] = expr
                self.facts.flag_defs.append(FlagDef(name, expr))
            self.assigned.add(name)

    def _gate(self, body: list[ast.stmt], expr: FlagExpr) -> None:
        """Lines that run only when `expr` holds: decided here (a VersionGate) or once the
        other modules' flags are known (a FlagGate, scan/flags.py)."""
        if not body or expr.vague:
            return
        first, last = body[0].lineno, end(body[-1])
        if expr.test is not None:
            self.facts.gates.append(VersionGate(first, last, expr.test))
        else:
            self.facts.flag_gates.append(FlagGate(first, last, expr))

    def _local_def(self, name: str) -> str | None:
        """The dotted path of a function or class this module defines under `name`."""
        found = local_binding(self.facts.module_scope, name)
        if isinstance(found, Binding) and found.is_def and len(set(found.paths)) == 1:
            return found.paths[0]
        return None

    def visit_Try(self, node: ast.Try) -> None:
        self._record_handled(node)
        if not guards.catches_import_failure(node.handlers):
            self._children(node)
            return
        branches = [self._branch(node.body, fallback=False)]
        branches += [self._branch([h], fallback=True) for h in node.handlers]
        self.imports.link(branches)
        self._body(node.orelse)
        self._body(node.finalbody)

    visit_TryStar = visit_Try

    def _record_handled(self, node: ast.Try) -> None:
        """The try body catches what any handler catches; each handler's own block is a
        fallback that runs only after the exception it names."""
        catches = [guards.caught(h) for h in node.handlers]
        if node.body and catches:
            every = frozenset().union(*catches)
            order = tuple(
                (names, guards.only_fails(h), h.lineno)
                for names, h in zip(catches, node.handlers, strict=True)
            )
            first, last = node.body[0].lineno, end(node.body[-1])
            self.facts.handled.append(Handled(first, last, every, order))
        for handler, names in zip(node.handlers, catches, strict=True):
            if handler.body:
                first, last = handler.body[0].lineno, end(handler.body[-1])
                self.facts.handled.append(Handled(first, last, names))

    def _branch(self, body: Iterable[ast.AST], *, fallback: bool) -> tuple[int, int]:
        start = self.imports.mark()
        with self._context(guarded=True, fallback=fallback):
            self._body(body)
        return start, self.imports.mark()

    def visit_If(self, node: ast.If) -> None:
        if guards.is_type_checking(node.test):
            self.visit(node.test)
            with self._context(guarded=True, fallback=True):
                self._body(node.body)
            with self._context(fallback=True):
                self._body(node.orelse)
            return
        expr = self._read(node.test)
        if expr is None:
            self._narrow(node.test)
            self._children(node)
        elif expr.ref is not None:  # another module's flag: decided once all are walked
            self._gate(node.body, expr)
            self._gate(node.orelse, flags.negate(expr))
            self._children(node)
        else:
            self._gate(node.body, expr)
            self._gate(node.orelse, flags.negate(expr))
            with self._context(guarded=True):
                self.visit(node.test)
            first = self._branch(node.body, fallback=True)
            self.imports.link([first, self._branch(node.orelse, fallback=True)])

    def _narrow(self, test: ast.expr) -> None:
        """`if isinstance(x, Sub):` (or `not`, or `and`-ed): inside (or after an early
        return) `x` is a `Sub`, not only what it was declared: one more store of `x`, as
        an instance of `Sub` (values.py then no longer trusts one declared type alone)."""
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            test = test.operand
        tests = test.values if isinstance(test, ast.BoolOp) else [test]
        for part in tests:
            if not (isinstance(part, ast.Call) and isinstance(part.func, ast.Name)):
                continue
            if part.func.id != "isinstance" or len(part.args) != 2:
                continue
            target, kind = part.args
            if isinstance(target, ast.Name):
                opaque = dotted_chain(kind) is None
                source = None if opaque else self._value(kind, SourceKind.ANNOTATION)
                self._store(target.id, source)

    def visit_IfExp(self, node: ast.IfExp) -> None:
        """`np.asfarray if NUMPY_LT_2_0 else np.asarray`: both sides share the test's lines,
        so a flag or a version or feature test guards both (no line gate can tell them)."""
        self.visit(node.test)
        guarded = self._read(node.test) is not None
        with self._context(guarded=guarded):
            self.visit(node.body)
            self.visit(node.orelse)

    def _source_of(self, node: ast.expr) -> str:
        end = node.end_lineno if node.end_lineno is not None else node.lineno
        return "\n".join(self.facts.positions.lines[node.lineno - 1 : end])

    def visit_With(self, node: ast.With | ast.AsyncWith) -> None:
        for item in node.items:
            self.visit(item)
        guarded = guards.suppresses_import_failure(node)
        with self._context(guarded=guarded, fallback=guarded):
            self._body(node.body)

    visit_AsyncWith = visit_With


def leaves(body: list[ast.stmt]) -> bool:
    """Whether a block never falls through to the next statement (it ends in return, raise,
    continue or break)."""
    return bool(body) and isinstance(body[-1], (ast.Return, ast.Raise, ast.Continue, ast.Break))


def end(node: ast.stmt) -> int:
    return node.end_lineno if node.end_lineno is not None else node.lineno
