# Maintainers: what a found object is for a caller: its Symbol, signature and decorators.
#
# Owns: `SymbolBuilder`, the part of ProviderAPI that turns what a lookup found into the
#       model's `Symbol`: kind, signature (functions.py; a class's constructor: classes.py,
#       through `_Context`), deprecations, renamed and warned keywords, where `**kwargs` are
#       forwarded (forwards.py), whether `__init__` is re-run by the provider; and what the
#       provider's own decorators do, read from their source (wrappers.py), once each.
# Takes: objects found by resolution.py. Gives: Symbols; a signature that cannot be known is
# None with a reason.
"""Symbols and signatures of what a lookup found, and the provider's own decorators."""

from __future__ import annotations

import ast
import re
from dataclasses import replace
from typing import Any

import griffe

from auditor.model import Signature, Symbol, SymbolKind
from auditor.provider import classes, dynamic, exprs, forwards, functions, wrappers
from auditor.provider.classes import Maker, Unknown
from auditor.provider.lookup import (
    _Bound,
    _canonical,
    _Dynamic,
    _from_stub,
    _function_ast,
    _Instance,
    _Missing,
    _Overloads,
    _source,
)
from auditor.provider.resolution import PathResolver
from auditor.provider.typed import Stored

_RECONSTRUCT = re.compile(r"type\(\s*self\s*\)\s*\(|self\.__class__\s*\(|\bcls\s*\(")
Forwarded = tuple["str | None", "str | None", "tuple[str, ...]", "tuple[str, ...]"]
NO_FORWARD: Forwarded = (None, None, (), ())  # path, unless, taken, added


class SymbolBuilder(PathResolver):
    """The Symbol of a found object, with its signature when it can be known."""

    def _symbol(self, obj: Any) -> Symbol:
        if isinstance(obj, Stored):  # an attribute a method stores: griffe's, or ours
            if obj.member is not None:
                return self._symbol(obj.member)
            return Symbol(obj.path, SymbolKind.ATTRIBUTE)
        if isinstance(obj, _Overloads):
            variants = f"{obj.path} is an @overload set in a stub; a call must fit one variant"
            return Symbol(obj.path, SymbolKind.FUNCTION, None, variants)
        if isinstance(obj, _Dynamic):
            if obj.obj is None:
                reason = f"{obj.path} is served at run time by its module; its signature is unknown"
                return Symbol(obj.path, SymbolKind.ATTRIBUTE, None, reason, obj.deprecated)
            inner = self._symbol(obj.obj)  # named as the consumer spells it, not where it lives
            return replace(inner, path=obj.path, deprecated=inner.deprecated or obj.deprecated)
        deprecated = functions.deprecation(obj.function if isinstance(obj, _Bound) else obj)
        if isinstance(obj, griffe.Module):
            return Symbol(obj.path, SymbolKind.MODULE, deprecated=deprecated)
        if isinstance(obj, griffe.Class):
            signature, why, closed = self._constructor(obj)
            init = obj.members.get("__init__")
            renamed, warned = self._init_renames(init) if signature is not None else ((), ())
            params = (*functions.deprecated_parameters(init), *warned)
            params += functions.docstring_notes(obj).parameters
            onward = self._class_forward(obj) if signature is not None else NO_FORWARD
            return Symbol(
                obj.path, SymbolKind.CLASS, signature, why, deprecated,
                tuple(dict.fromkeys(params)), renamed,
                forwards=onward[0], forward_unless=onward[1], forward_taken=onward[2],
                forward_added=onward[3], compiled=_from_stub(obj),
                unknown_closed=closed and signature is None,
            )  # fmt: skip
        if isinstance(obj, (griffe.Function, _Bound)):
            return self._function_symbol(obj, deprecated)
        if isinstance(obj, _Instance):
            return Symbol(obj.cls.path, SymbolKind.ATTRIBUTE, deprecated=deprecated)
        return Symbol(obj.path, SymbolKind.ATTRIBUTE, deprecated=deprecated)

    def _function_symbol(self, obj: Any, deprecated: str | None) -> Symbol:
        bound = isinstance(obj, _Bound)
        function = obj.function if bound else obj
        if functions.is_property(function):
            return Symbol(function.path, SymbolKind.ATTRIBUTE, deprecated=deprecated)
        found = functions.decorated(function, bound=bound, provider_decorator=self._keeps_signature)
        params = tuple(dict.fromkeys((*functions.deprecated_parameters(function), *found.warned)))
        if found.positional_limit is not None and deprecated is None:
            deprecated = None  # positional use warns only when it happens (bind.py says so)
        onward = self._forward(function) if found.signature is not None else NO_FORWARD
        renamed = tuple(dict.fromkeys((*found.renamed, *functions.deprecated_renames(function))))
        return Symbol(
            function.path, SymbolKind.FUNCTION, found.signature, found.why, deprecated, params,
            renamed, found.positional_limit, self._reconstructs(function), *onward,
            compiled=_from_stub(function),
        )  # fmt: skip

    def _init_renames(self, init: Any) -> tuple[tuple[tuple[str, str], ...], tuple[str, ...]]:
        """(old, new) keyword names the class's own `__init__`'s decorators still accept, and
        the ones they warn about (`@deprecate_kwarg("tokenizer", new_name="processing_class")`)."""
        if not isinstance(init, griffe.Function) or not init.decorators:
            return (), ()
        found = functions.decorated(init, bound=True, provider_decorator=self._keeps_signature)
        return found.renamed, found.warned

    def _forward(self, function: griffe.Function) -> Forwarded:
        """Where the function's `**kwargs` go on to, as a provider path (forwards.py)."""
        if not any(p.kind is griffe.ParameterKind.var_keyword for p in function.parameters):
            return NO_FORWARD
        node = _function_ast(function)
        found = forwards.forward_of(node) if node is not None else None
        if found is None:
            return NO_FORWARD
        if found.callee == "super":
            owner = function.parent
            onward = self._next_init(owner) if isinstance(owner, griffe.Class) else None
            return (onward.path, None, found.taken, found.added) if onward else NO_FORWARD
        path = _canonical(function.module, found.callee)
        return (path, found.unless, found.taken, found.added) if self.owns(path) else NO_FORWARD

    def _next_init(self, owner: griffe.Class) -> griffe.Class | None:
        """The class whose `__init__` a `super().__init__(...)` in `owner` runs: the next one
        after it that defines one (Django's `RelatedField(FieldCacheMixin, Field)`: the
        mixin has none, so it is Field's); None when that is not known (a base not read) or
        none does (object's, which the provider does not describe)."""
        for klass in self._mro(owner, 0)[1:]:
            if klass is None:
                return None
            if "__init__" in klass.members:
                return klass
        return None

    def _class_forward(self, cls: griffe.Class) -> Forwarded:
        """The forward of the `__init__` that makes the class's constructor."""
        for klass in self._mro(cls, 0):
            if klass is None:
                return NO_FORWARD
            init = klass.members.get("__init__")
            if init is not None:
                return self._forward(init) if isinstance(init, griffe.Function) else NO_FORWARD
        return NO_FORWARD

    def _reconstructs(self, function: griffe.Function) -> bool:
        """An `__init__` whose class (or a provider base) makes new instances of whatever
        class an object is (`type(self)(...)`, `self.__class__(...)`, `cls(...)`): then a
        subclass's `__init__` is called by the provider itself."""
        owner = function.parent
        if function.name != "__init__" or not isinstance(owner, griffe.Class):
            return False
        return any(
            klass is None or _RECONSTRUCT.search(_source(klass)) is not None
            for klass in self._mro(owner, 0)
        )

    def _constructor(self, cls: griffe.Class) -> tuple[Signature | None, str | None, bool]:
        """The parameters `cls(...)` accepts, when they can be known statically (else why,
        and whether that is `closed`: provider/classes.Unknown)."""
        try:
            return classes.constructor(cls, _Context(self)), None, False
        except Unknown as why:
            return None, str(why), why.closed
        except (_Missing, griffe.AliasResolutionError, griffe.CyclicAliasError) as error:
            return None, f"{cls.path}: {error}", False

    def decorator_effect(self, decorator: Any) -> wrappers.Effect | None:
        """What one of the provider's own decorators does to a function, read from its
        source (wrappers.py); None when the decorator is not the provider's."""
        path = functions.decorator_path(decorator)
        if not self.owns(path):
            return None
        key = f"effect:{decorator.value}@{path}"
        if key not in self._decorators:
            self._decorators[key] = self._tracked(lambda: self._effect(decorator, path))
        result, modules = self._decorators[key]
        self._merge(modules)
        return result  # type: ignore[return-value]

    def _effect(self, decorator: Any, path: str) -> wrappers.Effect:
        call = _call_of(str(decorator.value))
        try:
            found = self._find(path, 0)
        except (_Missing, Unknown) as error:
            return wrappers.unknown(f"{path}: {error}")
        args: list[Any] = list(call[0]) if call else []
        kwargs: dict[str, Any] = dict(call[1]) if call else {}
        if isinstance(found, griffe.Attribute):  # `traced = functools.partial(maybe, ...)`
            partial = _partial_of(found, lambda name: _canonical(found.module, name))
            if partial is None:
                return wrappers.unknown(f"{path} is not a function")
            target, bound_args, bound_kwargs = partial
            try:
                found = self._find(target, 0)
            except (_Missing, Unknown) as error:
                return wrappers.unknown(f"{target}: {error}")
            args, kwargs = [*bound_args, *args], {**bound_kwargs, **kwargs}
            call = call or ((), {})
        return self._effect_of(found, call is not None, args, kwargs)

    def _effect_of(
        self, found: Any, called: bool, args: list[Any], kwargs: dict[str, Any]
    ) -> wrappers.Effect:
        helper = self._helper_reader(found)
        if isinstance(found, griffe.Class):
            method = found.members.get("__call__")
            node = _function_ast(method) if isinstance(method, griffe.Function) else None
            if not called or node is None:
                return wrappers.unknown(f"{found.path} is a class used as a decorator")
            return wrappers.decorator_effect(node, skip=1, helper=helper)
        node = _function_ast(found) if isinstance(found, griffe.Function) else None
        if node is None:
            return wrappers.unknown(f"{getattr(found, 'path', found)} is not a plain function")
        if not called:
            return wrappers.decorator_effect(node, helper=helper)
        inner = wrappers.factory_decorator(node)
        if inner is None:
            return wrappers.unknown(f"{found.path} does not return a decorator it defines")
        closure: dict[str, Any] = {}
        dynamic.bind_arguments(node.args, args, kwargs, closure)
        return wrappers.decorator_effect(inner, closure, helper=helper)

    def _helper_reader(self, found: Any) -> Any:
        """For wrappers.py: a provider function by the name the decorator's module calls it."""
        module = getattr(found, "module", None)

        def read(name: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
            if module is None:
                return None
            path = _canonical(module, name)
            if not self.owns(path):
                return None
            try:
                function = self._find(path, 0)
            except (_Missing, Unknown):
                return None
            return _function_ast(function) if isinstance(function, griffe.Function) else None

        return read

    def _keeps_signature(self, decorator: Any) -> wrappers.Effect | None:
        """For classes.py: the provider's decorator keeps a method's signature as it is."""
        effect = self.decorator_effect(decorator)
        if effect is not None and effect.kind != "unknown":
            return effect
        if self.own_decorator(functions.decorator_path(decorator)) == "transparent":
            return wrappers.PRESERVE
        return effect

    def own_decorator(self, path: str) -> Maker | str | None:
        """What one of the provider's own decorators (or metaclasses) does; None: unknown."""
        if path not in self._decorators:
            self._decorators[path] = self._tracked(lambda: self._classify(path))
        result, modules = self._decorators[path]
        self._merge(modules)
        return result

    def _classify(self, path: str) -> Maker | str | None:
        if path in functions.CLASS_MARKERS:
            return "transparent"
        if not self.owns(path):
            return None
        try:
            found = self._find(path, 0)
        except (_Missing, Unknown):
            return None
        if isinstance(found, griffe.Class):  # a metaclass or decorator class
            marked = any(
                functions.decorator_path(d) in classes.DATACLASS_TRANSFORM for d in found.decorators
            )
            return Maker("transform", extra="allow") if marked else None
        if not isinstance(found, griffe.Function):
            return None
        module = found.module
        return classes.classify_decorator(found, _source(found), lambda n: _canonical(module, n))


class _Context:
    """The lookups classes.constructor needs, bound to one API."""

    def __init__(self, api: SymbolBuilder) -> None:
        self.api = api

    def provider_bases(self, cls: griffe.Class) -> list[griffe.Class | None]:
        """Provider bases; family roots (pydantic, msgspec, ...) are left to base_paths."""
        out = []
        for base in cls.bases:
            path = exprs.expr_path(base)
            if path in classes.NEUTRAL_BASES or path in classes.FAMILY_ROOTS:
                continue
            out.append(self.api._provider_class(path, 0))
        return out

    def base_paths(self, cls: griffe.Class) -> list[str | None]:
        return [exprs.expr_path(b) for b in cls.bases]

    def bases_outside(self, cls: griffe.Class) -> bool:
        return self.api.bases_outside(cls, 0)

    def own_decorator(self, path: str) -> Maker | str | None:
        return self.api.own_decorator(path)

    def init_signature(self, function: Any) -> Signature:
        if not isinstance(function, griffe.Function):
            raise Unknown("__init__ is not a plain function")
        signature, why = functions.signature_of(
            function, bound=True, provider_decorator=self.api._keeps_signature
        )  # a method's decorators, as for any function
        if signature is None:
            raise Unknown(why or "unknown __init__")
        return signature

    def follow(self, member: Any) -> Any:
        return self.api._follow(member, 0)

    def constant_text(self, expr: Any) -> str:
        """The source text of the provider constant an expression names, or ""."""
        path = exprs.expr_path(expr)
        if path is None or not self.api.owns(path):
            return ""
        try:
            found = self.api._find(path, 0)
        except (_Missing, Unknown):
            return ""
        value = getattr(found, "value", None)
        return "" if value is None else str(value)


def _call_of(text: str) -> tuple[tuple[Any, ...], dict[str, Any]] | None:
    """The literal arguments of a decorator written as a call (`@renamed(old="new")`);
    None when it is not a call. An argument that is not a literal is dynamic.UNKNOWN."""
    try:
        expr = ast.parse(text, mode="eval").body
    except (SyntaxError, ValueError, RecursionError):
        return None
    if not isinstance(expr, ast.Call):
        return None
    args = tuple(_literal(a) for a in expr.args)
    kwargs = {k.arg: _literal(k.value) for k in expr.keywords if k.arg}
    return args, kwargs


def _literal(node: ast.expr) -> Any:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, RecursionError):
        return dynamic.UNKNOWN


def _partial_of(
    attribute: Any, canonical: Any
) -> tuple[str, tuple[Any, ...], dict[str, Any]] | None:
    """`name = functools.partial(f, *args, **kwargs)`: (f's path, args, kwargs)."""
    value = getattr(attribute, "value", None)
    call = _call_of(str(value)) if value is not None else None
    if call is None:
        return None
    try:
        expr = ast.parse(str(value), mode="eval").body
    except (SyntaxError, ValueError, RecursionError):
        return None
    assert isinstance(expr, ast.Call)
    if canonical(exprs.unparse(expr.func)) not in ("functools.partial", "partial"):
        return None
    if not expr.args:
        return None
    target = canonical(ast.unparse(expr.args[0]))
    return target, call[0][1:], call[1]
