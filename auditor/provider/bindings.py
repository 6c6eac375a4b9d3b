"""Names a module's top level binds that griffe does not list.

What it owns: griffe records a module attribute for `x = ...`, `x: T = ...` and imports; it
skips the other statements that bind a name when the module runs: unpacking
(`NO_LINTING, COLLECT, WARN = tuple(Linting)`: SQLAlchemy 2.0's compiler flags, `a, *b =
...`), `for x in ...:` targets, `with ... as x:`, `x += ...` and `(x := ...)`. Statements
at the top level are taken on every branch (`if`, `try`, `while`, `with`, `match`), as
dynamic.py does: a name any branch binds may exist; `def` and `class` bodies bind nothing
of the module's. Pure AST work: it takes the module's AST and gives the names with the line
of their first binding. Asked only when a name is otherwise missing, so the provider's
usual path parses nothing more.
"""

from __future__ import annotations

import ast

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def bound_names(tree: ast.Module) -> dict[str, int]:
    """Every name the module's top level binds by assignment, loop, `with` or walrus, with
    the line of the first such binding (comprehensions and nested scopes bind nothing)."""
    found: dict[str, int] = {}
    pending: list[ast.AST] = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, _SCOPES):
            continue
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            continue  # their loop variables are their own (a walrus inside is rare: skipped)
        for target in _targets(node):
            for name in _names(target):
                line = getattr(target, "lineno", 0)
                found[name] = min(found.get(name, line), line)
        pending.extend(ast.iter_child_nodes(node))
    return found


def _targets(node: ast.AST) -> list[ast.AST]:
    if isinstance(node, ast.Assign):
        return list(node.targets)
    if isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor)):
        return [node.target]
    if isinstance(node, ast.withitem) and node.optional_vars is not None:
        return [node.optional_vars]
    if isinstance(node, ast.NamedExpr):
        return [node.target]
    return []


def _names(target: ast.AST) -> list[str]:
    """The plain names a target binds: `a`, `a, (b, *c)`; `x.y` and `x[k]` bind none."""
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, ast.Starred):
        return _names(target.value)
    if isinstance(target, (ast.Tuple, ast.List)):
        return [name for element in target.elts for name in _names(element)]
    return []
