"""Module namespaces as they run: what a module's dynamic machinery serves for a name.

What it owns: a small, bounded evaluator over a provider module's AST, for the idioms that
make names appear at run time without a `def` or an import griffe can see:

- PEP 562 `__getattr__(name)`, evaluated for the one name looked up: comparisons with
  literals, membership in module-level containers (dict, set, tuple, list, and what is built
  from them: `{**a, **b}`, comprehensions, `.update()`, `x[k] = v`, `.add()`, `.extend()`),
  `return` (an imported name, `importlib.import_module(...)` of a submodule, `getattr()` of
  one, `globals()[...]`), `raise`, `try/except`, a `warnings.warn(..., DeprecationWarning)`
  before a return (deprecated), delegation to a helper function of the same provider, and a
  `__getattr__` that a factory call returns (evaluated through the factory's source);
- lazy loaders: `lazy_loader.attach(__name__, submodules=..., submod_attrs=...)` with
  evaluable arguments, `lazy_loader.attach_stub(__name__, __file__)` (the `.pyi` beside the
  `__init__`), and `sys.modules[__name__] = <...LazyModule>(__name__, __file__, structure,
  ...)` with an import-structure dict built by literal assignments and mutation;
- names written into the namespace at import time: `globals()[k] = v`,
  `globals().update(...)`, `setattr(sys.modules[__name__], k, v)`, `vars()[k] = v`, also in
  loops over what is statically known (a literal, a module-level container, the members of an
  Enum defined there). When a write's key is not known, every name of that module is
  undecided, never removed.

What it takes: a `Host` that gives module ASTs, stubs, member names and provider functions
(the API, which loads them through griffe and the source tree). What it gives, for a module
and a name: `Served` (with the provider path it resolves to when known, and a deprecation
message when the module warns), `Refused` (the interpreter would raise), `Undecided`, or
None when the module has no such machinery. Statements of `if TYPE_CHECKING:` blocks are
skipped (they never run); other branches at module level are all taken (a name any of them
adds may exist). Never guesses a refusal: anything it cannot follow is Undecided.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

MAX_STEPS = 200_000
MAX_LOOP = 10_000
MAX_CALL_DEPTH = 6
DEPRECATIONS = frozenset({"DeprecationWarning", "PendingDeprecationWarning", "FutureWarning"})
LAZY_ATTACH = frozenset({"lazy_loader.attach"})
LAZY_ATTACH_STUB = frozenset({"lazy_loader.attach_stub"})
BUILTINS = frozenset(
    {"globals", "vars", "dir", "getattr", "hasattr", "set", "frozenset", "dict", "list", "tuple",
     "sorted", "len", "str", "isinstance", "any", "all", "setattr", "AttributeError",
     "ImportError", "KeyError", "ModuleNotFoundError"}
)  # fmt: skip
STR_METHODS = frozenset(
    {"startswith", "endswith", "lower", "upper", "strip", "lstrip", "rstrip", "replace",
     "split", "rsplit", "partition", "rpartition", "removeprefix", "removesuffix", "join",
     "format", "isidentifier", "islower", "isupper", "title", "capitalize"}
)  # fmt: skip


# --------------------------------------------------------------------------- outcomes


@dataclass(frozen=True)
class Served:
    """The module gives the name: `target` is the provider path it resolves to, if known."""

    target: str | None
    deprecated: str | None = None


@dataclass(frozen=True)
class Refused:
    """Getting the name raises (AttributeError, ImportError...)."""

    reason: str


@dataclass(frozen=True)
class Undecided:
    reason: str


Outcome = Served | Refused | Undecided


class Host(Protocol):
    def module_ast(self, module: str) -> tuple[ast.Module, bool] | None:
        """The parsed source of a provider module and whether it is a package; None: absent."""

    def stub_ast(self, module: str) -> ast.Module | None:
        """The `.pyi` stub of a package's `__init__` (lazy_loader.attach_stub), if any."""

    def member_names(self, module: str) -> list[str] | None:
        """What `dir(module)` lists for a provider module; None when unknown."""

    def owns(self, path: str) -> bool: ...


# --------------------------------------------------------------------------- values


class _Unknown:
    _instance: _Unknown | None = None

    def __new__(cls) -> _Unknown:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN: Any = _Unknown()


@dataclass
class Ref:
    """A reference to a named object: a provider path (or an external one)."""

    path: str
    module: bool = False


@dataclass
class Partial:
    """A container some of whose contents are not known: `known` is what is."""

    known: Any


@dataclass
class EnumClass:
    names: list[str]


@dataclass
class EnumMember:
    name: str


@dataclass
class Function:
    """A function defined in a provider module, with its closure when a factory made it."""

    node: ast.FunctionDef | ast.AsyncFunctionDef
    module: str
    closure: dict[str, Any] = field(default_factory=dict)


class _GlobalsView:
    """What `globals()` / `vars()` gives inside the module's own code."""


@dataclass
class _ModuleObject:
    """`sys.modules[name]` for a provider module named by a known string."""

    path: str


@dataclass
class _Namespace:
    """`sys.modules[name].__dict__`: a provider module's names (griffe's members, and what
    its top level writes into its namespace)."""

    path: str


class _Raised(Exception):
    def __init__(self, name: str, message: str = "") -> None:
        super().__init__(name)
        self.name = name
        self.message = message


class _Stop(Exception):
    """The evaluation cannot go on: the outcome is Undecided."""


class _Return(Exception):
    def __init__(self, value: Any) -> None:
        super().__init__("return")
        self.value = value


# --------------------------------------------------------------------------- module facts


@dataclass
class ModuleFacts:
    """What evaluating a module's top level tells: its values, dynamic names, getattr."""

    module: str
    package: str  # the package relative imports start from
    values: dict[str, Any] = field(default_factory=dict)
    written: set[str] = field(default_factory=set)  # names put there through globals()...
    written_unknown: bool = False  # a write whose key could not be known
    getattr: Any = None  # Function, ("lazy", submodules, attrs), or UNKNOWN
    lazy_module: Any = None  # ("lazy", submodules, attrs, extra) for sys.modules[...] = ...
    deps: set[str] = field(default_factory=set)  # every module its evaluation read


class Evaluator:
    """Evaluates module top levels (cached) and `__getattr__` calls, within MAX_STEPS."""

    def __init__(self, host: Host) -> None:
        self.host = host
        self._facts: dict[str, ModuleFacts | None] = {}
        self._reading: list[set[str]] = []  # the deps of each module under evaluation
        self._steps = 0

    # ------------------------------------------------------------------- entry point

    def lookup(self, module: str, name: str) -> Outcome | None:
        """What getting `name` from `module` does at run time, beyond its static members."""
        self._steps = 0
        try:
            facts = self.facts(module)
        except (_Stop, _Raised, _Return) as stop:
            return Undecided(f"{module}: {stop}")
        if facts is None:
            return None
        if name in facts.written:
            return Served(None)
        outcomes = [
            self._through(model, facts, name)
            for model in (facts.lazy_module, facts.getattr)
            if model is not None
        ]
        served = [o for o in outcomes if isinstance(o, Served)]
        if served:
            return served[0]
        if facts.written_unknown:
            return Undecided(f"{module} writes names into its namespace that are not known")
        undecided = [o for o in outcomes if isinstance(o, Undecided)]
        return undecided[0] if undecided else (outcomes[0] if outcomes else None)

    def _through(self, model: Any, facts: ModuleFacts, name: str) -> Outcome:
        if model is UNKNOWN:
            return Undecided(f"{facts.module} sets __getattr__ to something not known")
        if isinstance(model, tuple) and model[0] == "lazy":
            return _lazy_outcome(facts, model, name)
        if isinstance(model, Function):
            try:
                return self.call_getattr(model, name)
            except _Stop as stop:
                return Undecided(f"{facts.module}.__getattr__: {stop}")
        return Undecided(f"{facts.module}: an unknown namespace model")

    # ------------------------------------------------------------------- module level

    def facts(self, module: str) -> ModuleFacts | None:
        """The module's top level evaluated, when it has dynamic machinery; else None."""
        loaded = self.read(module)
        if loaded is None or not _has_machinery(loaded[0]):
            return None
        return self.namespace(module)

    def namespace(self, module: str) -> ModuleFacts | None:
        """The module's top level evaluated (for a helper function of it that is called).

        A module being evaluated is served as far as it got (as Python runs a module top to
        bottom: a factory called halfway sees what was defined before it). Every module the
        evaluation read is touched again on reuse, so the lookup memo sees it."""
        if module in self._facts:
            facts = self._facts[module]
            for dep in facts.deps if facts is not None else ():
                self.host.module_ast(dep)
            return facts
        loaded = self.host.module_ast(module)
        if loaded is None:
            self._facts[module] = None
            return None
        tree, is_package = loaded
        package = module if is_package else module.rpartition(".")[0]
        facts = ModuleFacts(module, package)
        self._facts[module] = facts
        self._reading.append(facts.deps)
        try:
            self._compute(facts, tree)
        finally:
            self._reading.pop()
        for outer in self._reading:
            outer |= facts.deps
        return facts

    def read(self, module: str) -> tuple[ast.Module, bool] | None:
        """host.module_ast, recording the module as a dependency of what is being read."""
        for deps in self._reading:
            deps.add(module)
        return self.host.module_ast(module)

    def _compute(self, facts: ModuleFacts, tree: ast.Module) -> None:
        facts.deps.add(facts.module)
        frame = _Frame(self, facts, facts.values, top=True)
        frame.run_block(tree.body, certain=True)
        bound = facts.values.get("__getattr__")
        if facts.getattr is None and isinstance(bound, Ref):  # `from ._lazy import __getattr__`
            facts.getattr = frame.ev_function(bound.path) or UNKNOWN

    # ------------------------------------------------------------------- functions

    def call_getattr(self, function: Function, name: str) -> Outcome:
        facts = self.namespace(function.module)
        if facts is None:
            raise _Stop(f"module {function.module} could not be read")
        frame = _Frame(self, facts, {**function.closure}, top=False)
        params = [a.arg for a in (*function.node.args.posonlyargs, *function.node.args.args)]
        if not params:
            raise _Stop("__getattr__ takes no parameter")
        frame.locals[params[0]] = name
        try:
            frame.run_block(function.node.body, certain=True)
        except _Return as done:
            return _served(done.value, frame.deprecated)
        except _Raised as raised:
            return Refused(f"__getattr__ raises {raised.name}")
        return _served(None, frame.deprecated)

    def call(
        self,
        function: Function,
        args: list[Any],
        kwargs: dict[str, Any],
        depth: int,
        caller: _Frame | None = None,
    ) -> Any:
        """Call a provider function with evaluated arguments: its return value. A warning it
        gives is the caller's too (a helper that __getattr__ delegates to)."""
        if depth > MAX_CALL_DEPTH:
            raise _Stop("calls nest too deeply")
        facts = self.namespace(function.module)
        if facts is None:
            raise _Stop(f"module {function.module} could not be read")
        frame = _Frame(self, facts, {**function.closure}, top=False, depth=depth)
        _bind(function.node.args, args, kwargs, frame.locals)
        try:
            frame.run_block(function.node.body, certain=True)
        except _Return as done:
            return done.value
        finally:
            if caller is not None and frame.deprecated:
                caller.deprecated = frame.deprecated
        return None

    def tick(self) -> None:
        self._steps += 1
        if self._steps > MAX_STEPS:
            raise _Stop("the evaluation takes too many steps")


def _served(value: Any, deprecated: str | None) -> Outcome:
    if isinstance(value, Ref):
        return Served(value.path, deprecated)
    if value is UNKNOWN or isinstance(value, Partial):
        return Served(None, deprecated)
    return Served(None, deprecated)


def _lazy_outcome(facts: ModuleFacts, model: tuple[Any, ...], name: str) -> Outcome:
    _, submodules, attrs, extra = model
    if submodules is UNKNOWN or attrs is UNKNOWN:
        return Undecided(f"{facts.module}: its lazy loader's names are not known")
    if name in submodules:
        return Served(f"{facts.package}.{name}")
    for sub, names in attrs.items():
        if name in names:
            return Served(f"{facts.package}.{sub}.{name}")
    if name in (extra or ()):
        return Served(None)
    if isinstance(submodules, Partial) or any(isinstance(v, Partial) for v in attrs.values()):
        return Undecided(f"{facts.module}: its lazy loader's names are only partly known")
    return Refused(f"{facts.module}'s lazy loader does not serve {name}")


def _has_machinery(tree: ast.Module) -> bool:
    """Whether a module could have a dynamic namespace at all (cheap text-free AST scan)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == "__getattr__":
            return True
        if isinstance(node, ast.Name) and node.id in ("__getattr__", "globals", "vars"):
            return True
        if isinstance(node, ast.Attribute) and node.attr in ("modules", "attach", "attach_stub"):
            return True
    return False


def bind_arguments(
    arguments: ast.arguments, args: list[Any], kwargs: dict[str, Any], out: dict[str, Any]
) -> None:
    """Parameters of a function bound to evaluated arguments (UNKNOWN where not given)."""
    _bind(arguments, args, dict(kwargs), out)


def _bind(
    arguments: ast.arguments, args: list[Any], kwargs: dict[str, Any], out: dict[str, Any]
) -> None:
    positional = [*arguments.posonlyargs, *arguments.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(arguments.defaults))
    defaults += arguments.defaults
    for i, param in enumerate(positional):
        default = defaults[i]
        if i < len(args):
            out[param.arg] = args[i]
        elif param.arg in kwargs:
            out[param.arg] = kwargs.pop(param.arg)
        elif default is not None:
            out[param.arg] = _literal(default)
        else:
            out[param.arg] = UNKNOWN
    for param, default in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True):
        if param.arg in kwargs:
            out[param.arg] = kwargs.pop(param.arg)
        else:
            out[param.arg] = _literal(default) if default is not None else UNKNOWN
    if arguments.vararg is not None:
        out[arguments.vararg.arg] = tuple(args[len(positional) :])
    if arguments.kwarg is not None:
        out[arguments.kwarg.arg] = dict(kwargs)


def _literal(node: ast.expr) -> Any:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, RecursionError):
        return UNKNOWN


# --------------------------------------------------------------------------- a frame


class _Frame:
    """Statements and expressions of one scope (a module's top level or a function)."""

    def __init__(
        self,
        evaluator: Evaluator,
        facts: ModuleFacts,
        locals_: dict[str, Any],
        *,
        top: bool,
        depth: int = 0,
    ) -> None:
        self.ev = evaluator
        self.facts = facts
        self.locals = locals_
        self.top = top
        self.depth = depth
        self.deprecated: str | None = None

    # ------------------------------------------------------------------- statements

    def run_block(self, body: Iterable[ast.stmt], *, certain: bool) -> None:
        for node in body:
            self.ev.tick()
            if not self.top:
                self.run(node, certain)
                continue
            try:  # a module statement we evaluate wrongly must not stop the rest
                self.run(node, certain)
            except (_Raised, _Return):
                continue

    def run(self, node: ast.stmt, certain: bool) -> None:
        handler = getattr(self, f"_stmt_{type(node).__name__}", None)
        if handler is not None:
            handler(node, certain)
        elif not self.top:
            raise _Stop(f"a {type(node).__name__} statement is not followed")

    def _stmt_Pass(self, node: ast.Pass, certain: bool) -> None:
        return

    def _stmt_Global(self, node: ast.Global, certain: bool) -> None:
        return

    def _stmt_Nonlocal(self, node: ast.Nonlocal, certain: bool) -> None:
        return

    def _stmt_FunctionDef(self, node: ast.FunctionDef, certain: bool) -> None:
        self.locals[node.name] = Function(node, self.facts.module, self._closure())
        if self.top and node.name == "__getattr__":
            self.facts.getattr = self.locals[node.name]

    _stmt_AsyncFunctionDef = _stmt_FunctionDef

    def _stmt_ClassDef(self, node: ast.ClassDef, certain: bool) -> None:
        bases = {_dotted(b) for b in node.bases}
        if any(b and b.rsplit(".", 1)[-1].endswith(("Enum", "Flag")) for b in bases):
            names = [
                t.id
                for stmt in node.body
                if isinstance(stmt, ast.Assign)
                for t in stmt.targets
                if isinstance(t, ast.Name) and not t.id.startswith("_")
            ]
            self.locals[node.name] = EnumClass(names)
        else:
            self.locals[node.name] = Ref(f"{self.facts.module}.{node.name}")

    def _stmt_Import(self, node: ast.Import, certain: bool) -> None:
        for alias in node.names:
            if alias.asname:
                self.locals[alias.asname] = Ref(alias.name, module=True)
            else:
                head = alias.name.split(".", 1)[0]
                self.locals[head] = Ref(head, module=True)

    def _stmt_ImportFrom(self, node: ast.ImportFrom, certain: bool) -> None:
        base = _absolute(node.module or "", node.level, self.facts.package)
        for alias in node.names:
            if alias.name == "*":
                continue
            self.locals[alias.asname or alias.name] = Ref(f"{base}.{alias.name}")

    def _stmt_Expr(self, node: ast.Expr, certain: bool) -> None:
        if isinstance(node.value, ast.Call):
            self.call(node.value, statement=True, certain=certain)
        elif not self.top and not isinstance(node.value, ast.Constant):
            self.value(node.value)

    def _stmt_Return(self, node: ast.Return, certain: bool) -> None:
        raise _Return(self.value(node.value) if node.value is not None else None)

    def _stmt_Raise(self, node: ast.Raise, certain: bool) -> None:
        exc = node.exc
        target = exc.func if isinstance(exc, ast.Call) else exc
        name = _dotted(target) if target is not None else None  # a bare `raise`: re-raise
        raise _Raised((name or "Exception").rsplit(".", 1)[-1])

    def _stmt_Assign(self, node: ast.Assign, certain: bool) -> None:
        if self.top and self._lazy_assign(node):
            return
        value = self.value(node.value) if self.top else self._strict(node.value)
        for target in node.targets:
            self.assign(target, value, certain)

    def _stmt_AnnAssign(self, node: ast.AnnAssign, certain: bool) -> None:
        if node.value is not None:
            self.assign(node.target, self.value(node.value), certain)

    def _stmt_AugAssign(self, node: ast.AugAssign, certain: bool) -> None:
        if not isinstance(node.target, ast.Name):
            return self._unknown_write(node.target)
        current = self.lookup(node.target.id)
        update = self.value(node.value)
        result = _binop(node.op, current, update)
        self.locals[node.target.id] = _merge(current, result, certain)
        return None

    def _stmt_If(self, node: ast.If, certain: bool) -> None:
        if _is_type_checking(node.test):
            self.run_block(node.orelse, certain=certain)
            return
        test = self.value(node.test)
        if test is UNKNOWN or isinstance(test, (Partial, Ref)):
            if not self.top:
                raise _Stop(f"the condition `{ast.unparse(node.test)[:80]}` cannot be decided")
            self.run_block(node.body, certain=False)
            self.run_block(node.orelse, certain=False)
        elif test:
            self.run_block(node.body, certain=certain)
        else:
            self.run_block(node.orelse, certain=certain)

    def _stmt_Try(self, node: ast.Try, certain: bool) -> None:
        if self.top:  # every branch may run at import time: take them all
            for block in (node.body, *(h.body for h in node.handlers), node.orelse, node.finalbody):
                self._quietly(block)
            return
        try:
            self.run_block(node.body, certain=certain)
        except _Raised as raised:
            for handler in node.handlers:
                if _catches(handler, raised.name):
                    if handler.name:
                        self.locals[handler.name] = UNKNOWN
                    self.run_block(handler.body, certain=certain)
                    break
            else:
                raise
        else:
            self.run_block(node.orelse, certain=certain)
        finally:
            self.run_block(node.finalbody, certain=certain)

    def _stmt_With(self, node: ast.With, certain: bool) -> None:
        self.run_block(node.body, certain=certain)

    def _stmt_For(self, node: ast.For, certain: bool) -> None:
        items = self.value(node.iter)
        seq = _iterate(items)
        if seq is None:
            if not self.top:
                raise _Stop("a loop over something not known")
            self._quietly(node.body, unknown_target=node.target)
            return
        for count, item in enumerate(seq):
            if count >= MAX_LOOP:
                raise _Stop("a loop too long to follow")
            self.assign(node.target, item, certain)
            self.run_block(node.body, certain=certain)
        self.run_block(node.orelse, certain=certain)

    def _quietly(self, body: list[ast.stmt], unknown_target: ast.expr | None = None) -> None:
        """Module level, a branch that may or may not run: its writes count as possible."""
        if unknown_target is not None:
            self.assign(unknown_target, UNKNOWN, certain=False)
        for node in body:
            try:
                self.ev.tick()
                self.run(node, certain=False)
            except (_Raised, _Return):
                return

    # ------------------------------------------------------------------- assignment

    def assign(self, target: ast.expr, value: Any, certain: bool) -> None:
        if isinstance(target, ast.Name):
            old = self.locals.get(target.id, None)
            self.locals[target.id] = value if certain or old is None else _merge(old, value, False)
        elif isinstance(target, (ast.Tuple, ast.List)):
            items = value if isinstance(value, tuple) and len(value) == len(target.elts) else None
            for i, element in enumerate(target.elts):
                self.assign(element, items[i] if items is not None else UNKNOWN, certain)
        elif isinstance(target, ast.Subscript):
            self._set_item(target, value)
        elif isinstance(target, ast.Attribute):
            return

    def _set_item(self, target: ast.Subscript, value: Any) -> None:
        container = self.value(target.value)
        key = self.value(target.slice)
        if isinstance(container, _GlobalsView):
            self._write(key)
            return
        if isinstance(container, Partial):
            container = container.known
        if isinstance(container, dict):
            if key is UNKNOWN or isinstance(key, (Partial, Ref)):
                self._poison(target.value)
            else:
                container[key] = value
        elif isinstance(container, Ref) and container.path == "sys.modules":
            return

    def _write(self, key: Any) -> None:
        """A name written into the module's namespace at import time."""
        if isinstance(key, str):
            self.facts.written.add(key)
        else:
            self.facts.written_unknown = True

    def _poison(self, expr: ast.expr) -> None:
        """A container got an entry whose key is not known: it becomes Partial."""
        if isinstance(expr, ast.Name):
            current = self.locals.get(expr.id)
            if current is not None and not isinstance(current, Partial):
                self.locals[expr.id] = Partial(current)

    def _unknown_write(self, target: ast.expr) -> None:
        if isinstance(target, ast.Subscript):
            self._poison(target.value)

    # ------------------------------------------------------------------- lazy loaders

    def _lazy_assign(self, node: ast.Assign) -> bool:
        """`__getattr__, __dir__, __all__ = lazy_loader.attach(...)`, a factory's
        `__getattr__ = make(...)`, or `sys.modules[__name__] = SomeLazyModule(...)`."""
        call = node.value
        if not isinstance(call, ast.Call):
            return False
        names = [n for t in node.targets for n in _target_names(t)]
        if "__getattr__" in names:
            self.facts.getattr = self._getattr_model(call)
            return True
        if any(_is_sys_modules_self(t) for t in node.targets):
            self.facts.lazy_module = self._lazy_module_model(call)
            return True
        return False

    def _getattr_model(self, call: ast.Call) -> Any:
        callee = self.canonical(call.func)
        args = [self.value(a) for a in call.args]
        kwargs = {k.arg: self.value(k.value) for k in call.keywords if k.arg}
        if callee in LAZY_ATTACH:
            submodules = _as_set(kwargs.get("submodules", args[1] if len(args) > 1 else ()))
            attrs = _as_attrs(kwargs.get("submod_attrs", args[2] if len(args) > 2 else {}))
            return ("lazy", submodules, attrs, set())
        if callee in LAZY_ATTACH_STUB:
            return self._stub_model()
        factory = self.value(call.func)
        if isinstance(factory, Ref):
            factory = self.ev_function(factory.path)
        if isinstance(factory, Function):
            try:
                result = self.ev.call(factory, args, kwargs, self.depth + 1)
            except (_Stop, _Raised):
                return UNKNOWN
            if isinstance(result, tuple) and result:
                result = result[0]
            return result if isinstance(result, Function) else UNKNOWN
        return UNKNOWN

    def _stub_model(self) -> Any:
        stub = self.ev.host.stub_ast(self.facts.module)
        self.facts.deps.add(self.facts.module)
        if stub is None:
            return UNKNOWN
        submodules: set[str] = set()
        attrs: dict[str, set[str]] = {}
        for node in stub.body:
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                names = {a.asname or a.name for a in node.names if a.name != "*"}
                if node.module is None:
                    submodules |= names
                else:
                    attrs.setdefault(node.module, set()).update(names)
            elif isinstance(node, (ast.ImportFrom, ast.Import)):
                continue
        return ("lazy", submodules, attrs, set())

    def _lazy_module_model(self, call: ast.Call) -> Any:
        callee = _dotted(call.func) or ""
        if not callee.rsplit(".", 1)[-1].endswith("LazyModule"):
            return UNKNOWN
        structure: Any = UNKNOWN
        extra: Any = set()
        for arg in call.args:
            value = self.value(arg)
            if isinstance(value, (dict, Partial)) and structure is UNKNOWN:
                structure = value
        for keyword in call.keywords:
            if keyword.arg == "import_structure":
                structure = self.value(keyword.value)
            elif keyword.arg == "extra_objects":
                found = self.value(keyword.value)
                extra = set(found) if isinstance(found, dict) else UNKNOWN
        partial = isinstance(structure, Partial)
        known = structure.known if partial else structure
        if not isinstance(known, dict):
            return UNKNOWN
        submodules: Any = set(known)
        attrs: dict[str, Any] = {}
        for key, value in known.items():
            names = _as_set(value)
            attrs[key] = names if names is not UNKNOWN else Partial(set())
        if partial:
            submodules = Partial(submodules)
        if extra is UNKNOWN:
            return UNKNOWN
        return ("lazy", submodules, attrs, extra)

    def ev_function(self, path: str) -> Function | None:
        module, _, name = path.rpartition(".")
        if not module or not self.ev.host.owns(path):
            return None
        facts = self.ev.namespace(module)
        value = facts.values.get(name) if facts is not None else None
        return value if isinstance(value, Function) else None

    # ------------------------------------------------------------------- names

    def _closure(self) -> dict[str, Any]:
        return {} if self.top else dict(self.locals)

    def lookup(self, name: str) -> Any:
        if name in self.locals:
            return self.locals[name]
        if name in self.facts.values:
            return self.facts.values[name]
        if name in ("__name__", "__package__"):
            return self.facts.module if name == "__name__" else self.facts.package
        if name in BUILTINS:
            return Ref(f"builtins.{name}")
        return UNKNOWN

    def canonical(self, expr: ast.expr) -> str | None:
        """The dotted path an expression names, through this module's imports."""
        dotted = _dotted(expr)
        if dotted is None:
            return None
        head, _, rest = dotted.partition(".")
        bound = self.lookup(head)
        if isinstance(bound, Ref):
            return f"{bound.path}.{rest}" if rest else bound.path
        return dotted

    # ------------------------------------------------------------------- expressions

    def _strict(self, expr: ast.expr) -> Any:
        return self.value(expr)

    def value(self, expr: ast.expr | None) -> Any:
        if expr is None:
            return None
        self.ev.tick()
        handler = getattr(self, f"_expr_{type(expr).__name__}", None)
        if handler is None:
            return UNKNOWN
        return handler(expr)

    def _expr_Constant(self, expr: ast.Constant) -> Any:
        return expr.value

    def _expr_Name(self, expr: ast.Name) -> Any:
        return self.lookup(expr.id)

    def _expr_JoinedStr(self, expr: ast.JoinedStr) -> Any:
        parts = []
        for piece in expr.values:
            if isinstance(piece, ast.Constant):
                parts.append(str(piece.value))
            elif isinstance(piece, ast.FormattedValue):
                value = self.value(piece.value)
                if not isinstance(value, (str, int)) or piece.format_spec is not None:
                    return UNKNOWN
                parts.append(repr(value) if piece.conversion == ord("r") else str(value))
        return "".join(parts)

    def _expr_Tuple(self, expr: ast.Tuple) -> Any:
        return self._sequence(expr.elts)

    def _expr_List(self, expr: ast.List) -> Any:
        items = self._sequence(expr.elts)
        return list(items) if isinstance(items, tuple) else items

    def _expr_Set(self, expr: ast.Set) -> Any:
        items = self._sequence(expr.elts)
        return set(items) if isinstance(items, tuple) and _hashable(items) else UNKNOWN

    def _sequence(self, elements: list[ast.expr]) -> Any:
        out: list[Any] = []
        for element in elements:
            if isinstance(element, ast.Starred):
                inner = _iterate(self.value(element.value))
                if inner is None:
                    return UNKNOWN
                out.extend(inner)
            else:
                out.append(self.value(element))
        return tuple(out)

    def _expr_Dict(self, expr: ast.Dict) -> Any:
        out: dict[Any, Any] = {}
        partial = False
        for key, value in zip(expr.keys, expr.values, strict=True):
            if key is None:  # {**other}
                other = self.value(value)
                if isinstance(other, Partial):
                    partial, other = True, other.known
                if not isinstance(other, dict):
                    return UNKNOWN
                out.update(other)
                continue
            k = self.value(key)
            if k is UNKNOWN or not _hashable((k,)):
                partial = True
                continue
            out[k] = self.value(value)
        return Partial(out) if partial else out

    def _expr_BinOp(self, expr: ast.BinOp) -> Any:
        return _binop(expr.op, self.value(expr.left), self.value(expr.right))

    def _expr_BoolOp(self, expr: ast.BoolOp) -> Any:
        result: Any = None
        for operand in expr.values:
            result = self.value(operand)
            if result is UNKNOWN or isinstance(result, (Partial, Ref)):
                return UNKNOWN
            if isinstance(expr.op, ast.And) and not result:
                return result
            if isinstance(expr.op, ast.Or) and result:
                return result
        return result

    def _expr_UnaryOp(self, expr: ast.UnaryOp) -> Any:
        operand = self.value(expr.operand)
        if isinstance(expr.op, ast.Not):
            return (
                UNKNOWN
                if operand is UNKNOWN or isinstance(operand, (Partial, Ref))
                else not operand
            )
        return UNKNOWN

    def _expr_Compare(self, expr: ast.Compare) -> Any:
        left = self.value(expr.left)
        for op, right_expr in zip(expr.ops, expr.comparators, strict=True):
            right = self.value(right_expr)
            if isinstance(right, _Namespace) and isinstance(op, (ast.In, ast.NotIn)):
                inside = self._in_namespace(right, left) if isinstance(left, str) else UNKNOWN
                result = inside if inside is UNKNOWN or isinstance(op, ast.In) else not inside
            else:
                result = _compare(op, left, right)
            if result is UNKNOWN or not result:
                return result
            left = right
        return True

    def _expr_Subscript(self, expr: ast.Subscript) -> Any:
        container = self.value(expr.value)
        key = self.value(expr.slice)
        if isinstance(container, _GlobalsView):
            if isinstance(key, str):
                return self._global(key)
            return UNKNOWN
        if isinstance(container, Ref) and container.path == "sys.modules" and isinstance(key, str):
            return _ModuleObject(key) if self.ev.host.owns(key) else UNKNOWN
        if isinstance(container, _Namespace) and isinstance(key, str):
            inside = self._in_namespace(container, key)
            if inside is UNKNOWN:
                return UNKNOWN
            if not inside:
                raise _Raised("KeyError")
            return Ref(f"{container.path}.{key}")
        partial = isinstance(container, Partial)
        known = container.known if partial else container
        if isinstance(known, dict) and key is not UNKNOWN and _hashable((key,)):
            if key in known:
                return known[key]
            if partial:
                return UNKNOWN
            raise _Raised("KeyError")
        if isinstance(known, (tuple, list, str)) and isinstance(key, int):
            try:
                return known[key]
            except IndexError:
                raise _Raised("IndexError") from None
        return UNKNOWN

    def _global(self, key: str) -> Any:
        if key.startswith("__") and key.endswith("__"):
            return UNKNOWN  # __file__, __spec__...: set by the import system
        if key in self.facts.values:
            value = self.facts.values[key]
            if isinstance(value, Function):
                return Ref(f"{self.facts.module}.{key}")
            return value
        if key in self.facts.written:
            return UNKNOWN
        raise _Raised("KeyError")

    def _in_namespace(self, namespace: _Namespace, name: str) -> Any:
        """Whether a provider module's namespace has `name` (UNKNOWN when not decidable)."""
        self.ev.read(namespace.path)
        names = self.ev.host.member_names(namespace.path)
        if names is None:
            return UNKNOWN
        if name in names:
            return True
        facts = self.ev.facts(namespace.path)
        if facts is not None and (name in facts.written or facts.written_unknown):
            return True if name in facts.written else UNKNOWN
        return False

    def _expr_Attribute(self, expr: ast.Attribute) -> Any:
        owner = self.value(expr.value)
        if isinstance(owner, _ModuleObject):
            return (
                _Namespace(owner.path)
                if expr.attr == "__dict__"
                else Ref(f"{owner.path}.{expr.attr}")
            )
        if isinstance(owner, Ref):
            return Ref(f"{owner.path}.{expr.attr}")
        if isinstance(owner, EnumMember) and expr.attr in ("name", "_name_"):
            return owner.name
        if isinstance(owner, (str, dict, list, tuple, set, Partial, _GlobalsView)):
            return ("method", owner, expr.attr)
        return UNKNOWN

    def _expr_ListComp(self, expr: ast.ListComp) -> Any:
        items = self._comprehension(expr.generators, lambda: [self.value(expr.elt)])
        return items if items is UNKNOWN else list(items)

    def _expr_SetComp(self, expr: ast.SetComp) -> Any:
        items = self._comprehension(expr.generators, lambda: [self.value(expr.elt)])
        return items if items is UNKNOWN or not _hashable(items) else set(items)

    def _expr_GeneratorExp(self, expr: ast.GeneratorExp) -> Any:
        items = self._comprehension(expr.generators, lambda: [self.value(expr.elt)])
        return items if items is UNKNOWN else tuple(items)

    def _expr_DictComp(self, expr: ast.DictComp) -> Any:
        pairs = self._comprehension(
            expr.generators, lambda: [(self.value(expr.key), self.value(expr.value))]
        )
        if pairs is UNKNOWN or not _hashable(tuple(k for k, _ in pairs)):
            return UNKNOWN
        return dict(pairs)

    def _comprehension(self, generators: list[ast.comprehension], produce: Any) -> Any:
        saved = dict(self.locals)
        try:
            return list(self._generate(generators, produce))
        except _Unknowable:
            return UNKNOWN
        finally:
            self.locals.clear()
            self.locals.update(saved)

    def _generate(self, generators: list[ast.comprehension], produce: Any) -> Iterator[Any]:
        first, rest = generators[0], generators[1:]
        seq = _iterate(self.value(first.iter))
        if seq is None:
            raise _Unknowable
        for count, item in enumerate(seq):
            if count >= MAX_LOOP:
                raise _Unknowable
            self.assign(first.target, item, certain=True)
            conditions = [self.value(c) for c in first.ifs]
            if any(c is UNKNOWN for c in conditions):
                raise _Unknowable
            if not all(conditions):
                continue
            if rest:
                yield from self._generate(rest, produce)
            else:
                values = produce()
                if any(v is UNKNOWN for v in _flat(values)):
                    raise _Unknowable
                yield from values

    def _expr_Call(self, expr: ast.Call) -> Any:
        return self.call(expr, statement=False, certain=True)

    # ------------------------------------------------------------------- calls

    def call(self, expr: ast.Call, *, statement: bool, certain: bool) -> Any:
        func = self.value(expr.func)
        callee = self.canonical(expr.func)
        args = [self.value(a) for a in expr.args if not isinstance(a, ast.Starred)]
        kwargs = {k.arg: self.value(k.value) for k in expr.keywords if k.arg}
        if any(isinstance(a, ast.Starred) for a in expr.args) or any(
            k.arg is None for k in expr.keywords
        ):
            return self._opaque(statement)
        if isinstance(func, tuple) and len(func) == 3 and func[0] == "method":
            return self._method(func[1], func[2], args, kwargs, expr, certain)
        if callee in ("warnings.warn", "warn") or (callee or "").endswith("warnings.warn"):
            self._warn(expr, args)
            return None
        if callee in ("importlib.import_module", "import_module") or (callee or "").endswith(
            ".import_module"
        ):
            return self._import_module(args, kwargs)
        if isinstance(func, Ref) and func.path.startswith("builtins."):
            return self._builtin(func.path[9:], args, kwargs, expr)
        if callee == "setattr" or (isinstance(func, Ref) and func.path == "builtins.setattr"):
            return self._setattr(expr)
        if isinstance(func, Function) or (isinstance(func, Ref) and self.ev_function(func.path)):
            function = func if isinstance(func, Function) else self.ev_function(func.path)
            assert function is not None
            return self.ev.call(function, args, kwargs, self.depth + 1, caller=self)
        if callee == "sys.modules.get" or callee == "sys.modules.__getitem__":
            return UNKNOWN
        return self._opaque(statement)

    def _opaque(self, statement: bool) -> Any:
        """A call we do not follow: its value is not known (as a statement, it is passed over:
        it may have effects, but none that serves or refuses a name)."""
        return UNKNOWN

    def _warn(self, expr: ast.Call, args: list[Any]) -> None:
        """`warnings.warn(message, category)`: a deprecation when the category is one (by its
        name, as written: DeprecationWarning, FutureWarning, a provider's subclass named so)."""
        category = expr.args[1] if len(expr.args) > 1 else None
        for keyword in expr.keywords:
            if keyword.arg == "category":
                category = keyword.value
        if category is None:
            return  # a UserWarning: not a deprecation
        name = (self.canonical(category) or "").rsplit(".", 1)[-1]
        if not (name in DEPRECATIONS or "Deprecat" in name):
            return
        self.deprecated = args[0] if args and isinstance(args[0], str) else "deprecated"

    def _import_module(self, args: list[Any], kwargs: dict[str, Any]) -> Any:
        name = args[0] if args else kwargs.get("name")
        package = args[1] if len(args) > 1 else kwargs.get("package")
        if not isinstance(name, str):
            return UNKNOWN
        if name.startswith("."):
            if not isinstance(package, str):
                return UNKNOWN
            level = len(name) - len(name.lstrip("."))
            return Ref(_absolute(name.lstrip("."), level, package), module=True)
        return Ref(name, module=True)

    def _builtin(self, name: str, args: list[Any], kwargs: dict[str, Any], expr: ast.Call) -> Any:
        if name in ("globals", "vars") and not args:
            return _GlobalsView()
        if name == "getattr" and len(args) >= 2 and isinstance(args[1], str):
            owner = args[0]
            if isinstance(owner, Ref):
                return Ref(f"{owner.path}.{args[1]}")
            return UNKNOWN
        if name == "dir" and len(args) == 1 and isinstance(args[0], Ref):
            self.ev.read(args[0].path)
            names = self.ev.host.member_names(args[0].path)
            return tuple(names) if names is not None else UNKNOWN
        if name == "setattr":
            return self._setattr(expr)
        if name in ("set", "frozenset", "list", "tuple", "sorted", "dict") and len(args) <= 1:
            return _convert(name, args[0] if args else (), kwargs)
        if name == "len" and len(args) == 1:
            seq = _iterate(args[0])
            return len(seq) if seq is not None else UNKNOWN
        return UNKNOWN

    def _setattr(self, expr: ast.Call) -> Any:
        if len(expr.args) >= 2 and _is_sys_modules_self(expr.args[0]):
            self._write(self.value(expr.args[1]))
        return None

    def _method(
        self, owner: Any, method: str, args: list[Any], kwargs: dict[str, Any],
        expr: ast.Call, certain: bool,
    ) -> Any:  # fmt: skip
        if isinstance(owner, _GlobalsView):
            return self._globals_method(method, args)
        partial = isinstance(owner, Partial)
        known = owner.known if partial else owner
        if isinstance(known, str) and method in STR_METHODS:
            if not all(isinstance(a, (str, int, tuple)) for a in args) or kwargs:
                return UNKNOWN
            try:
                return getattr(known, method)(*args)
            except (TypeError, ValueError):
                return UNKNOWN
        if isinstance(known, dict):
            return self._dict_method(known, method, args, partial, expr)
        if isinstance(known, (set, list)):
            return self._seq_method(known, method, args, expr)
        return UNKNOWN

    def _globals_method(self, method: str, args: list[Any]) -> Any:
        """`globals().update(...)`, `.setdefault(k, v)`, `.get(k)`, `.__setitem__(k, v)`."""
        if method == "update":
            other = args[0] if args else UNKNOWN
            if isinstance(other, dict):
                for key in other:
                    self._write(key)
            else:
                self.facts.written_unknown = True
        elif method in ("__setitem__", "setdefault") and args:
            self._write(args[0])
        elif method == "get" and args and isinstance(args[0], str):
            try:
                return self._global(args[0])
            except _Raised:
                return args[1] if len(args) > 1 else None
        return None

    def _dict_method(
        self, known: dict[Any, Any], method: str, args: list[Any], partial: bool, expr: ast.Call
    ) -> Any:
        if method == "get" and args:
            if args[0] in known:
                return known[args[0]]
            return UNKNOWN if partial else (args[1] if len(args) > 1 else None)
        if method in ("keys", "values", "items") and not partial:
            return tuple(getattr(known, method)())
        if method == "update" and args:
            other = args[0]
            if isinstance(other, dict):
                known.update(other)
            else:
                self._poison_expr(expr)
            return None
        if method == "setdefault" and args:
            if args[0] is UNKNOWN:
                self._poison_expr(expr)
                return UNKNOWN
            return known.setdefault(args[0], args[1] if len(args) > 1 else None)
        if method in ("pop", "clear"):
            return UNKNOWN  # a removal: may remove what a name needs; stay unsure
        return UNKNOWN

    def _seq_method(
        self, known: set[Any] | list[Any], method: str, args: list[Any], expr: ast.Call
    ) -> Any:
        if method in ("add", "append") and args:
            if args[0] is UNKNOWN:
                self._poison_expr(expr)
            elif isinstance(known, set):
                known.add(args[0])
            else:
                known.append(args[0])
            return None
        if method in ("update", "extend") and args:
            seq = _iterate(args[0])
            if seq is None:
                self._poison_expr(expr)
            elif isinstance(known, set):
                known.update(seq)
            else:
                known.extend(seq)
            return None
        return UNKNOWN

    def _poison_expr(self, expr: ast.Call) -> None:
        func = expr.func
        if isinstance(func, ast.Attribute):
            owner = func.value
            called = owner.func if isinstance(owner, ast.Call) else None
            if isinstance(called, ast.Name) and called.id in ("globals", "vars"):
                self.facts.written_unknown = True
                return
            if isinstance(owner, ast.Name):
                self._poison(owner)
            elif isinstance(owner, ast.Subscript):
                self._poison(owner.value)


class _Unknowable(Exception):
    pass


# --------------------------------------------------------------------------- pure helpers


def _dotted(expr: ast.expr) -> str | None:
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        inner = _dotted(expr.value)
        return f"{inner}.{expr.attr}" if inner else None
    return None


def _absolute(module: str, level: int, package: str) -> str:
    if level == 0:
        return module
    parts = package.split(".")
    base = parts[: len(parts) - (level - 1)] if level > 1 else parts
    return ".".join([*base, module]) if module else ".".join(base)


def _target_names(target: ast.expr) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for e in target.elts for n in _target_names(e)]
    return []


def _is_sys_modules_self(expr: ast.expr) -> bool:
    """`sys.modules[__name__]`."""
    return (
        isinstance(expr, ast.Subscript)
        and _dotted(expr.value) == "sys.modules"
        and isinstance(expr.slice, ast.Name)
        and expr.slice.id == "__name__"
    )


def _is_type_checking(test: ast.expr) -> bool:
    return (_dotted(test) or "").rsplit(".", 1)[-1] == "TYPE_CHECKING"


def _catches(handler: ast.ExceptHandler, raised: str) -> bool:
    if handler.type is None:
        return True
    kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    names = {(_dotted(k) or "").rsplit(".", 1)[-1] for k in kinds}
    family = {
        "KeyError": {"LookupError"},
        "IndexError": {"LookupError"},
        "ModuleNotFoundError": {"ImportError"},
    }.get(raised, set())
    return bool(names & ({raised, "Exception", "BaseException"} | family))


def _hashable(items: Iterable[Any]) -> bool:
    try:
        for item in items:
            hash(item)
    except TypeError:
        return False
    return True


def _iterate(value: Any) -> list[Any] | None:
    if isinstance(value, (list, tuple, set, frozenset)):
        return sorted(value, key=repr) if isinstance(value, (set, frozenset)) else list(value)
    if isinstance(value, dict):
        return list(value)
    if isinstance(value, str):
        return list(value)
    if isinstance(value, EnumClass):
        return [EnumMember(n) for n in value.names]
    return None


def _flat(values: list[Any]) -> Iterator[Any]:
    for value in values:
        if isinstance(value, tuple):
            yield from value
        else:
            yield value


def _convert(name: str, value: Any, kwargs: dict[str, Any]) -> Any:
    if name == "dict":
        if isinstance(value, dict):
            return {**value, **kwargs}
        seq = _iterate(value)
        if seq is None or not all(isinstance(p, tuple) and len(p) == 2 for p in seq):
            return UNKNOWN if value != () else dict(kwargs)
        return dict(seq) | kwargs
    if isinstance(value, Partial):
        return Partial(_convert(name, value.known, kwargs))
    seq = _iterate(value)
    if seq is None:
        return UNKNOWN
    if name in ("set", "frozenset"):
        return set(seq) if _hashable(seq) else UNKNOWN
    if name == "sorted":
        try:
            return sorted(seq)
        except TypeError:
            return UNKNOWN
    return list(seq) if name == "list" else tuple(seq)


def _binop(op: ast.operator, left: Any, right: Any) -> Any:
    for side in (left, right):
        if side is UNKNOWN or isinstance(side, Ref):
            return UNKNOWN
    if isinstance(left, Partial) or isinstance(right, Partial):
        lk = left.known if isinstance(left, Partial) else left
        rk = right.known if isinstance(right, Partial) else right
        combined = _binop(op, lk, rk)
        return UNKNOWN if combined is UNKNOWN else Partial(combined)
    try:
        if isinstance(op, ast.BitOr):
            if isinstance(left, dict) and isinstance(right, dict):
                return {**left, **right}
            return set(left) | set(right)
        if isinstance(op, ast.Add):
            if isinstance(left, list) and isinstance(right, (list, tuple)):
                return [*left, *right]
            return left + right
        if isinstance(op, ast.Sub) and isinstance(left, set):
            return left - set(right)
        if isinstance(op, ast.Mod) and isinstance(left, str):
            return left % right
    except TypeError:
        return UNKNOWN
    return UNKNOWN


def _compare(op: ast.cmpop, left: Any, right: Any) -> Any:
    if isinstance(op, (ast.In, ast.NotIn)):
        inside = _contains(right, left)
        if inside is UNKNOWN:
            return UNKNOWN
        return inside if isinstance(op, ast.In) else not inside
    if any(side is UNKNOWN or isinstance(side, (Partial, Ref)) for side in (left, right)):
        return UNKNOWN
    if isinstance(op, (ast.Is, ast.IsNot)):
        if left is None or right is None:
            same = left is right
            return same if isinstance(op, ast.Is) else not same
        return UNKNOWN
    try:
        if isinstance(op, ast.Eq):
            return left == right
        if isinstance(op, ast.NotEq):
            return left != right
    except TypeError:
        return UNKNOWN
    return UNKNOWN


def _contains(container: Any, item: Any) -> Any:
    if item is UNKNOWN:
        return UNKNOWN
    if isinstance(container, _Namespace):
        return UNKNOWN  # answered by the frame, which can read modules (_in_namespace)
    if isinstance(container, Partial):
        found = _contains(container.known, item)
        return True if found is True else UNKNOWN
    if isinstance(container, str) and isinstance(item, str):
        return item in container
    if isinstance(container, (dict, set, frozenset, list, tuple)):
        try:
            return item in container
        except TypeError:
            return UNKNOWN
    return UNKNOWN


def _merge(old: Any, new: Any, certain: bool) -> Any:
    """A value that may have been replaced in a branch: containers unite, scalars blur."""
    if certain or old is None:
        return new
    if isinstance(old, dict) and isinstance(new, dict):
        return {**old, **new}
    if isinstance(old, set) and isinstance(new, set):
        return old | new
    if old == new:
        return new
    return UNKNOWN


def _as_set(value: Any) -> Any:
    if isinstance(value, Partial):
        inner = _as_set(value.known)
        return Partial(inner if inner is not UNKNOWN else set())
    seq = _iterate(value)
    if seq is None or not all(isinstance(v, str) for v in seq):
        return UNKNOWN
    return set(seq)


def _as_attrs(value: Any) -> Any:
    known = value.known if isinstance(value, Partial) else value
    if not isinstance(known, dict):
        return UNKNOWN
    out: dict[str, Any] = {}
    for key, names in known.items():
        as_set = _as_set(names)
        if not isinstance(key, str) or as_set is UNKNOWN:
            return UNKNOWN
        out[key] = as_set
    return out
