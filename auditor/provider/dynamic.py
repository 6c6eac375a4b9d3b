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
  Enum defined there). A write whose key is written out binds the name as an assignment
  does, a name the module also defines included (`rebinding`: what `globals()["run"] =
  _impl` left `run`). When a write's key is not known, every name of that module not
  defined after it is undecided, never removed nor its old definition.

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
from dataclasses import dataclass
from typing import Any, Protocol

from auditor.provider.frame import Frame
from auditor.provider.pyvalues import (
    UNKNOWN,
    Function,
    ModuleFacts,
    Partial,
    Raised,
    Ref,
    Return,
    Stop,
    bind,
    bind_arguments,
    is_sys_modules_self,
    merge,
)

__all__ = ["UNKNOWN", "Evaluator", "Refused", "Served", "Undecided", "bind_arguments"]

MAX_STEPS = 200_000
MAX_CALL_DEPTH = 6


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

    def method(self, path: str) -> tuple[ast.FunctionDef | ast.AsyncFunctionDef, str, str] | None:
        """A method of a provider class by its dotted path (`pkg.mod.Cls.name`, found through
        the class's bases): its AST, its module and how it binds ("classmethod",
        "staticmethod", "function"); None when the path is not one."""

    def owns(self, path: str) -> bool: ...


class Evaluator:
    """Evaluates module top levels (cached) and `__getattr__` calls, within MAX_STEPS."""

    def __init__(self, host: Host) -> None:
        self.host = host
        self._facts: dict[str, ModuleFacts | None] = {}
        self._reading: list[set[str]] = []  # the deps of each module under evaluation
        self._steps = 0
        self._machinery: dict[str, bool] = {}  # module -> whether it could serve names at all
        self._broken: dict[str, str] = {}  # module -> why its top level could not be followed
        self.class_names: dict[str, set[str]] = {}  # class path -> names set on it at import
        self.class_unknown: set[str] = set()  # classes that may get names not known

    # ------------------------------------------------------------------- entry point

    def lookup(self, module: str, name: str) -> Outcome | None:
        """What getting `name` from `module` does at run time, beyond its static members."""
        if not self._reading:  # not inside another module's evaluation: a fresh budget
            self._steps = 0
        try:
            facts = self.facts(module)
        except (Stop, Raised, Return) as stop:
            return Undecided(f"{module}: {stop}")
        if facts is None:
            return None
        if name in facts.written:  # a function of the module's `globals()[name] = f` bound
            rebound = facts.rebinding(name)
            value = rebound[1] if rebound is not None and rebound[0] == "value" else None
            known = isinstance(value, (Function, Ref))  # a function, or what an import names
            return Served(_provider_path(facts, value) if known else None)
        outcomes = [
            outcome
            for model in (facts.lazy_module, facts.getattr)
            if model is not None and (outcome := self._through(model, facts, name)) is not None
        ]
        served = [o for o in outcomes if isinstance(o, Served)]
        if served:
            return served[0]
        if facts.may_write(name):
            return Undecided(f"{module} writes names into its namespace that are not known")
        undecided = [o for o in outcomes if isinstance(o, Undecided)]
        return undecided[0] if undecided else (outcomes[0] if outcomes else None)

    def rebinding(self, module: str, name: str) -> Served | Undecided | None:
        """What a name the module defines statically is once its top level has run, when a
        namespace write rebound it (`globals()["run"] = _impl`, as `run = _impl` would):
        Served with the provider path of what it was bound to, Undecided when that is not
        known (a value not followed, a write whose key is not known); None when no write
        decides it (the static definition stands)."""
        if not self._reading:
            self._steps = 0
        try:
            facts = self.facts(module)
        except (Stop, Raised, Return) as stop:
            loaded = self.read(module)
            if loaded is not None and _may_rebind(loaded[0], name):
                return Undecided(f"{module} may write {name} into its namespace: {stop}")
            return None
        if facts is None:
            return None
        rebound = facts.rebinding(name)
        if rebound is None:
            return None
        how, value = rebound
        if how == "key":  # a write whose key is not known: the static definition stands
            return None
        target = _provider_path(facts, value)
        if target == f"{module}.{name}":
            return None  # `globals()["run"] = run`: the same object
        if target is None:
            return Undecided(f"{module} rebinds {name} in its namespace to what is not known")
        return Served(target)

    def _through(self, model: Any, facts: ModuleFacts, name: str) -> Outcome | None:
        if model is UNKNOWN:
            return Undecided(f"{facts.module} sets __getattr__ to something not known")
        if isinstance(model, tuple) and model[0] == "mirror":  # the TYPE_CHECKING block decides
            for test, text in model[1]:
                if getattr(name, test)(text):
                    return Undecided(
                        f"{facts.module}: its lazy module's __getattr__ serves names that "
                        f"{test} {text!r} by a rule of its own"
                    )
            return None
        if isinstance(model, tuple) and model[0] == "lazy":
            return _lazy_outcome(facts, model, name)
        if isinstance(model, tuple) and model[0] == "class":  # class __getattr__: properties
            props = model[1]
            if name in props:
                return Served(None, props[name])
            return Refused(f"{facts.module}.__getattr__ serves only its properties")
        if isinstance(model, Function):
            try:
                return self.call_getattr(model, name)
            except Stop as stop:
                return Undecided(f"{facts.module}.__getattr__: {stop}")
        return Undecided(f"{facts.module}: an unknown namespace model")

    # ------------------------------------------------------------------- module level

    def facts(self, module: str) -> ModuleFacts | None:
        """The module's top level evaluated, when it has dynamic machinery; else None."""
        loaded = self.read(module)
        if loaded is None:
            return None
        if module not in self._machinery:
            self._machinery[module] = _has_machinery(loaded[0])
        return self.namespace(module) if self._machinery[module] else None

    def namespace(self, module: str) -> ModuleFacts | None:
        """The module's top level evaluated (for a helper function of it that is called).

        A module being evaluated is served as far as it got (as Python runs a module top to
        bottom: a factory called halfway sees what was defined before it). Every module the
        evaluation read is touched again on reuse, so the lookup memo sees it."""
        if module in self._broken:  # its evaluation stopped: nothing of it is known
            raise Stop(self._broken[module])
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
        except Stop as stop:
            self._broken[module] = str(stop)
            raise
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
        frame = Frame(self, facts, facts.values, top=True)
        frame.run_block(tree.body, certain=True)
        bound = facts.values.get("__getattr__")
        if facts.getattr is None and isinstance(bound, Ref):  # `from ._lazy import __getattr__`
            facts.getattr = frame.ev_function(bound.path) or UNKNOWN

    # ------------------------------------------------------------------- functions

    def call_getattr(self, function: Function, name: str) -> Outcome:
        facts = self.namespace(function.module)
        if facts is None:
            raise Stop(f"module {function.module} could not be read")
        frame = Frame(self, facts, {**function.closure}, top=False)
        params = [a.arg for a in (*function.node.args.posonlyargs, *function.node.args.args)]
        if not params:
            raise Stop("__getattr__ takes no parameter")
        frame.locals[params[0]] = name
        try:
            frame.run_block(function.node.body, certain=True)
        except Return as done:
            return _served(done.value, frame.deprecated)
        except Raised as raised:
            return Refused(f"__getattr__ raises {raised.name}")
        return _served(None, frame.deprecated)

    def call(
        self,
        function: Function,
        args: list[Any],
        kwargs: dict[str, Any],
        depth: int,
        caller: Frame | None = None,
        *,
        lenient: bool = False,
    ) -> Any:
        """Call a provider function with evaluated arguments: its return value. A warning it
        gives is the caller's too (a helper that __getattr__ delegates to). `lenient`: run
        for what it may do (frame.py); its value is what any of its returns may give."""
        if depth > MAX_CALL_DEPTH:
            raise Stop("calls nest too deeply")
        facts = self.namespace(function.module)
        if facts is None:
            raise Stop(f"module {function.module} could not be read")
        frame = Frame(self, facts, {**function.closure}, top=False, depth=depth, lenient=lenient)
        bind(function.node.args, args, kwargs, frame.locals)
        try:
            frame.run_block(function.node.body, certain=True)
        except Return as done:
            return done.value
        except Raised as raised:
            if raised.maybe:  # it may or may not raise: what the call does is not known
                raise Stop(f"a call that may raise {raised.name}") from None
            raise
        finally:
            if caller is not None and frame.deprecated:
                caller.deprecated = frame.deprecated
        if lenient:
            return _may_return(frame.returned, function.node.body)
        return None

    def method(self, path: str) -> tuple[Function, Any] | None:
        """`Cls.name` of a provider class, as a Function, and what a call binds first to it
        (the class, for a classmethod; None otherwise)."""
        if not self.host.owns(path):
            return None
        found = self.host.method(path)
        if found is None:
            return None
        node, module, kind = found
        owner = Ref(path.rpartition(".")[0]) if kind == "classmethod" else None
        return Function(node, module), owner

    def class_write(self, path: str, name: Any) -> None:
        """Attribute `name` set on the object at `path` at import time (a class, if it is one;
        UNKNOWN: a name not known)."""
        if isinstance(name, str):
            self.class_names.setdefault(path, set()).add(name)
        else:
            self.class_unknown.add(path)

    def tick(self) -> None:
        self._steps += 1
        if self._steps > MAX_STEPS:
            raise Stop("the evaluation takes too many steps")


def _may_return(returned: list[Any], body: list[ast.stmt]) -> Any:
    """What a lenient run of a function may return: its returns' values united (and None when
    its body may end without one)."""
    values = list(returned)
    if not body or not isinstance(body[-1], (ast.Return, ast.Raise)):
        values.append(None)
    if not values:
        return None
    result = values[0]
    for value in values[1:]:
        result = merge(result, value, False)
    return result


def _served(value: Any, deprecated: str | None) -> Outcome:
    return Served(value.path if isinstance(value, Ref) else None, deprecated)


def _lazy_outcome(facts: ModuleFacts, model: tuple[Any, ...], name: str) -> Outcome:
    _, submodules, attrs, extra = model
    if submodules is UNKNOWN or attrs is UNKNOWN:
        return Undecided(f"{facts.module}: its lazy loader's names are not known")
    if name in (submodules.known if isinstance(submodules, Partial) else submodules):
        return Served(f"{facts.package}.{name}")
    for sub, names in attrs.items():
        if name in names:
            return Served(f"{facts.package}.{sub}.{name}")
    if name in (extra or ()):
        return Served(None)
    if isinstance(submodules, Partial) or any(isinstance(v, Partial) for v in attrs.values()):
        return Undecided(f"{facts.module}: its lazy loader's names are only partly known")
    return Refused(f"{facts.module}'s lazy loader does not serve {name}")


def _provider_path(facts: ModuleFacts, value: Any) -> str | None:
    """The dotted path of a value a namespace write bound: what a Ref names, or a function
    the module defines at its top level under its own name; None otherwise."""
    if isinstance(value, Ref):
        return value.path
    if not isinstance(value, Function):
        return None
    function: Function = value
    name = function.node.name
    return f"{function.module}.{name}" if facts.values.get(name) is function else None


def _may_rebind(tree: ast.Module, name: str) -> bool:
    """Whether the module's source writes `name` itself into its namespace
    (`globals()["run"] = ...`, `globals().update(run=...)`, `setattr(sys.modules[...],
    "run", ...)`): asked when its top level could not be followed. A write whose key is not
    written out does not count: a name the module defines is what it defines, unless a
    write can be shown to name it (a computed key rebinding an explicit definition is not
    modelled: docs/analysis.md, section 3)."""
    return any(
        isinstance(key, ast.Constant) and key.value == name
        for node in ast.walk(tree)
        for key in _written_keys(node)
    )


def _written_keys(node: ast.AST) -> list[ast.expr | None]:
    """The keys a statement or call writes into the module's namespace, as written (None:
    not written out)."""
    if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return [t.slice for t in targets if isinstance(t, ast.Subscript) and _is_ns(t.value)]
    if not isinstance(node, ast.Call):
        return []
    func = node.func
    if isinstance(func, ast.Name) and func.id == "setattr" and node.args:
        if is_sys_modules_self(node.args[0]):
            return [node.args[1] if len(node.args) > 1 else None]
        return []
    if not (isinstance(func, ast.Attribute) and _is_ns(func.value)):
        return []
    if func.attr not in ("update", "__setitem__", "setdefault"):
        return []
    keys: list[ast.expr | None] = []
    for k in node.keywords:  # `update(run=f)`, `update(**{"run": f})`, `update(**names)`
        if k.arg is not None:
            keys.append(ast.Constant(k.arg))
        elif isinstance(k.value, ast.Dict):
            keys.extend(k.value.keys)
        else:
            keys.append(None)
    for arg in node.args[:1]:
        keys += list(arg.keys) if isinstance(arg, ast.Dict) else [arg]
    return keys


def _is_ns(expr: ast.expr) -> bool:
    """`globals()`, `vars()` or `locals()` (the module's own at its top level), as written."""
    return (
        isinstance(expr, ast.Call)
        and isinstance(expr.func, ast.Name)
        and expr.func.id in ("globals", "vars", "locals")
        and not expr.args
    )


def _has_machinery(tree: ast.Module) -> bool:
    """Whether a module could have a dynamic namespace at all (cheap text-free AST scan):
    a `__getattr__`, a namespace written through globals()/vars()/sys.modules, a lazy
    loader, or a function of its own that declares `global` names and that its top level
    calls (SQLAlchemy 2.0's `orm.collections.__go(locals())` imports names as globals)."""
    if _calls_a_global_writer(tree):
        return True
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name == "__getattr__":
            return True
        if isinstance(node, ast.Name) and node.id in ("__getattr__", "globals", "vars", "locals"):
            return True
        if isinstance(node, ast.Attribute) and node.attr in ("modules", "attach", "attach_stub"):
            return True
    return False


def _calls_a_global_writer(tree: ast.Module) -> bool:
    writers = {
        node.name
        for node in tree.body
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and any(isinstance(inner, ast.Global) for inner in ast.walk(node))
    }
    return bool(writers) and any(
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Call)
        and isinstance(node.value.func, ast.Name)
        and node.value.func.id in writers
        for node in tree.body
    )
