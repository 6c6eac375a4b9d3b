"""Decorators by what their wrapper does, read from the decorator's own source.

What it owns: given the AST of a provider's decorator (a function taking the function it
decorates, or what a decorator factory or a decorator class's `__call__` is), what a caller of
the decorated function meets:

- `preserve`: calls bind against the decorated function's own signature: the decorator
  returns the function itself, or a wrapper `(*args, **kwargs)` that passes them on unchanged
  (with or without functools.wraps / update_wrapper), on every path;
- `own`: the wrapper has a fixed signature of its own (no `*args`/`**kwargs`): that is what
  binds;
- `renames`: the wrapper takes old keyword names out of `**kwargs` and passes them on under
  new ones (literal names, or a mapping the decorator factory was given), itself or through a
  helper of the provider it hands `kwargs` to and rebinds from (`kwargs =
  smoothly_deprecate(kwargs=kwargs)`, huggingface_hub's idiom): the old names are accepted,
  with a deprecation warning when the wrapper (or that helper) warns;
- `positional`: the wrapper counts or slices `*args` before passing them on (positional use
  of keyword-only parameters still runs, with a warning);
- `unknown`: anything else. Never guess.

What it takes: the decorator's FunctionDef, the values of its closure (a factory's
arguments, when the decorator is `@factory(...)`) and a way to read the provider's helper
functions by the name the decorator's module calls them. What it gives: an `Effect`. Pure: no
griffe, no I/O.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from auditor.provider.pyvalues import UNKNOWN, dotted

if TYPE_CHECKING:
    from collections.abc import Callable

    Helper = Callable[[str], "ast.FunctionDef | ast.AsyncFunctionDef | None"]

WRAPS = frozenset({"functools.wraps", "wraps"})
UPDATE_WRAPPER = frozenset({"functools.update_wrapper", "update_wrapper"})
DEPRECATIONS = ("DeprecationWarning", "PendingDeprecationWarning", "FutureWarning")


@dataclass(frozen=True)
class Effect:
    kind: str  # "preserve", "own", "renames", "positional", "unknown"
    own: ast.arguments | None = None  # `own`: the wrapper's parameters
    renames: tuple[tuple[str, str], ...] = ()  # `renames`: (old, new) keyword names
    warns: bool = False  # the wrapper warns with a deprecation on that path
    reason: str = ""


PRESERVE = Effect("preserve")


def unknown(reason: str) -> Effect:
    return Effect("unknown", reason=reason)


def decorator_effect(
    decorator: ast.FunctionDef | ast.AsyncFunctionDef,
    closure: dict[str, Any] | None = None,
    *,
    skip: int = 0,
    helper: Helper | None = None,
) -> Effect:
    """What `decorator(func)` gives, over every `return` of its body (`skip`: parameters
    before the function, as `self` of a decorator class's `__call__`)."""
    params = [a.arg for a in (*decorator.args.posonlyargs, *decorator.args.args)][skip:]
    if not params:
        return unknown("the decorator takes no function")
    func = params[0]
    local_defs = {
        n.name: n for n in decorator.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
    }
    effects = [
        _returned(node.value, func, local_defs, closure or {}, decorator, helper)
        for node in _returns(decorator.body)
    ]
    if not effects:
        return unknown("the decorator returns nothing")
    return combine(effects)


def combine(effects: list[Effect]) -> Effect:
    """Several return paths: one effect when they agree. A path that keeps the signature
    beside one that accepts old names (or positional use) too gives the lenient one, so that
    nothing is flagged wrongly; any other disagreement is unknown."""
    if any(e.kind == "unknown" for e in effects):
        return next(e for e in effects if e.kind == "unknown")
    others = [e for e in effects if e.kind != "preserve"]
    if not others:
        return PRESERVE
    shapes = {(e.kind, e.renames, ast.dump(e.own) if e.own else "") for e in others}
    if len(shapes) > 1 or (others[0].kind == "own" and len(others) < len(effects)):
        return unknown("the decorator's return paths disagree")
    first = others[0]
    return Effect(first.kind, first.own, first.renames, all(e.warns for e in others))


def factory_decorator(
    factory: ast.FunctionDef | ast.AsyncFunctionDef,
) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The decorator a decorator factory returns: the function it defines and returns."""
    local_defs = {
        n.name: n for n in factory.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
    }
    for node in _returns(factory.body):
        if isinstance(node.value, ast.Name) and node.value.id in local_defs:
            return local_defs[node.value.id]
    return None


def returns_of(body: list[ast.stmt]) -> list[ast.Return]:
    """A function's own `return` statements (returns.py reads them too)."""
    return _returns(body)


def _returns(body: list[ast.stmt]) -> list[ast.Return]:
    """The decorator's own `return` statements (not those of functions it defines)."""
    found: list[ast.Return] = []
    for node in body:
        if isinstance(node, ast.Return):
            found.append(node)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        else:
            for field in ("body", "orelse", "finalbody"):
                found += _returns(getattr(node, field, []) or [])
            for handler in getattr(node, "handlers", []) or []:
                found += _returns(handler.body)
    return found


def _returned(
    value: ast.expr | None,
    func: str,
    local_defs: dict[str, ast.FunctionDef | ast.AsyncFunctionDef],
    closure: dict[str, Any],
    decorator: ast.FunctionDef | ast.AsyncFunctionDef,
    helper: Helper | None = None,
) -> Effect:
    if value is None:
        return unknown("the decorator returns None")
    if isinstance(value, ast.Name) and value.id == func:
        return PRESERVE
    if isinstance(value, ast.Name) and value.id in local_defs:
        return wrapper_effect(local_defs[value.id], func, closure, helper)
    if isinstance(value, ast.Call):
        callee = dotted(value.func)
        inner = value.func
        if isinstance(inner, ast.Call) and dotted(inner.func) in WRAPS and value.args:
            return _returned(value.args[0], func, local_defs, closure, decorator, helper)
        if callee in UPDATE_WRAPPER and value.args:
            return _returned(value.args[0], func, local_defs, closure, decorator, helper)
    return unknown(f"the decorator returns {ast.unparse(value)[:60]}")


def wrapper_effect(
    wrapper: ast.FunctionDef | ast.AsyncFunctionDef,
    func: str,
    closure: dict[str, Any],
    helper: Helper | None = None,
) -> Effect:
    """What calling `wrapper` (which closes over the decorated `func`) does to a call."""
    args = wrapper.args
    star, stars = args.vararg, args.kwarg
    if star is None and stars is None:
        return Effect("own", own=args)
    calls = [n for n in ast.walk(wrapper) if isinstance(n, ast.Call) and dotted(n.func) == func]
    if not calls:
        return unknown("the wrapper never calls the function it wraps")
    star_name = star.arg if star is not None else None
    kw_name = stars.arg if stars is not None else None
    if not all(_forwards(c, star_name, kw_name) for c in calls):
        return unknown("the wrapper changes the arguments it passes on")
    warns = _warns(wrapper)
    renames = _renames(wrapper, kw_name, closure) if kw_name else None
    if renames is None and kw_name is not None:
        through = _through_helper(wrapper, kw_name, helper)
        if through is not None:
            renames, warns = through[0], warns or through[1]
    if renames is None:
        return unknown("the wrapper changes **kwargs in a way not followed")
    if renames:
        return Effect("renames", renames=renames, warns=warns)
    if star_name and _touches(wrapper, star_name, calls):
        return Effect("positional", warns=warns)
    return PRESERVE


def _through_helper(
    wrapper: ast.FunctionDef | ast.AsyncFunctionDef, kwargs: str, helper: Helper | None
) -> tuple[tuple[tuple[str, str], ...], bool] | None:
    """`kwargs = helper(..., kwargs=kwargs)`, the only rebinding of kwargs, where the
    provider's helper pops literal keys from (a copy of) what it is given and returns it:
    (the names it takes out, whether it warns); None when that is not what happens."""
    rebinds = [
        n
        for n in ast.walk(wrapper)
        if isinstance(n, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == kwargs for t in n.targets)
    ]
    if helper is None or len(rebinds) != 1 or len(rebinds[0].targets) != 1:
        return None
    call = rebinds[0].value
    name = dotted(call.func) if isinstance(call, ast.Call) else None
    node = helper(name) if name else None
    if node is None or not isinstance(call, ast.Call):
        return None
    param = _receiving(node.args, call, kwargs)
    if param is None:
        return None
    moved = _helper_pops(node, param)
    if moved is None:
        return None
    rest = _renames(wrapper, kwargs, {}, ignore=rebinds[0])
    return (
        (tuple(dict.fromkeys([*moved, *(rest or ())])), _warns(node)) if rest is not None else None
    )


def _receiving(arguments: ast.arguments, call: ast.Call, kwargs: str) -> str | None:
    """The helper's parameter that receives the wrapper's kwargs dict."""
    positional = [a.arg for a in (*arguments.posonlyargs, *arguments.args)]
    for index, arg in enumerate(call.args):
        if isinstance(arg, ast.Name) and arg.id == kwargs and index < len(positional):
            return positional[index]
    for keyword in call.keywords:
        if keyword.arg and isinstance(keyword.value, ast.Name) and keyword.value.id == kwargs:
            return keyword.arg
    return None


def _helper_pops(
    helper: ast.FunctionDef | ast.AsyncFunctionDef, param: str
) -> list[tuple[str, str]] | None:
    """(old, new) keys the helper takes out of `param` (or its copy) and what it returns is
    that dict; None for anything else it does to it."""
    copies = {param}
    popped: dict[str, str] = {}  # local variable -> the key popped into it
    moved: dict[str, str] = {}
    for node in ast.walk(helper):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
            if isinstance(target, ast.Name) and _copy_of(value, copies):
                copies.add(target.id)
            elif isinstance(target, ast.Name) and (key := _pop_key(value, copies)):
                popped[target.id] = key
                moved.setdefault(key, "")
            elif isinstance(target, ast.Subscript) and _owner(target, copies):
                new = target.slice
                if not (isinstance(new, ast.Constant) and isinstance(new.value, str)):
                    return None
                if isinstance(value, ast.Name) and value.id in popped:
                    moved[popped[value.id]] = new.value
        elif isinstance(node, ast.Expr) and (key := _pop_key(node.value, copies)):
            moved.setdefault(key, "")
    returns = _returns(helper.body)
    if (
        not moved
        or not returns
        or not all(isinstance(r.value, ast.Name) and r.value.id in copies for r in returns)
    ):
        return None
    return list(moved.items())


def _copy_of(value: ast.expr, copies: set[str]) -> bool:
    """`kwargs.copy()`, `dict(kwargs)`, `{**kwargs}`."""
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
        return value.func.attr == "copy" and _is_name(value.func.value, copies)
    if isinstance(value, ast.Call) and dotted(value.func) == "dict" and len(value.args) == 1:
        return _is_name(value.args[0], copies)
    if isinstance(value, ast.Dict) and len(value.keys) == 1 and value.keys[0] is None:
        return _is_name(value.values[0], copies)
    return False


def _pop_key(value: ast.expr, copies: set[str]) -> str | None:
    if (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr == "pop"
        and _is_name(value.func.value, copies)
        and value.args
        and isinstance(value.args[0], ast.Constant)
        and isinstance(value.args[0].value, str)
    ):
        return value.args[0].value
    return None


def _owner(target: ast.Subscript, copies: set[str]) -> bool:
    return _is_name(target.value, copies)


def _is_name(expr: ast.expr, names: set[str]) -> bool:
    return isinstance(expr, ast.Name) and expr.id in names


def _forwards(call: ast.Call, star: str | None, kwargs: str | None) -> bool:
    """`func(*args, **kwargs)` (maybe a slice of args, or keywords instead of some):
    the arguments it was given, passed on."""
    for arg in call.args:
        if isinstance(arg, ast.Starred):
            inner = arg.value
            if isinstance(inner, ast.Subscript):
                inner = inner.value
            if not (isinstance(inner, ast.Name) and inner.id == star):
                return False
        elif not isinstance(arg, ast.Name):
            return False
    for keyword in call.keywords:
        if keyword.arg is None and not (
            isinstance(keyword.value, ast.Name) and keyword.value.id == kwargs
        ):
            return False
    return True


def _renames(
    wrapper: ast.FunctionDef | ast.AsyncFunctionDef,
    kwargs: str,
    closure: dict[str, Any],
    *,
    ignore: ast.AST | None = None,
) -> tuple[tuple[str, str], ...] | None:
    """(old, new) names the wrapper moves within **kwargs (new "" for one it drops); () when
    it only passes them on; None when it changes them in a way not followed."""
    found: list[tuple[str, str]] = []
    for node in ast.walk(wrapper):
        if node is ignore:
            continue
        if isinstance(node, ast.Assign):
            if any(isinstance(t, ast.Name) and t.id == kwargs for t in node.targets):
                return None  # kwargs rebound: not followed
            new = _subscript_of(node.targets[0], kwargs) if len(node.targets) == 1 else None
            old = _pop_of(node.value, kwargs)
            if new is not None and old is not None:
                pairs = _name_pairs(old, new, wrapper, closure)
                if pairs is None:
                    return None
                found += pairs
        elif isinstance(node, ast.Expr) and (dropped := _pop_of(node.value, kwargs)) is not None:
            key = _key_of(dropped, closure)
            if not isinstance(key, str):
                return None
            found.append((key, ""))
        elif isinstance(node, ast.Delete):
            for target in node.targets:
                key = _subscript_of(target, kwargs)
                if isinstance(key, ast.Constant) and isinstance(key.value, str):
                    found.append((key.value, ""))
                elif key is not None:
                    return None
    moved = {old for old, new in found if new}  # a key dropped on one path, renamed on another
    return tuple(dict.fromkeys(p for p in found if p[1] or p[0] not in moved))


def _key_of(expr: ast.expr, closure: dict[str, Any]) -> Any:
    """A keyword name as the wrapper spells it: a string literal, or a name of the closure
    (the factory's parameter bound at the decoration site: `@deprecate_kwarg("old", ...)`),
    None when the factory was given None; UNKNOWN when it is none of these."""
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return expr.value
    if isinstance(expr, ast.Name) and expr.id in closure:
        value = closure[expr.id]
        return value if isinstance(value, str) or value is None else UNKNOWN
    return UNKNOWN


def _name_pairs(
    old: ast.expr, new: ast.expr, wrapper: ast.AST, closure: dict[str, Any]
) -> list[tuple[str, str]] | None:
    """`kwargs["new"] = kwargs.pop("old")`, the names given by the factory's arguments
    (`kwargs[new_name] = kwargs.pop(old_name)`), or the same over `for old, new in m.items()`.
    A new name the factory was given as None is no rename (the wrapper tests it first).
    Names are strings as the provider wrote them: `kwargs[1]` (which makes the call fail) is
    not followed; one that no call can write as `new=` (`class`, `x y`) is kept, as it runs
    (bind.is_keyword_name keeps it out of any fix)."""
    if isinstance(old, ast.Constant) and isinstance(new, ast.Constant):
        return _strings([(old.value, new.value)])
    old_key, new_key = _key_of(old, closure), _key_of(new, closure)
    if isinstance(old_key, str) and (isinstance(new_key, str) or new_key is None):
        return [(old_key, new_key)] if new_key else []
    if isinstance(old, ast.Name) and isinstance(new, ast.Name):
        for node in ast.walk(wrapper):
            if isinstance(node, ast.For) and _loop_names(node.target) == (old.id, new.id):
                mapping = _mapping_of(node.iter, closure)
                return None if mapping is None else _strings(list(mapping.items()))
    return None


def _strings(pairs: list[tuple[Any, Any]]) -> list[tuple[str, str]] | None:
    """The pairs when every name is a string; None otherwise."""
    if all(isinstance(a, str) and isinstance(b, str) for a, b in pairs):
        return [(str(a), str(b)) for a, b in pairs]
    return None


def _mapping_of(expr: ast.expr, closure: dict[str, Any]) -> dict[Any, Any] | None:
    """`renames.items()` where `renames` is a known dict of the closure (or a literal)."""
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == (
        "items"
    ):  # fmt: skip
        owner = expr.func.value
        if isinstance(owner, ast.Name) and isinstance(closure.get(owner.id), dict):
            return dict(closure[owner.id])
        if isinstance(owner, ast.Dict):
            try:
                return dict(ast.literal_eval(owner))
            except (ValueError, TypeError, SyntaxError):
                return None
    return None


def _loop_names(target: ast.expr) -> tuple[str, ...]:
    if isinstance(target, ast.Tuple) and all(isinstance(e, ast.Name) for e in target.elts):
        return tuple(e.id for e in target.elts if isinstance(e, ast.Name))
    return ()


def _subscript_of(target: ast.expr, name: str) -> ast.expr | None:
    if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
        return target.slice if target.value.id == name else None
    return None


def _pop_of(value: ast.expr, kwargs: str) -> ast.expr | None:
    if isinstance(value, ast.Call) and _method_of(value, kwargs) == "pop" and value.args:
        return value.args[0]
    return None


def _method_of(call: ast.Call, owner: str) -> str | None:
    func = call.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        return func.attr if func.value.id == owner else None
    return None


def _touches(wrapper: ast.AST, star: str, calls: list[ast.Call]) -> bool:
    """Whether `args` is used other than passed on whole (counted, sliced, zipped)."""
    passed = {id(a.value) for c in calls for a in c.args if isinstance(a, ast.Starred)}
    for node in ast.walk(wrapper):
        if isinstance(node, ast.Name) and node.id == star and id(node) not in passed:
            return True
    return False


def _warns(wrapper: ast.AST) -> bool:
    for node in ast.walk(wrapper):
        if isinstance(node, ast.Call) and (dotted(node.func) or "").endswith("warn"):
            for arg in [*node.args, *(k.value for k in node.keywords)]:
                name = (dotted(arg) or "").rsplit(".", 1)[-1]
                if name.endswith(DEPRECATIONS) or "Deprecat" in name:
                    return True
    return False
