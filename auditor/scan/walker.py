# Maintainers: the one pass over one consumer file's AST.
#
# Owns: the scope structure (module, class, function, lambda, comprehension; decorators,
# defaults, annotations and class bases evaluated in the enclosing scope, as Python does),
# the guard context (its base class, guarding.py: try/except, TYPE_CHECKING, version and
# feature tests, flags, suppress), and
# recording, without resolving anything yet: name bindings (into scopes.Scope) with the
# source of each plain store (an expression or an annotation, for values.py), imports (via
# imports.ImportRecorder), uses of names, chains (through calls too: `x.m().n`) and calls,
# stores into attributes (`self.x = ...`), `super()` calls, functions, classes with their
# bases and methods, Definitions and containment Edges.
# What a later stage reads of a node is read here, while the node is at hand (a span, a
# call's shape and result use, a stored value as a name or chain: facts.py), so the facts
# hold no node of the file's statements or calls and its tree is freed once walked.
# Takes: a parsed ast.Module and its facts.FileFacts shell. Gives: the filled FileFacts.
# Resolution waits until every file is walked (resolve.Resolver), so order never matters.
from __future__ import annotations

import ast
import re
from contextlib import contextmanager
from typing import TYPE_CHECKING

from auditor.model import Definition, Edge, Location, ParamKind
from auditor.provider import forwards
from auditor.scan import flags, results, spreads
from auditor.scan.calls import call_chain, call_shape, dotted_chain, reference, super_call
from auditor.scan.facts import (
    AttrStore,
    CallFacts,
    ClassFacts,
    FunctionFacts,
    Method,
    NameStore,
    Parameter,
    SuperUse,
    Use,
    UseKind,
    span_of,
)
from auditor.scan.guarding import Guarding
from auditor.scan.imports import ImportRecorder, absolute_module, root_of
from auditor.scan.scopes import NOT_HERE, Binding, Scope, Source, SourceKind, local_binding

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator

    from auditor.model import CallShape, FlagExpr, VersionTest
    from auditor.scan.calls import Chain
    from auditor.scan.facts import FileFacts, Span
    from auditor.scan.scopes import ScopeKind

_DEF_KEYWORD = re.compile(rb"(?:async\s+)?def\s+")
FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
_POSITIONAL = ParamKind.POSITIONAL_OR_KEYWORD
_VARIADIC = (ParamKind.VAR_POSITIONAL, ParamKind.VAR_KEYWORD)
Comprehension = ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp


class Walker(Guarding):
    """Visits one module once; see the comment block above."""

    def __init__(self, facts: FileFacts, providers: frozenset[str], *, stub: bool) -> None:
        self.facts = facts
        self.providers = providers
        self.imports = ImportRecorder(facts.positions, providers)
        self.scope = facts.module_scope
        self.guarded = stub  # a stub is never executed: everything in it is guarded
        self.fallback = False  # stores here do not hide an imported name
        self.klass: ClassFacts | None = None
        self.flags: dict[str, VersionTest] = {}  # module-level names bound to a version test
        self.assigned: set[str] = set()  # module-level names assigned (a flag: only once)
        self.named: dict[str, FlagExpr] = {}  # module-level flags not decided here
        self.postponed = False  # `from __future__ import annotations`: never evaluated
        self.reader = flags.Reader(
            self._import_of, self._local_def, self.flags, self.named, providers
        )
        self._named: set[tuple[int, str, tuple[str, ...]]] = set()  # NAME uses recorded
        self._chains: dict[tuple[str, ...], tuple[str, ...]] = {}  # one tuple per chain

    def run(self, tree: ast.Module) -> FileFacts:
        self.facts.results.update(results.result_uses(tree))
        self.facts.spread_keys.update(spreads.module_spreads(tree))
        self._body(tree.body)
        self.facts.import_sites = self.imports.finish()
        self.facts.results.clear()  # keyed by id() of nodes about to be freed: read above
        self.facts.spread_keys.clear()
        return self.facts

    # ------------------------------------------------------------------ machinery

    def visit(self, node: ast.AST) -> None:
        kind = type(node)
        method = _DISPATCH.get(kind)
        if method is not None:
            method(self, node)
        else:
            self._children(node)

    def _children(self, node: ast.AST) -> None:
        """Visit every child, without this node's own handler."""
        for name in _child_fields(type(node)):
            value = getattr(node, name, None)
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, ast.AST):
                        self.visit(item)
            elif isinstance(value, ast.AST):
                self.visit(value)

    def _body(self, nodes: Iterable[ast.AST]) -> None:
        block = list(nodes)
        for i, node in enumerate(block):
            self.visit(node)
            if (
                isinstance(node, ast.If)
                and i + 1 < len(block)
                and self._gate_rest(node, block[i + 1 :])
            ):
                with self._context(guarded=True):  # after `if hasattr(m, "x"): return ...`
                    self._body(block[i + 1 :])
                return

    @contextmanager
    def _context(self, *, guarded: bool = False, fallback: bool = False) -> Iterator[None]:
        saved = self.guarded, self.fallback
        self.guarded = self.guarded or guarded
        self.fallback = self.fallback or fallback
        try:
            yield
        finally:
            self.guarded, self.fallback = saved

    @contextmanager
    def _entered(self, scope: Scope, klass: ClassFacts | None = None) -> Iterator[None]:
        saved = self.scope, self.klass
        self.scope, self.klass = scope, klass
        try:
            yield
        finally:
            self.scope, self.klass = saved

    def _child_scope(self, kind: ScopeKind, owner: str) -> Scope:
        return Scope(kind, owner, self.facts.module, parent=self.scope)

    def _use(self, chain: tuple[str, ...], kind: UseKind, node: ast.expr) -> None:
        self._record(chain[0], chain[1:], kind, node)

    def _record(self, root: str, attrs: tuple[str, ...], kind: UseKind, node: ast.expr) -> None:
        """One use: a NAME keeps nothing of its node, the others its span, a call what it
        passes too. The same chain is one tuple in the whole file."""
        attrs = self._chains.setdefault(attrs, attrs)
        if kind is UseKind.NAME:
            self._name(root, attrs)
            return
        if isinstance(node, ast.Call):
            call = self._call_facts(node)
            use = Use(self.scope, root, attrs, kind, span_of(node), self.guarded, call)
        else:
            use = Use(self.scope, root, attrs, kind, span_of(node), self.guarded)
        self.facts.uses.append(use)

    def _name(self, root: str, attrs: tuple[str, ...]) -> None:
        """A NAME use: once per scope and chain. It only gives consumer edges, which are
        the same for every read of the chain in that scope (calls.use_results)."""
        key = (id(self.scope), root, attrs)
        if key not in self._named:
            self._named.add(key)
            self.facts.uses.append(Use(self.scope, root, attrs, UseKind.NAME, None, self.guarded))

    def _locate(self, node: ast.AST) -> Location:
        """Where a node is (a key written into a dict a call spreads)."""
        return self.facts.positions.location(span_of(node))  # type: ignore[arg-type]

    def _call_facts(self, node: ast.Call) -> CallFacts:
        args = node.args
        first = args[0] if args and not isinstance(args[0], ast.Starred) else None
        return CallFacts(
            call_shape(node, self.facts.spreads(node), self._locate),
            self.facts.result_use(node),
            first is not None,
            reference(first) if first is not None else None,
        )

    def _define(self, name: str, kind: str, node: ast.stmt) -> str:
        path = f"{self.scope.owner}.{name}"
        self.scope.bind_def(name, path, self.fallback)
        location = self.facts.positions.of(node)
        self.facts.definitions.append(Definition(path, kind, location))
        self.facts.containment.append(Edge(self.scope.owner, path))
        return path

    # ------------------------------------------------------------------ imports

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            bound = alias.asname or alias.name.split(".", 1)[0]
            self.scope.bind_import(bound, alias.name if alias.asname else bound)
            self._record_import(alias.asname or alias.name, alias.name, alias, module_only=True)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        facts = self.facts
        base = absolute_module(facts.module, facts.is_package, node.module, node.level)
        if base == "__future__":
            self.postponed = self.postponed or any(a.name == "annotations" for a in node.names)
        if base is None:
            return
        for alias in node.names:
            if alias.name == "*":
                self.scope.star_import(base, provider=root_of(base) in self.providers)
                self._record_import("*", base, alias, module_only=True)
                continue
            bound = alias.asname or alias.name
            self.scope.bind_import(bound, f"{base}.{alias.name}")
            self._record_import(bound, f"{base}.{alias.name}", alias, module_only=False)

    def _record_import(self, key: str, target: str, node: ast.alias, *, module_only: bool) -> None:
        owner = self.scope.owner
        self.imports.record(
            key, target, node, scope=owner, guarded=self.guarded, module_only=module_only
        )
        self.facts.module_refs.append((owner, target))

    # ------------------------------------------------------------------ definitions

    def visit_FunctionDef(self, node: FunctionNode) -> None:
        self._body(node.decorator_list)
        with self._context(guarded=self.postponed):
            self._signature_outside(node.args, node.returns)
        path = self._define(node.name, "function", node)
        if self.scope is self.facts.module_scope:
            helper = flags.helper_of(node, self.reader)
            if helper is not None:
                self.facts.flag_helpers.append(helper)
        skipped = self._skipped_unless(node)
        is_async = isinstance(node, ast.AsyncFunctionDef)
        positions = self.facts.positions
        decorators = tuple(positions.expr(d) for d in node.decorator_list)
        returns = positions.expr(node.returns) if node.returns is not None else None
        onward = forwards.forward_of(node) if node.args.kwarg is not None else None
        params = self._parameters(node.args)
        function = FunctionFacts(path, self.scope, params, returns, decorators, is_async, onward)
        self.facts.functions.append(function)
        self.facts.spread_keys.update(spreads.spread_keys(node))
        self.facts.results.update(results.result_uses(node))
        scope = self._child_scope("function", path)
        method = self.scope.kind == "class" and self.klass is not None
        static = any(dotted_chain(d) == ("staticmethod",) for d in node.decorator_list)
        hook = method and not static and not node.name.startswith("__")  # the provider calls
        self._bind_parameters(scope, params, node.name if hook else None)  # it, not Python
        if self.scope.kind == "class" and self.klass is not None:
            self._method(node, scope, function)
        with self._entered(scope), self._context(guarded=skipped):
            self._body(node.body)

    visit_AsyncFunctionDef = visit_FunctionDef

    def _signature_outside(self, args: ast.arguments, returns: ast.expr | None) -> None:
        for default in (*args.defaults, *args.kw_defaults):
            if default is not None:
                self.visit(default)
        every = (*args.posonlyargs, *args.args, args.vararg, *args.kwonlyargs, args.kwarg)
        for arg in every:
            if arg is not None and arg.annotation is not None:
                self.visit(arg.annotation)
        if returns is not None:
            self.visit(returns)

    def _parameters(self, args: ast.arguments) -> tuple[Parameter, ...]:
        """A def's parameters in signature order, their defaults and annotations as text."""
        expr = self.facts.positions.expr
        positional = (*args.posonlyargs, *args.args)
        defaults = (None,) * (len(positional) - len(args.defaults)) + tuple(args.defaults)
        named = len(args.posonlyargs)
        every = [
            (arg, ParamKind.POSITIONAL_ONLY if i < named else _POSITIONAL, default)
            for i, (arg, default) in enumerate(zip(positional, defaults, strict=True))
        ]
        every += [(args.vararg, ParamKind.VAR_POSITIONAL, None)] if args.vararg else []
        every += [
            (arg, ParamKind.KEYWORD_ONLY, default)
            for arg, default in zip(args.kwonlyargs, args.kw_defaults, strict=True)
        ]
        every += [(args.kwarg, ParamKind.VAR_KEYWORD, None)] if args.kwarg else []
        return tuple(
            Parameter(
                arg.arg,
                kind,
                expr(default) if default is not None else None,
                expr(arg.annotation) if arg.annotation is not None else None,
            )
            for arg, kind, default in every
        )

    def _bind_parameters(
        self, scope: Scope, params: tuple[Parameter, ...], method: str | None = None
    ) -> None:
        """Parameters are stores; an annotated one holds an instance of its annotation; an
        unannotated one of a method (`method`: its name; the receiver aside) what the
        provider method it may override declares for it (values.py decides)."""
        for index, param in enumerate(params):
            source = None  # `*args`, `**kwargs`: a tuple or a dict, nothing we follow
            if param.annotation is not None and param.kind not in _VARIADIC:
                source = Source(SourceKind.ANNOTATION, param.annotation, self.scope, self.guarded)
            elif method is not None and index > 0 and param.kind not in _VARIADIC:
                named = (method, (param.name,))
                source = Source(SourceKind.OVERRIDDEN, None, scope, self.guarded, named)
            self._bind(scope, param.name, source, fallback=False)

    def _method(self, node: FunctionNode, scope: Scope, function: FunctionFacts) -> None:
        assert self.klass is not None
        scope.method_of = self.klass.qualname
        positional = (*node.args.posonlyargs, *node.args.args)
        decorators = {dotted_chain(d) for d in node.decorator_list}
        if positional and ("staticmethod",) not in decorators:
            scope.self_name = positional[0].arg
        span = self._name_span(node)
        self.klass.methods.append(Method(node.name, span, self.guarded, function))

    def _name_span(self, node: FunctionNode) -> Span:
        lines = self.facts.positions.lines
        text = lines[node.lineno - 1].encode("utf-8") if node.lineno <= len(lines) else b""
        match = _DEF_KEYWORD.match(text, node.col_offset)
        if match is None:
            return span_of(node)
        start = match.end()
        return (node.lineno, start, node.lineno, start + len(node.name.encode("utf-8")))

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self._body(node.decorator_list)
        path = f"{self.scope.owner}.{node.name}"
        facts = ClassFacts(self.facts.path, path, self.scope, guarded=self.guarded)
        facts.made = bool(node.decorator_list) or any(k.arg == "metaclass" for k in node.keywords)
        for base in node.bases:
            self._base(facts, base)
        for keyword in node.keywords:
            self.visit(keyword.value)
        self._define(node.name, "class", node)
        self.facts.classes.append(facts)
        facts.body = self._child_scope("class", path)
        with self._entered(facts.body, facts):
            self._body(node.body)

    def _base(self, facts: ClassFacts, base: ast.expr) -> None:
        target = base.value if isinstance(base, ast.Subscript) else base
        chain = dotted_chain(target)
        if chain is None:
            self.visit(base)
            return
        facts.bases.append((chain[0], chain[1:], span_of(target)))
        self._use(chain, UseKind.NAME, target)  # consumer edges only
        if isinstance(base, ast.Subscript):
            self.visit(base.slice)

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self._signature_outside(node.args, None)
        scope = self._child_scope("lambda", self.scope.owner)
        self._bind_parameters(scope, self._parameters(node.args))
        with self._entered(scope, self.klass):
            self.visit(node.body)

    def _comprehension(self, node: Comprehension, results: tuple[ast.expr, ...]) -> None:
        generators = node.generators
        self.visit(generators[0].iter)
        outer = self.scope
        with self._entered(self._child_scope("comprehension", self.scope.owner), self.klass):
            for i, generator in enumerate(generators):
                if i:
                    self.visit(generator.iter)
                self._loop_target(generator.target, generator.iter, outer if i == 0 else self.scope)
                self._body(generator.ifs)
            self._body(results)

    def visit_For(self, node: ast.For) -> None:
        """`for x in expr:` binds x to an element of expr (values.py follows it)."""
        self.visit(node.iter)
        self._loop_target(node.target, node.iter, self.scope)
        self._body(node.body)
        self._body(node.orelse)

    def _loop_target(self, target: ast.expr, iterable: ast.expr, scope: Scope) -> None:
        if isinstance(target, ast.Name):
            found = reference(iterable)
            self._store(target.id, Source(SourceKind.ELEMENT, None, scope, self.guarded, found))
        else:
            self.visit(target)  # unpacking: opaque stores

    def visit_ListComp(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp) -> None:
        self._comprehension(node, (node.elt,))

    visit_SetComp = visit_GeneratorExp = visit_ListComp

    def visit_DictComp(self, node: ast.DictComp) -> None:
        self._comprehension(node, (node.key, node.value))

    # ------------------------------------------------------------------ names

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load):
            self._name(node.id, ())
        else:
            self._store(node.id)

    def _store(self, name: str, source: Source | None = None) -> None:
        """A plain binding; under `global` it lands in the module's scope."""
        scope = self.scope
        if name in scope.global_names:
            scope = self.facts.module_scope
        self._bind(scope, name, source, fallback=self.fallback)

    def _bind(self, scope: Scope, name: str, source: Source | None, *, fallback: bool) -> None:
        scope.store(name, fallback)
        self.facts.name_stores.append(NameStore(scope, name, source))

    def _value(self, expr: ast.expr, kind: SourceKind = SourceKind.VALUE) -> Source:
        if kind is SourceKind.ANNOTATION:
            return Source(kind, self.facts.positions.expr(expr), self.scope, self.guarded)
        none = isinstance(expr, ast.Constant) and expr.value is None
        return Source(kind, None, self.scope, self.guarded, reference(expr), none)

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        self.visit(node.value)
        scope = self.scope
        while scope.kind == "comprehension" and scope.parent is not None:
            scope = scope.parent
        if isinstance(node.target, ast.Name):
            self._bind(scope, node.target.id, self._value(node.value), fallback=self.fallback)

    def visit_Assign(self, node: ast.Assign) -> None:
        self.visit(node.value)
        if self.scope is self.facts.module_scope:
            self._flag(node)
        source = self._value(node.value)
        for target in node.targets:
            self._assign(target, source)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        # a function's local annotations are never evaluated; postponed ones (PEP 563) only
        # in a class body, where a model class may read them (pydantic, dataclasses)
        kind = self.scope.kind
        with self._context(guarded=kind == "function" or (self.postponed and kind != "class")):
            self.visit(node.annotation)
        if node.value is not None:
            self.visit(node.value)
        self._assign(node.target, self._value(node.annotation, SourceKind.ANNOTATION))

    def _import_of(self, name: str) -> str | None:
        """The module a name read here is bound to by an import, if one and only one (scope by
        scope as the resolver looks names up; a class body is not seen from inside it)."""
        scope: Scope | None = self.scope
        while scope is not None:
            hidden = scope.kind == "class" and scope is not self.scope
            found = NOT_HERE if hidden else local_binding(scope, name)
            if found is not NOT_HERE:
                imported = isinstance(found, Binding) and not (found.is_def or found.instance)
                paths = found.paths if isinstance(found, Binding) else ()
                return paths[0] if imported and len(set(paths)) == 1 else None
            scope = scope.parent
        return None

    def _assign(self, target: ast.expr, source: Source) -> None:
        if isinstance(target, ast.Name):
            self._store(target.id, source)
        elif isinstance(target, ast.Attribute):
            self._attribute_store(target, source)
            self.visit(target.value)
        else:
            self.visit(target)  # unpacking, subscripts: opaque stores

    def _attribute_store(self, node: ast.Attribute, source: Source | None) -> None:
        """`a.b.c = ...`: a STORE use of the whole chain; `x.attr = ...` also an AttrStore.

        `del x.attr` checks nothing, but `x.attr` is no longer what it was: an AttrStore only.
        """
        if isinstance(node.ctx, ast.Store):
            chain = dotted_chain(node)
            if chain is not None:
                if not self._own_attribute(chain):
                    self._use(chain, UseKind.STORE, node)
            elif (through := call_chain(node)) is not None:
                self._record(through.root, through.steps, UseKind.STORE, node)
        if isinstance(node.value, ast.Name):
            store = AttrStore(self.scope, node.value.id, node.attr, source)
            self.facts.attr_stores.append(store)

    def visit_Global(self, node: ast.Global) -> None:
        self.scope.global_names.update(node.names)

    def visit_Nonlocal(self, node: ast.Nonlocal) -> None:
        self.scope.nonlocal_names.update(node.names)

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.type is not None:
            self.visit(node.type)
        if node.name:
            self._store(node.name)
        self._body(node.body)

    def _store_pattern_name(self, name: str | None) -> None:
        if name:
            self._store(name)

    def visit_MatchAs(self, node: ast.MatchAs) -> None:
        self._store_pattern_name(node.name)
        if node.pattern is not None:
            self.visit(node.pattern)

    def visit_MatchStar(self, node: ast.MatchStar) -> None:
        self._store_pattern_name(node.name)

    def visit_MatchMapping(self, node: ast.MatchMapping) -> None:
        self._store_pattern_name(node.rest)
        for child in (*node.keys, *node.patterns):
            self.visit(child)

    # ------------------------------------------------------------------ chains and calls

    def _own_attribute(self, chain: tuple[str, ...]) -> bool:
        """`self.x` in a method: storing it makes `x` the consumer's, it checks nothing."""
        return len(chain) == 2 and chain[0] == self.scope.self_name

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if not isinstance(node.ctx, ast.Load):  # augmented, `for`, `with`, `del` targets...
            self._attribute_store(node, None)
            self.visit(node.value)
        elif (chain := dotted_chain(node)) is not None:
            self._use(chain, UseKind.ATTRIBUTE, node)
        elif (through := call_chain(node)) is not None:
            self._chain(node, through, UseKind.ATTRIBUTE)
        else:
            self.visit(node.value)

    def _chain(self, node: ast.expr, chain: Chain, kind: UseKind) -> None:
        """One use for the whole chain, one for each call inside it, then what is left."""
        if isinstance(chain.base, ast.NamedExpr):
            self.visit(chain.base)
        self._record(chain.root, chain.steps, kind, node)
        for before, call in chain.calls:
            self._record(chain.root, before, UseKind.CALL, call)
            self._arguments(call)
        self._body(chain.slices)

    def _arguments(self, node: ast.Call) -> None:
        self._body(node.args)
        for keyword in node.keywords:
            self.visit(keyword.value)

    def visit_BinOp(self, node: ast.BinOp) -> None:
        """Iterative down the left spine: `a + b + ... + z` may be thousands deep."""
        rights: list[ast.expr] = []
        current: ast.expr = node
        while isinstance(current, ast.BinOp):
            rights.append(current.right)
            current = current.left
        self.visit(current)
        self._body(reversed(rights))

    def visit_Call(self, node: ast.Call) -> None:
        chain = dotted_chain(node.func)
        found_super = super_call(node.func) if chain is None else None
        if found_super is not None:
            self._super(
                found_super[0],
                found_super[1],
                node,
                call_shape(node, self.facts.spreads(node), self._locate),
            )
            self.visit(found_super[1])
        elif chain is not None:
            self._use(chain, UseKind.CALL, node)
        elif (through := call_chain(node.func)) is not None:
            self._chain(node, through, UseKind.CALL)
        else:
            self.visit(node.func)
        self._arguments(node)

    def _super(self, method: str, inner: ast.Call, node: ast.Call, shape: CallShape) -> None:
        explicit = inner.args[0] if inner.args else None
        explicit_name = explicit.id if isinstance(explicit, ast.Name) else None
        klass = self._enclosing_class()
        use = SuperUse(self.scope, klass, explicit_name, method, span_of(node), shape, self.guarded)
        self.facts.supers.append(use)

    def _enclosing_class(self) -> str | None:
        scope: Scope | None = self.scope
        while scope is not None and scope.kind != "class":
            if scope.method_of is not None:
                return scope.method_of
            scope = scope.parent
        return None


def _leaf(_: Walker, __: ast.AST) -> None:
    """Constants, contexts and operators hold no names."""


_DISPATCH: dict[type[ast.AST], Callable[[Walker, ast.AST], None]] = {
    getattr(ast, name[6:]): getattr(Walker, name)
    for name in dir(Walker)
    if name.startswith("visit_") and hasattr(ast, name[6:])
}
_LEAVES = (ast.Constant, ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop)
_DISPATCH.update((leaf, _leaf) for base in _LEAVES for leaf in (base, *base.__subclasses__()))
_FIELDS: dict[type[ast.AST], tuple[str, ...]] = {}
_NOT_CHILDREN = frozenset({"ctx", "type_comment", "kind"})


def _child_fields(kind: type[ast.AST]) -> tuple[str, ...]:
    fields = _FIELDS.get(kind)
    if fields is None:
        fields = _FIELDS[kind] = tuple(f for f in kind._fields if f not in _NOT_CHILDREN)
    return fields
