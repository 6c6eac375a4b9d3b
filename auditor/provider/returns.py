"""What an unannotated provider function returns, read from its `return` statements.

What it owns: the one shape this module vouches for: every path of the function ends in a
`return` whose value is a call of a name (`return Client(...)`, `return mod.Client(...)`), or
a local variable bound only by such a call (`client = Client(...); ...; return client`), and
all those calls name the same callee as it is spelled. The caller (the API) then resolves
that spelling through the function's module and takes the result for an instance when it is
a provider class. Anything else (a generator, a coroutine, a path that may fall off the end
and return None, a return of anything else, two different callees, a name the function
rebinds or takes as a parameter) gives None: unknown, never guessed.

A method's receiver is followed too (the caller says which name it is): `return self` gives
the instance the method was reached through, `return self.send(...)` what that method of
it returns (scikit-learn's `fit`, which returns `self`).

What it takes: the function's AST. What it gives: the callee's dotted spelling, or None.
Pure: no griffe, no I/O.
"""

from __future__ import annotations

import ast

from auditor.provider.pyvalues import dotted
from auditor.provider.wrappers import returns_of

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


SELF = "<self>"  # the spelling of a method's receiver in made_by()'s answer
RECEIVERLESS = frozenset({"staticmethod", "classmethod", "property", "functools.cached_property"})


def receiver(function: FunctionNode) -> str | None:
    """The name of a plain method's receiver (its first parameter); None for a static or
    class method, a property, or a function with no positional parameter."""
    heads = [d.func if isinstance(d, ast.Call) else d for d in function.decorator_list]
    if any(dotted(h) in RECEIVERLESS for h in heads):
        return None
    params = [*function.args.posonlyargs, *function.args.args]
    return params[0].arg if params else None


def made_by(function: FunctionNode, receiver: str | None = None) -> str | None:
    """The callee every return of `function` calls, spelled as written; None if unknown.

    With `receiver` (the function is a method reached through an instance), a return of
    the receiver itself is SELF, and a call of one of its methods `SELF.name`."""
    if isinstance(function, ast.AsyncFunctionDef) or _generates(function):
        return None
    returns = returns_of(function.body)
    if not returns or not _ends(function.body):
        return None
    shadowed = _parameters(function)
    assigned = _assigned(function)
    if receiver is not None and receiver in assigned:
        return None  # `self = ...`: not the receiver any more
    callees = {_callee(r.value, function, shadowed, receiver) for r in returns}
    if len(callees) != 1:
        return None
    callee = callees.pop()
    if callee is None or callee.startswith(SELF):
        return callee
    if callee.split(".", 1)[0] in shadowed | assigned:
        return None
    return callee


def _callee(
    value: ast.expr | None, function: FunctionNode, shadowed: set[str], receiver: str | None
) -> str | None:
    if receiver is not None and isinstance(value, ast.Name) and value.id == receiver:
        return SELF
    if isinstance(value, ast.Call):
        spelled = dotted(value.func)
        head, dot, rest = (spelled or "").partition(".")
        if receiver is not None and head == receiver:
            return f"{SELF}.{rest}" if dot and "." not in rest else None
        return spelled
    if isinstance(value, ast.Name) and value.id not in shadowed:
        bindings = _bindings(function, value.id)
        spelled_ = {dotted(b.func) if isinstance(b, ast.Call) else None for b in bindings}
        if len(spelled_) == 1 and bindings:
            return spelled_.pop()
    return None


def _bindings(function: FunctionNode, name: str) -> list[ast.expr | None]:
    """Every value `name` is bound to in the function's own scope; a binding other than a
    plain `name = value` (a loop target, `with ... as`, `+=`, unpacking) counts as None."""
    found: list[ast.expr | None] = []
    for node in _own_nodes(function):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name) and target.id == name:
                    found.append(node.value)
                elif _names(target, name):
                    found.append(None)
        elif isinstance(node, ast.AnnAssign) and _names(node.target, name):
            found.append(node.value)
        elif _other_binding(node, name):
            found.append(None)
    return found


def _other_binding(node: ast.AST, name: str) -> bool:
    """`name` bound by something else than an assignment of a value."""
    if isinstance(node, (ast.AugAssign, ast.NamedExpr, ast.For, ast.AsyncFor, ast.comprehension)):
        return _names(node.target, name)
    if isinstance(node, (ast.With, ast.AsyncWith)):
        bound = [i.optional_vars for i in node.items if i.optional_vars is not None]
        return any(_names(target, name) for target in bound)
    if isinstance(node, (ast.Global, ast.Nonlocal)):
        return name in node.names
    if isinstance(node, ast.ExceptHandler):
        return node.name == name
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return any((a.asname or a.name).split(".")[0] == name for a in node.names)
    return False


def _assigned(function: FunctionNode) -> set[str]:
    """Names the function binds in its own scope other than by `name = Call(...)`."""
    out: set[str] = set()
    for node in _own_nodes(function):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            out |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            out |= {
                n.id
                for t in targets
                for n in ast.walk(t)
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
            }
    return out


def _names(target: ast.AST, name: str) -> bool:
    """`name` is stored by this target (`client.url = ...` stores no name)."""
    return any(
        isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)
        for n in ast.walk(target)
    )


def _own_nodes(function: FunctionNode) -> list[ast.AST]:
    """The nodes of the function's own scope (not those of functions or classes in it)."""
    out: list[ast.AST] = []
    todo: list[ast.AST] = list(function.body)
    while todo:
        node = todo.pop()
        out.append(node)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        todo.extend(ast.iter_child_nodes(node))
    return out


def _parameters(function: FunctionNode) -> set[str]:
    args = function.args
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
    return {a.arg for a in every if a is not None}


def _generates(function: FunctionNode) -> bool:
    return any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in _own_nodes(function))


def _ends(body: list[ast.stmt]) -> bool:
    """Whether a block cannot fall off its end (so the function never returns None by it)."""
    if not body:
        return False
    last = body[-1]
    if isinstance(last, (ast.Return, ast.Raise)):
        return True
    if isinstance(last, ast.If):
        return _ends(last.body) and _ends(last.orelse)
    if isinstance(last, (ast.With, ast.AsyncWith)):
        return _ends(last.body)
    if isinstance(last, ast.Try):
        if _ends(last.finalbody):
            return True
        happy = _ends(last.orelse) if last.orelse else _ends(last.body)
        return happy and all(_ends(h.body) for h in last.handlers)
    return False
