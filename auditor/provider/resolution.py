# Maintainers: dotted paths walked through a release: modules, re-exports, instances.
#
# Owns: `PathResolver`, the part of ProviderAPI that walks `a.b.C().x` part by part: the
#       longest module prefix (a package's own binding shadows its submodule), module members
#       (griffe aliases followed, `name = other` bindings, @overload sets, submodules, star
#       imports last one first, then what the module's dynamic namespace serves: dynamic.py;
#       a name its top level writes again through its namespace is what was written),
#       class members (members.py), and the markers: `()` an instance of the class or what a
#       function returns (its annotation, or the class every return makes: returns.py), `[]`
#       and `[*]` an element of an annotated container.
# Takes: dotted paths. Gives: the object found (griffe's or lookup.py's), or raises how the
# lookup ended; never guesses: what cannot be followed is Unknown.
"""Dotted paths resolved through modules, re-exports, star imports and instances."""

from __future__ import annotations

import re
from typing import Any

import griffe

from auditor.provider import bindings, dynamic, exprs, returns
from auditor.provider.classes import Unknown
from auditor.provider.exports import _star_binds
from auditor.provider.lookup import (
    _MARKER,
    MAX_DEPTH,
    MODULE_DUNDERS,
    Unlisted,
    _Bound,
    _canonical,
    _Dynamic,
    _from_stub,
    _function_ast,
    _Instance,
    _Missing,
    _Overloads,
    _Typed,
)
from auditor.provider.paths import PARAMETER, UNDECLARED, bare
from auditor.provider.typed import Stored, TypedMembers

# what a module's source holds when it may write its own namespace (`globals()[k] = v`,
# `globals().update(...)`, `g = globals()`, `setattr(sys.modules[__name__], ...)`): a module
# without it is not evaluated for names it binds again (dynamic.py)
NAMESPACE_WRITES = re.compile(
    r"\b(?:globals|vars|locals)\(\)\s*[\[.]|=\s*(?:globals|vars|locals)\(\)|modules\["
)


class PathResolver(TypedMembers):
    """The walk of a dotted path through the release, part by part."""

    def _star_bound(self, module_path: str, name: str) -> Any:
        """What `from module import *` binds as `name`: the name when the module exports it
        (its `__all__`, else its public names); _Missing when it binds no such name (the
        consumer's name is then something else: a builtin, another import), Unknown when
        that cannot be known (an `__all__` built at run time that does not list it)."""
        origin = self._module(module_path)
        if origin is None:
            raise _Missing(module_path, module=True)
        binds = _star_binds(origin, name, self._declared(origin), self._all_is_static(origin))
        if binds is None:
            raise Unknown(f"{module_path}.__all__ is not known statically; it may export {name}")
        if not binds:
            raise _Missing(f"{module_path}.{name}", module=False)
        return self._find(f"{module_path}.{name}", depth=0)

    def _find(
        self, dotted: str, depth: int, *, module_only: bool = False, from_import: bool = False
    ) -> Any:
        if depth > MAX_DEPTH:
            raise Unknown(f"too many re-exports while resolving {dotted}")
        parts = dotted.split(".")
        if not self.owns(dotted):
            raise Unknown(f"{dotted} is outside the provider")
        plain = [bare(p) for p in parts]
        imported = len(plain) - 1 if from_import else 0  # parts the import system imports
        module, used = self._longest_module(
            plain, parts, module_only=module_only, imported=imported
        )
        if module is None:
            raise _Missing(parts[0], module=True)
        obj: Any = module
        for index in range(used, len(parts)):
            path = ".".join(plain[: index + 1])
            if index < (len(plain) if module_only else imported) and isinstance(obj, griffe.Module):
                obj = self._imported_member(obj, plain[index], path, depth)
            elif index + 1 < len(parts) and parts[index + 1].startswith(PARAMETER):
                obj = self._overridden(obj, plain[index], path, depth)
            else:
                obj = self._member(obj, plain[index], path, depth)
            for marker in _MARKER.findall(parts[index]):
                obj = (
                    self._call_result(obj, depth)
                    if marker == "()"
                    else self._element(obj, marker, depth)
                )
        return obj

    def _longest_module(
        self, plain: list[str], parts: list[str], *, module_only: bool = False, imported: int = 0
    ) -> tuple[Any, int]:
        for size in range(len(plain), 0, -1):
            if any(p != bare(p) for p in parts[: size - 1]):
                continue  # a module path never goes through a call or an item
            module = self._module(".".join(plain[:size]))
            if module is not None:
                attribute = size > max(1, imported) and not (module_only and size == len(plain))
                if attribute and self._shadowed(".".join(plain[: size - 1]), plain[size - 1]):
                    continue  # `pkg.name` is what pkg/__init__ binds, not the submodule
                if parts[size - 1] != plain[size - 1]:
                    raise Unknown(f"calling or subscripting module {module.path}")
                return module, size
        return None, 0

    def _shadowed(self, package: str, name: str) -> bool:
        """Whether `package` binds `name` to something else than its submodule `name`: then
        `package.name` (an attribute, `from package import name`) is that binding, as long as
        nothing imports the submodule (which would rebind it)."""
        parent = self._modules.get(package)
        member = parent.members.get(name) if parent is not None else None
        if member is None or isinstance(member, griffe.Module):
            return False
        if member.is_alias:
            return str(getattr(member, "target_path", "")) != f"{package}.{name}"
        return True

    def _element(self, obj: Any, marker: str, depth: int) -> Any:
        """`obj[k]` ("[]") or an element of iterating obj ("[*]"), from its annotation:
        `list[X]`, `Sequence[X]`, `tuple[X, ...]`, `set[X]` give X; `dict[K, V]` gives V when
        subscripted and K when iterated."""
        if isinstance(obj, _Instance):  # what its `__getitem__` or `__iter__` says
            return self._protocol_result(obj.cls, marker, depth)
        annotation = obj.annotation if isinstance(obj, (griffe.Attribute, _Typed)) else None
        element = exprs.element_annotation(annotation, iterate=marker == "[*]")
        if element is None:
            raise Unknown("the elements of this value are not known statically")
        return self._type_of(element, obj, depth)

    def _protocol_result(self, cls: griffe.Class, marker: str, depth: int) -> Any:
        """`obj[k]`: what the class's `__getitem__` returns; an element of `for x in obj`:
        an element of what its `__iter__` returns (`Iterator[Module]`)."""
        if depth > MAX_DEPTH:
            raise Unknown(f"too many steps while following the elements of {cls.path}")
        method = "__getitem__" if marker == "[]" else "__iter__"
        member = self._instance_member(cls, method, f"{cls.path}().{method}", depth + 1)
        result = self._call_result(member, depth + 1)
        if marker == "[]":
            return result
        if isinstance(result, _Instance):  # an iterator: what its `__next__` returns
            step = self._instance_member(result.cls, "__next__", f"{result.cls.path}()", depth)
            return self._call_result(step, depth + 1)
        return self._element(result, "[*]", depth + 1)

    def _returns_receiver(self, function: griffe.Function, depth: int) -> bool:
        """A method annotated to return its receiver's own type: `-> Self`, or a type
        variable that is also the first parameter's annotation (`def copy(self: NDFrameT)
        -> NDFrameT`); a class named there is that class, not the receiver's."""
        returns = function.returns
        if returns is None or isinstance(returns, str):
            return False
        path = exprs.expr_path(returns)
        if path in SELF_TYPES:
            return True
        params = list(function.parameters)
        first = params[0].annotation if params else None
        if first is None or str(first) != str(returns):
            return False
        owned = path is not None and self.owns(path) and "[" not in str(returns)
        return owned and self._provider_class(path, depth) is None

    def _overridden(self, obj: Any, name: str, path: str, depth: int) -> Any:
        """The provider method a consumer method overrides, for its parameters' types: one
        the provider does not have is missing (bind.py: the method is the consumer's own,
        its parameters none of the provider's business, never a removal)."""
        return self._member(obj, name, path, depth)

    def _parameter(self, obj: Any, name: str, depth: int) -> Any:
        """`method.@name`: an instance of what the provider method declares for its
        parameter `name` (what it passes the consumer's override)."""
        function = obj.function if isinstance(obj, _Bound) else obj
        if not isinstance(function, griffe.Function):
            raise Unknown(f"{UNDECLARED} {name}: what it belongs to is not a function")
        param = next((p for p in function.parameters if p.name == name), None)
        variadic = (griffe.ParameterKind.var_positional, griffe.ParameterKind.var_keyword)
        if param is None or param.annotation is None or param.kind in variadic:
            raise Unknown(f"{UNDECLARED} {name} of {function.path}: it has no annotation")
        return self._type_of(param.annotation, function, depth)

    def _member(self, obj: Any, name: str, path: str, depth: int) -> Any:
        if name.startswith(PARAMETER):
            return self._parameter(obj, name.removeprefix(PARAMETER), depth)
        if isinstance(obj, griffe.Module):
            return self._module_member(obj, name, path, depth)
        if isinstance(obj, griffe.Class):
            try:
                return self._class_member(obj, name, path, depth, seen=set(), on_class=True)
            except _Missing:
                return self._metaclass_member(obj, name, path, depth)
        if isinstance(obj, _Instance):
            return self._instance_member(obj.cls, name, path, depth)
        if isinstance(obj, griffe.Attribute):
            return self._member(self._annotated(obj, depth), name, path, depth)
        if isinstance(obj, Stored):
            return self._member(self._stored_type(obj, depth), name, path, depth)
        if isinstance(obj, _Dynamic):
            if obj.obj is None:
                raise Unknown(f"{obj.path} is served at run time; what it is is not known")
            found = self._member(obj.obj, name, path, depth)
            return _Dynamic(path, found, obj.deprecated) if obj.deprecated else found
        raise Unknown(f"{path}: attribute of a {type(obj).__name__.lower()} is not tracked")

    def _imported_member(self, module: griffe.Module, name: str, path: str, depth: int) -> Any:
        """`import a.b` / `from a.b import c`: the import system finds submodule `b` (or one
        the package put into its namespace); the package's `__getattr__` plays no part."""
        member = module.members.get(name)
        if member is None or getattr(member, "wildcard", None):
            self._unseen_member(module, name, path)
            raise _Missing(path, module=True)
        rebound = self._rebound(module, name, depth)
        return rebound if rebound is not None else self._follow(member, depth)

    def _unseen_member(self, module: griffe.Module, name: str, path: str) -> None:
        """A name a namespace package's folder does not hold may come from another
        distribution's portion of it (matplotlib's `mpl_toolkits` and basemap's
        `mpl_toolkits.basemap`): unknown by itself, a removal only when the baseline held it.
        What an extension module with no stub defines is not known at all (SQLAlchemy 2.0's
        `cyextension.immutabledict`), in any release: never a removal."""
        if module.path in self._compiled:
            raise Unknown(f"{module.path} is compiled and has no stub; {name} may be in it")
        if module.path in self._namespaces:
            why = f"{module.path} is a namespace package; another distribution may add {name}"
            raise Unlisted(path, why, closed=True)

    def _module_member(self, module: griffe.Module, name: str, path: str, depth: int) -> Any:
        if name in MODULE_DUNDERS and name not in module.members:
            raise Unknown(f"{path} is set by the import system")
        member = module.members.get(name)
        if member is not None and not getattr(member, "wildcard", None):
            rebound = self._rebound(module, name, depth)
            return rebound if rebound is not None else self._follow(member, depth)
        overloads = getattr(module, "overloads", None) or {}
        if overloads.get(name):  # a stub's @overload set with no implementation beside it
            return _Overloads(f"{module.path}.{name}")
        submodule = self._module(f"{module.path}.{name}")
        if submodule is not None:
            return submodule
        self._unseen_member(module, name, path)
        found, undecided = self._from_wildcards(module, name, depth)
        if found is not None:  # what `import *` binds, unless the module writes it again
            rebound = self._rebound(module, name, depth)
            return rebound if rebound is not None else found
        if undecided is None and _from_stub(module):  # a compiled module's stub: a sketch
            raise Unlisted(path, f"{module.path} is compiled; its stub may not list {name}")
        if undecided is None:
            return self._served(module, name, path, depth)
        try:  # a wildcard source could not say: only the module's own machinery can decide
            served = self._served(module, name, path, depth)
        except (_Missing, Unknown):
            raise undecided from None
        return served

    def _rebound(self, module: griffe.Module, name: str, depth: int) -> Any:
        """A name the module binds (a def, an import, what `import *` brings) that its top
        level binds again through its namespace (`globals()["run"] = _impl`, as `run =
        _impl` would): what it was bound to (dynamic.py); None when nothing rebinds it, and
        the binding griffe read stands. A module whose source never names its namespace is
        not evaluated for it."""
        if not NAMESPACE_WRITES.search(self._texts.get(module.path, ("", ""))[1]):
            return None
        outcome = self._evaluator().rebinding(module.path, name)
        if outcome is None:
            return None
        if isinstance(outcome, dynamic.Undecided):
            raise Unknown(outcome.reason)
        target = outcome.target
        if target is None or not self.owns(target):
            raise Unknown(f"{module.path} rebinds {name} at import time to {target}")
        try:
            return self._find(target, depth + 1)
        except _Missing:  # what it is bound to is not where the evaluation says: not known
            raise Unknown(f"{module.path} rebinds {name} at import time to {target}") from None

    def _top_level_binding(self, module: griffe.Module, name: str) -> griffe.Attribute | None:
        """The attribute an unpacking, a loop, a `with` or a walrus at the module's top level
        binds as `name` (bindings.py), made a member of the module the first time it is
        asked for; None when the top level binds no such name."""
        loaded = self._evaluator().host.module_ast(module.path)
        if loaded is None:
            return None
        if module.path not in self._bindings:
            self._bindings[module.path] = bindings.bound_names(loaded[0])
        line = self._bindings[module.path].get(name)
        if line is None:
            return None
        attribute = griffe.Attribute(name, lineno=line, endlineno=line)
        module.set_member(name, attribute)
        return attribute

    def _served(self, module: griffe.Module, name: str, path: str, depth: int) -> Any:
        """A name the module does not define: what its dynamic namespace does with it."""
        bound = self._top_level_binding(module, name)
        if bound is not None:  # `a, b = ...` at the top level: griffe lists neither
            return self._follow(bound, depth)
        outcome = self._evaluator().lookup(module.path, name)
        if outcome is None:
            if "__getattr__" in module.members:
                raise Unknown(f"{module.path} defines __getattr__; {name} may be dynamic")
            raise _Missing(path, module=False)
        if isinstance(outcome, dynamic.Refused):
            raise _Missing(path, module=False)
        if isinstance(outcome, dynamic.Undecided):
            raise Unknown(outcome.reason)
        target = outcome.target
        obj = self._find(target, depth + 1) if target and self.owns(target) else None
        return _Dynamic(path, obj, outcome.deprecated)

    def _from_wildcards(
        self, module: griffe.Module, name: str, depth: int
    ) -> tuple[Any, Unknown | None]:
        """`name` from the module's `from x import *` sources, the last one first (as Python
        binds them, the last wins); (None, why) when a source could not be decided.

        A source with no Python source (a compiled module) is undecided; a source already on
        the path of this very lookup (star imports in a cycle) adds nothing. Answers are
        kept per (module, name), with the modules they read, unless a cycle was cut below."""
        key = (module.path, name)
        if key in self._stars:
            answer, modules = self._stars[key]
            self._merge(modules)
        else:
            cuts = self._cuts
            answer, modules = self._tracked(lambda: self._star_sources(module, name, depth))
            self._merge(modules)
            if self._cuts == cuts:
                self._stars[key] = (answer, modules)
        found, undecided = answer
        return found, undecided

    def _star_sources(
        self, module: griffe.Module, name: str, depth: int
    ) -> tuple[Any, Unknown | None]:
        undecided: Unknown | None = None
        for member in reversed(list(module.members.values())):
            source = getattr(member, "wildcard", None)
            if not source:
                continue
            if not self.owns(source):
                if getattr(member, "runtime", True):  # not under `if TYPE_CHECKING:`
                    undecided = undecided or Unknown(f"{module.path} re-exports * from {source}")
                continue
            if (source, name) in self._star_path:
                self._cuts += 1
                continue
            try:
                origin = self._module(source)
                if origin is None:
                    # the release has no such module (nor an extension, nor a folder): a
                    # star import of it binds nothing where it runs (a stale TYPE_CHECKING
                    # mirror, a try/except ImportError), and fails the module where it does
                    continue
                if not self._star_exports(origin, name):
                    continue  # `import *` takes __all__ (or the public names), not this one
                self._star_path.add((source, name))
                try:
                    return self._find(f"{source}.{name}", depth + 1), None
                finally:
                    self._star_path.discard((source, name))
            except _Missing:
                continue
            except Unknown as why:
                undecided = undecided or why
        return None, undecided

    def _call_result(self, obj: Any, depth: int) -> Any:
        """What calling `obj` gives: an instance of a class, or a function's return type."""
        if isinstance(obj, _Dynamic):
            if obj.obj is None:
                raise Unknown(
                    f"{obj.path} is served at run time; calling it gives what is not known"
                )
            return self._call_result(obj.obj, depth)
        if isinstance(obj, griffe.Class):
            return _Instance(obj)
        if isinstance(obj, _Overloads):
            return self._overloaded_result(self._overload_set(obj.path), obj.path, depth)
        if isinstance(obj, (griffe.Function, _Bound)):
            function = obj.function if isinstance(obj, _Bound) else obj
            if function.overloads:
                return self._overloaded_result(function.overloads, function.path, depth)
            owner = obj.owner if isinstance(obj, _Bound) else None
            if owner is not None and self._returns_receiver(function, depth):
                return _Instance(owner)  # `-> Self`, `(self: T, ...) -> T`
            if function.returns is None:
                made = self._made_by(function, owner, depth)
                if made is not None:
                    return made
            return self._type_of(function.returns, function, depth)
        raise Unknown("the result of calling this object is not tracked")

    def _made_by(self, function: griffe.Function, owner: griffe.Class | None, depth: int) -> Any:
        """What an unannotated function's every return gives (returns.py): an instance of
        the provider class it makes, what the provider function it calls returns, or, for a
        method reached through an instance, that instance (`return self`) or what another of
        its methods returns (`return self.send(...)`); None when that is not known."""
        if depth > MAX_DEPTH:
            raise Unknown(f"too many calls while following what {function.path} returns")
        node = _function_ast(function)
        receiver = returns.receiver(node) if owner is not None and node is not None else None
        spelled = returns.made_by(node, receiver) if node is not None else None
        if spelled is None or not isinstance(function.module, griffe.Module):
            return None
        if owner is not None and spelled == returns.SELF:
            return _Instance(owner)
        if owner is not None and spelled.startswith(returns.SELF + "."):
            method = spelled.removeprefix(returns.SELF + ".")
            path = f"{owner.path}().{method}"
            try:
                member = self._instance_member(owner, method, path, depth + 1)
            except _Missing:
                return None
            return self._call_result(member, depth + 1)
        made = _canonical(function.module, spelled)
        found = self._provider_class(made, depth)
        if found is not None:
            return _Instance(found)
        if not self.owns(made):
            return None
        try:
            callee = self._find(made, depth + 1)
        except _Missing:
            return None
        return self._call_result(callee, depth + 1)

    def _overload_set(self, path: str) -> list[Any]:
        owner, _, name = path.rpartition(".")
        try:
            parent = self._find(owner, 0)
        except (_Missing, Unknown):
            return []
        return list(getattr(parent, "overloads", {}).get(name) or [])

    def _overloaded_result(self, variants: list[Any], path: str, depth: int) -> Any:
        """What calling an @overload set gives: the class every variant returns, when they all
        return the same one (whichever variant a call selects), the variants that return
        None aside (what is looked up on the result fails on None whatever the provider
        does, as `x = None` is neutral in values.py); else unknown. Choosing the variant by
        the call's arguments needs the call, which a dotted path does not carry."""
        found: list[Any] = []
        for variant in variants:
            if str(variant.returns) == "None":
                continue  # `inplace: Literal[True]` -> None: on None a use fails everywhere
            try:
                found.append(self._type_of(variant.returns, variant, depth))
            except (_Missing, Unknown):
                raise Unknown(f"{path}: an @overload variant returns what is not known") from None
        classes_ = {id(f.cls) for f in found if isinstance(f, _Instance)}
        if not found or len(classes_) != 1 or not all(isinstance(f, _Instance) for f in found):
            raise Unknown(f"{path}: its @overload variants return different things")
        return found[0]

    def _annotated(self, attr: griffe.Attribute, depth: int) -> Any:
        if attr.annotation is None and isinstance(attr.parent, griffe.Module):
            return self._module_attribute_type(attr, depth)  # `api = HfApi()`
        if attr.annotation is None and isinstance(attr.parent, griffe.Class):
            return self._class_attribute_type(attr, attr.parent, depth)
        return self._type_of(attr.annotation, attr, depth)

    def _type_of(self, annotation: Any, owner: Any, depth: int) -> Any:
        if exprs.element_annotation(annotation, iterate=True) is not None:
            return _Typed(annotation)  # a container: its items may be followed
        path = exprs.builtin_path(exprs.annotation_class(annotation))
        if path is None or not self.owns(path):
            raise Unknown(f"the type of {_described(owner)} is not a provider class")
        found = self._find(path, depth + 1)
        if not isinstance(found, griffe.Class):  # a TypeVar, an alias, a function
            raise Unknown(f"the type of {_described(owner)} is not a class")
        return _Instance(found)

    def _follow(self, member: Any, depth: int) -> Any:
        if member.is_alias:
            target = member.target_path
            if not self.owns(target):
                raise Unknown(f"re-exported from outside the provider: {target}", closed=True)
            return self._find(target, depth + 1)
        named = _named_by(member)
        if named is not None and self.owns(named):  # `ib = attr = attrib`: the same object
            return self._find(named, depth + 1)
        return member


SELF_TYPES = frozenset({"typing.Self", "typing_extensions.Self", "Self"})


def _described(owner: Any) -> str:
    """What a type was asked of, in words: its path, or the annotation an element of a
    container is known by (`_Typed` has no path)."""
    if isinstance(owner, _Typed):
        return f"an element of {owner.annotation}"
    return str(getattr(owner, "path", owner))


def _named_by(member: Any) -> str | None:
    """The path a module-level `name = other` binds `name` to (a bare name or attribute, no
    call, no annotation): Python binds the very object `other` is."""
    if not isinstance(member, griffe.Attribute) or member.annotation is not None:
        return None
    if not isinstance(member.parent, griffe.Module):
        return None
    value = member.value
    if not isinstance(value, (griffe.ExprName, griffe.ExprAttribute)):
        return None
    path = exprs.expr_path(value)
    return path if path and path != member.path else None
