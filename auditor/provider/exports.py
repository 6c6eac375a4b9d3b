# Maintainers: what `from module import *` binds, read from the module's `__all__`.
#
# Owns: `StarExports`, the part of ProviderAPI that reads a module's `__all__` as its source
#       spells it (literal lists, `+=`, `.extend`, `.append`), whether it is static (no
#       function touches it, nothing writes `globals()`), and, when it is built at run time,
#       what the evaluator says it may hold; and the pure readings of `__all__` behind them.
#       A provider's own star import never makes a name missing on a doubt; a consumer's
#       `from a import *` is undecided on one.
# Takes: griffe modules and their ASTs (loading.py). Gives: yes, no, or not known.
"""`__all__` and star imports: which names `from module import *` binds."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

from auditor.provider.loading import ModuleLoader
from auditor.provider.pyvalues import Partial, Stop

if TYPE_CHECKING:
    import griffe


class StarExports(ModuleLoader):
    """What a module's star import exports, answered once per module."""

    def _declared(self, module: griffe.Module) -> frozenset[str] | object | None:
        """The module's `__all__` as its source spells it (`_declared_all`), once per module;
        None when it cannot be read."""
        if module.path not in self._declared_alls:
            loaded = self._evaluator().host.module_ast(module.path)  # parsed once, shared
            found = _declared_all(loaded[0]) if loaded is not None else None
            self._declared_alls[module.path] = found
        return self._declared_alls[module.path]

    def _all_is_static(self, module: griffe.Module) -> bool:
        if module.path not in self._static_all:
            loaded = self._evaluator().host.module_ast(module.path)  # parsed once, shared
            self._static_all[module.path] = loaded is not None and _all_is_static(loaded[0])
        return self._static_all[module.path]

    def _star_exports(self, origin: griffe.Module, name: str) -> bool:
        """Whether `from origin import *` may bind `name`: by `__all__` as written when it is
        literal and no function changes it; else by `__all__` as the module's top level
        builds it (`__all__ += other.__all__`, `extend_all(module)`, `__all__.append(key)` in
        a loop over a dict some keys are known to be out of: numpy's numerictypes)."""
        static = self._all_is_static(origin)
        exports = origin.exports
        if exports is None or (static and all(isinstance(e, str) for e in exports)):
            return _star_exports(origin, name, static)
        try:
            built = self._evaluator().namespace(origin.path)
        except Stop:
            return True
        value = built.values.get("__all__") if built is not None else None
        return _may_list(value, name)


def _star_exports(module: griffe.Module, name: str, static: bool) -> bool:
    """Whether `from module import *` may bind `name`: it is in the module's `__all__` (when
    that is literals only, changed by nothing but module-level statements: `static`), or
    public when there is no `__all__`."""
    exports = module.exports
    if exports is None:
        return not name.startswith("_")
    if not static or any(not isinstance(e, str) for e in exports):
        return True  # `__all__ = [*other.__all__]`, `extend_all(umath)`: may include it
    return name in exports


def _star_binds(
    module: griffe.Module, name: str, declared: frozenset[str] | object | None, static: bool
) -> bool | None:
    """Whether `from module import *` binds `name` (None: cannot be known): it is in the
    module's `__all__`, or public when there is none. `__all__` is read from the source
    itself (`_declared_all`): griffe reads `[n for n in names]` as an empty list. Unlike
    `_star_exports` (a provider's own star import, where a doubt must never make a name
    missing), a doubt here is None: the consumer's name may or may not be the provider's."""
    if declared is _NO_ALL:
        return None if "__all__" in module.members else not name.startswith("_")
    if declared is None or not static:
        return None
    assert isinstance(declared, frozenset)
    return name in declared


_NO_ALL = object()  # the module has no `__all__`
_ALL_LIST = (ast.List, ast.Tuple)


def _declared_all(tree: ast.Module) -> frozenset[str] | object | None:
    """The names a module's `__all__` holds, when every mention of it is a top-level
    `__all__ = [...]`, `__all__ += [...]`, `__all__.extend([...])` or `__all__.append("x")`
    of string literals; None when it is built any other way; _NO_ALL when there is none."""
    names: set[str] = set()
    accepted: set[int] = set()
    for statement in tree.body:
        found = _all_statement(statement)
        if found is None:
            continue
        target, items, replaces = found
        if items is None:
            return None
        accepted.add(id(target))
        names = set(items) if replaces else names | set(items)
    mentions = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == "__all__"]
    if not mentions:
        return _NO_ALL
    if any(id(n) not in accepted for n in mentions):
        return None
    return frozenset(names)


def _all_statement(
    statement: ast.stmt,
) -> tuple[ast.Name, tuple[str, ...] | None, bool] | None:
    """(the `__all__` name, the strings it gets or None when not literal, whether it
    replaces) for a top-level statement that sets or extends `__all__`; None for others."""
    value: ast.expr | None = None
    target: ast.expr | None = None
    replaces = False
    if isinstance(statement, (ast.Assign, ast.AnnAssign)):
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        target, value, replaces = targets[0] if len(targets) == 1 else None, statement.value, True
    elif isinstance(statement, ast.AugAssign) and isinstance(statement.op, ast.Add):
        target, value = statement.target, statement.value
    elif isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        call = statement.value
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr in ("extend", "append"):
            target = func.value
            value = call.args[0] if len(call.args) == 1 and not call.keywords else None
            if func.attr == "append" and value is not None:
                value = ast.List([value], ast.Load())
    if not (isinstance(target, ast.Name) and target.id == "__all__"):
        return None
    return target, _strings_of(value), replaces


def _strings_of(value: ast.expr | None) -> tuple[str, ...] | None:
    if not isinstance(value, _ALL_LIST):
        return None
    items = [
        e.value for e in value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)
    ]
    return tuple(items) if len(items) == len(value.elts) else None


def _may_list(value: Any, name: str) -> bool:
    """Whether an evaluated `__all__` may hold `name`: not when it is known whole (strings
    only) without it, or is Partial and certainly lacks it; else it may."""
    if isinstance(value, Partial):
        if name in value.absent:
            return False
        value = value.known
        partial = True
    else:
        partial = False
    if not isinstance(value, (list, tuple, set, frozenset)):
        return True
    if not all(isinstance(item, str) for item in value):
        return True
    return name in value or partial


def _all_is_static(tree: ast.Module) -> bool:
    """No function touches `__all__` (numpy's `extend_all(umath)` appends to it) and nothing
    writes the namespace through `globals()`. One walk, each node knowing whether a
    function holds it (a walk of each function again cost torch's modules ~0.3 s)."""
    functions = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
    stack: list[tuple[ast.AST, bool]] = [(tree, False)]
    while stack:
        node, in_function = stack.pop()
        if isinstance(node, ast.Name):
            if node.id == "globals" or (in_function and node.id == "__all__"):
                return False
            continue
        inside = in_function or isinstance(node, functions)
        stack.extend((child, inside) for child in ast.iter_child_nodes(node))
    return True
