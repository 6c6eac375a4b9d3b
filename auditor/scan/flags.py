# Maintainers: version flags and feature tests that cross modules.
#
# Owns: reading what an `if` test (or a `skipif` condition, or a module-level flag's value)
# stands for while its file is walked (`flag_expr`): a decided version test, a vague one
# (a version or a feature is looked at, but how cannot be decided: `IS_V2 =
# VERSION.startswith("2.")`, `hasattr(numpy, "float_")`, `find_spec("x")`), or a name of
# another consumer module (`from .compat import NUMPY_LT_2_0`), or a call of a consumer
# helper (`minversion(numpy, "2.0.0.dev")`); summarising such helpers (`helper_of`); and,
# once every file is walked, deciding the names and helpers across modules (`decide`): a
# flag that is a decided version test gives a model.VersionGate, a vague one guards lines.
# Takes: ast nodes and name lookups from the walker; the walked FileFacts. Gives: FlagExpr,
# FlagDef and FlagHelper records (kept with the file's facts), then gates and guarded spans.
from __future__ import annotations

import ast
import re
from dataclasses import replace
from typing import TYPE_CHECKING

from auditor.model import FlagExpr, FlagHelper, VersionGate, VersionTest
from auditor.scan import guards
from auditor.scan.calls import dotted_chain
from auditor.scan.imports import root_of
from auditor.scan.nodes import child_nodes

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping

    from auditor.scan.facts import FileFacts

    Resolve = Callable[[str], str | None]
    Gates = dict[str, list[VersionGate]]
    Spans = dict[str, list[tuple[int, int]]]

VAGUE = FlagExpr(vague=True)
_LITERAL = re.compile(r"v?(\d+(?:\.\d+)*)(?:[.-]?(?:dev|a|b|rc|alpha|beta|pre)\d*)*")
_DEPTH = 8  # flags defined in terms of flags, re-exported: how far a name is followed


def negate(expr: FlagExpr) -> FlagExpr:
    if expr.test is not None:
        return replace(expr, test=replace(expr.test, runs_if=not expr.test.runs_if))
    if expr.vague:
        return expr
    return replace(expr, negated=not expr.negated)


class Reader:
    """Reads tests for one file: `resolve` gives the import path of a local name,
    `local_def` the dotted path of a module-level def or class, `flags` the module's own
    decided flags, `named` its other flag definitions, `providers` the provider roots."""

    def __init__(
        self,
        resolve: Resolve,
        local_def: Resolve,
        flags: Mapping[str, VersionTest],
        named: Mapping[str, FlagExpr],
        providers: frozenset[str],
    ) -> None:
        self.resolve, self.local_def = resolve, local_def
        self.flags, self.named, self.providers = flags, named, providers

    def expr(self, test: ast.expr, source: str | None = None) -> FlagExpr | None:
        """What `test` stands for, or None when it is no flag anyone can tell."""
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            inner = self.expr(test.operand, source)
            return None if inner is None else negate(inner)
        decided = guards.version_test(test, self.resolve, self.flags)
        if decided is not None:
            return FlagExpr(test=decided)
        if isinstance(test, ast.Name) and test.id in self.named:
            return self.named[test.id]
        ref = self._consumer_ref(test)
        if ref is not None:
            return FlagExpr(ref=ref)
        if isinstance(test, ast.Call):
            helper = self._helper_call(test)
            if helper is not None:
                return helper
        if is_feature_test(test, self._provider, self._provider_module) or guards.is_version_check(
            test, source
        ):
            return VAGUE
        return None

    def _provider(self, node: ast.expr) -> bool:
        """Whether an expression names the provider (a name an import binds to it)."""
        chain = dotted_chain(node)
        if chain is None:
            return False
        head = self.resolve(chain[0])
        return head is not None and root_of(head) in self.providers

    def _provider_module(self, dotted: str) -> bool:
        return root_of(dotted) in self.providers

    def _consumer_ref(self, node: ast.expr) -> str | None:
        """The dotted path of a consumer module's name read here (not the provider's)."""
        chain = dotted_chain(node)
        if chain is None:
            return None
        head = self.resolve(chain[0]) or (self.local_def(chain[0]) if len(chain) == 1 else None)
        if head is None or root_of(head) in self.providers:
            return None
        return ".".join([head, *chain[1:]])

    def _helper_call(self, call: ast.Call) -> FlagExpr | None:
        ref = self._consumer_ref(call.func)
        if ref is None:
            return None
        passed = literal = None
        for arg in call.args:
            chain = dotted_chain(arg)
            head = self.resolve(chain[0]) if chain else None
            if chain and head and root_of(head) in self.providers and passed is None:
                passed = ".".join([head, *chain[1:]])
            elif isinstance(arg, ast.Constant) and isinstance(arg.value, str) and literal is None:
                literal = arg.value
        return FlagExpr(ref=ref, passed=passed, literal=literal)


def is_feature_test(
    test: ast.expr, provider: Callable[[ast.expr], bool], module: Callable[[str], bool]
) -> bool:
    """A test of whether the provider has something: `hasattr(m, "x")`, `getattr(m, "x",
    None)` or `"x" in dir(m)` where `m` is a provider name (`provider` says), or
    `importlib.util.find_spec("p.x")` of a provider module (compared with None or not), and
    any `and`/`or` holding one. `hasattr(o, "__json__")` of any other object tests that
    object, not the provider: it guards nothing."""
    if isinstance(test, ast.BoolOp):
        return any(is_feature_test(value, provider, module) for value in test.values)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return is_feature_test(test.operand, provider, module)
    if isinstance(test, ast.Compare):
        if len(test.ops) == 1 and isinstance(test.ops[0], (ast.In, ast.NotIn)):
            right = test.comparators[0]
            return (
                isinstance(right, ast.Call)
                and guards.last_name(right.func) in ("dir", "vars")
                and len(right.args) == 1
                and provider(right.args[0])
            )
        return is_feature_test(test.left, provider, module)
    if not isinstance(test, ast.Call) or not test.args:
        return False
    name, subject = guards.last_name(test.func), test.args[0]
    if name in ("find_spec", "find_loader"):
        return (
            isinstance(subject, ast.Constant)
            and isinstance(subject.value, str)
            and module(subject.value)
        )
    if name == "hasattr" or (name == "getattr" and len(test.args) == 3):
        return provider(subject)
    return False


# ---------------------------------------------------------------- helpers


def helper_of(node: ast.FunctionDef | ast.AsyncFunctionDef, reader: Reader) -> FlagHelper | None:
    """A module-level function that returns a version test: `def new(): return
    m.version_info >= (2,)`, or `def minversion(module, version, ...)` whose returns compare
    a version read in its body (`__version__`, `version(...)`) with its `version` parameter."""
    if isinstance(node, ast.AsyncFunctionDef):
        return None
    returns = [n.value for n in _own_nodes(node) if isinstance(n, ast.Return) and n.value]
    params = [a.arg for a in (*node.args.posonlyargs, *node.args.args)]
    required = len(params) - len(node.args.defaults)
    if required == 0:
        tests = [guards.version_test(r, reader.resolve, reader.flags) for r in returns]
        if len(tests) == 1 and tests[0] is not None:
            return FlagHelper(node.name, test=tests[0])
        return None
    if required < 2 or not _reads_a_version(node):
        return None
    ops: set[str] = set()
    indices: set[int] = set()
    for value in returns:
        found = _compared_with_param(value, params)
        if found is not None:
            ops.add(found[0])
            indices.add(found[1])
    if len(indices) != 1:
        return None
    version_index = indices.pop()
    module_index = 0 if version_index != 0 else 1
    return FlagHelper(node.name, None, "|".join(sorted(ops)), module_index, version_index)


def _own_nodes(node: ast.AST) -> Iterable[ast.AST]:
    """The nodes of a function's body, not of the functions and classes inside it (nor
    contexts and operators: nodes.child_nodes)."""
    stack = child_nodes(node)
    while stack:
        child = stack.pop()
        yield child
        if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            stack.extend(child_nodes(child))


def _reads_a_version(node: ast.AST) -> bool:
    for child in _own_nodes(node):
        if isinstance(child, ast.Attribute) and child.attr in ("__version__", "version_info"):
            return True
        if isinstance(child, ast.Constant) and child.value == "__version__":
            return True  # getattr(module, "__version__", None)
        if isinstance(child, ast.Call) and guards.last_name(child.func) == "version":
            return True  # importlib.metadata.version(name)
    return False


def _compared_with_param(value: ast.expr, params: list[str]) -> tuple[str, int] | None:
    """(op, index) for `<reading> OP <param>` (the param bare or wrapped in one call)."""
    if not isinstance(value, ast.Compare) or len(value.ops) != 1:
        return None
    op = guards.ORDER.get(type(value.ops[0]))
    if op is None:
        return None
    right = _param_index(value.comparators[0], params)
    if right is not None:
        return op, right
    left = _param_index(value.left, params)
    return (guards.FLIPPED[op], left) if left is not None else None


def _param_index(expr: ast.expr, params: list[str]) -> int | None:
    if isinstance(expr, ast.Call) and len(expr.args) == 1 and not expr.keywords:
        expr = expr.args[0]
    if isinstance(expr, ast.Name) and expr.id in params:
        return params.index(expr.id)
    return None


def helper_test(helper: FlagHelper, expr: FlagExpr) -> VersionTest | None:
    """The version test a call of `helper` makes, when it can be decided."""
    if helper.test is not None:
        return helper.test
    if not helper.op or expr.passed is None or expr.literal is None:
        return None
    match = _LITERAL.fullmatch(expr.literal.strip())
    if match is None:
        return None
    version = tuple(int(p) for p in match.group(1).split("."))
    ops = set(helper.op.split("|"))
    if match.group(1) != expr.literal.strip().lstrip("v"):
        # "2.0.0.dev": no final release lies between it and 2.0.0, so for a final release
        # `> 2.0.0.dev` is `>= 2.0.0` and `<= 2.0.0.dev` is `< 2.0.0`
        ops = {{">": ">=", "<=": "<"}.get(op, op) for op in ops}
    if len(ops) != 1:
        return None  # `inclusive=`: `>=` or `>`, which differ at the literal itself
    return VersionTest(expr.passed, ops.pop(), version, 0, True)


# ---------------------------------------------------------------- across modules


class Flags:
    """Every file's flag definitions and helpers, looked up by dotted path."""

    def __init__(self, walked: Iterable[FileFacts]) -> None:
        self.defs: dict[str, FlagExpr] = {}
        self.helpers: dict[str, FlagHelper] = {}
        self.imports: dict[str, str] = {}  # module.name -> what its module imports it as
        self.stars: dict[str, list[str]] = {}  # module -> the consumer modules it star-imports
        for facts in walked:
            for flag in facts.flag_defs:
                self.defs[f"{facts.module}.{flag.name}"] = flag.expr
            for helper in facts.flag_helpers:
                self.helpers[f"{facts.module}.{helper.name}"] = helper
            scope = facts.module_scope
            for name, targets in scope.imports.items():
                if len(set(targets)) == 1:
                    self.imports[f"{facts.module}.{name}"] = targets[0]
            if scope.star_modules:
                self.stars[facts.module] = list(scope.star_modules)

    def follow(self, path: str, depth: int = 0) -> str:
        """Where a dotted path leads through re-exports: `from .compat import X`, `from
        .numpycompat import *` (a flag is defined once, and imported under other names)."""
        seen: set[str] = set()
        while path not in seen and len(seen) < _DEPTH:
            seen.add(path)
            if path in self.defs or path in self.helpers:
                return path
            if path in self.imports:
                path = self.imports[path]
                continue
            module, _, name = path.rpartition(".")
            starred = [f"{m}.{name}" for m in self.stars.get(module, ())]
            found = [p for p in (self._found(s, depth + 1) for s in starred) if p is not None]
            if not found:
                return path
            path = found[-1]  # the last star import wins, as it does at run time
        return path

    def _found(self, path: str, depth: int) -> str | None:
        if depth > _DEPTH:
            return None
        followed = self.follow(path, depth)
        return followed if followed in self.defs or followed in self.helpers else None

    def evaluate(self, expr: FlagExpr, depth: int = 0) -> FlagExpr | None:
        """`expr` with its references followed: a decided test, VAGUE, or None."""
        if expr.ref is None or depth > _DEPTH:
            return expr if expr.ref is None else None
        path = self.follow(expr.ref)
        found: FlagExpr | None = None
        if path in self.helpers:
            test = helper_test(self.helpers[path], expr)
            found = FlagExpr(test=test) if test is not None else VAGUE
        elif path in self.defs and expr.passed is None and expr.literal is None:
            found = self.evaluate(self.defs[path], depth + 1)
        if found is None:
            return None
        return negate(found) if expr.negated else found


def decide(
    walked: list[FileFacts], only: Iterable[FileFacts] | None = None
) -> tuple[dict[str, list[VersionGate]], dict[str, list[tuple[int, int]]]]:
    """Per file (of `only`, else of every file): the version gates and the guarded line
    spans its cross-module flags give, every file's flags known."""
    gates: Gates = {}
    guarded: Spans = {}
    files = list(walked if only is None else only)
    if not any(facts.flag_gates for facts in files):
        return gates, guarded  # no test of another module's name: nothing to decide
    flags = Flags(walked)
    for facts in files:
        for gate in facts.flag_gates:
            found = flags.evaluate(gate.expr)
            if found is None:
                continue
            if found.test is not None:
                gates.setdefault(facts.path, []).append(
                    VersionGate(gate.first_line, gate.last_line, found.test)
                )
            guarded.setdefault(facts.path, []).append((gate.first_line, gate.last_line))
    return gates, guarded
