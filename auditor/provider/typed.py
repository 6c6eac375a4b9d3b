# Maintainers: the types that flow through values the provider writes down without a type.
#
# Owns: `TypedMembers`, the part of ProviderAPI that decides an instance attribute a method
#       stores (`self.coef_ = ...` in `fit`: it exists, as it does once that method ran;
#       `Stored`), and the type of an attribute with no annotation from the values it is
#       given: every store of it in the class's MRO (its methods, its body; attributes.py)
#       or every top-level binding of a module attribute (`api = HfApi()`) makes the same
#       call, read as the call's result (a class's instance, what a function returns). Never
#       guessed: a base that cannot be read, a store that is not such a call, two callees, a
#       `setattr`, an instance dict written, a `__getattr__`, a metaclass or a class
#       decorator that may change what the class holds, a `global` rebinding: unknown.
# Also `_owners()`: which classes a package's top level binds have a method of a name, and
# for which that cannot be known: the evidence of a `probable` finding (bind.py).
# Takes: griffe classes and attributes (lookups through resolution.py, which builds on
# this). Gives: `Stored` members and `_Instance`s, or raises Unknown.
"""Attributes stored by any method, and the types of values given no annotation."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import griffe

from auditor.provider import attributes, classes, hooks
from auditor.provider.classes import Unknown
from auditor.provider.lookup import Unlisted, _Bound, _canonical, _Instance, _Missing, _source
from auditor.provider.members import _DICT_WRITE, ClassMembers

if TYPE_CHECKING:
    from collections.abc import Iterable

    from auditor.sources import SourceTree


MAX_EXPORTS = 400  # top-level names of a package asked which have a method (`probable`)


@dataclass(frozen=True)
class Stored:
    """An attribute of an instance of `cls` that a method stores (or `__init__`, with no
    annotation: `member`, griffe's record of it): it exists; its type is what its stores
    give, when they agree (`TypedMembers._stored_type`)."""

    path: str
    cls: griffe.Class
    name: str
    member: Any = None


class TypedMembers(ClassMembers):
    """Instance attributes stored by any method, and the types of unannotated values."""

    def __init__(self, tree: SourceTree, import_names: Iterable[str], version: str | None):
        super().__init__(tree, import_names, version)
        self._stores: dict[int, tuple[griffe.Class, attributes.Stores]] = {}

    if TYPE_CHECKING:  # defined by resolution.py, which builds on this part

        def _call_result(self, obj: Any, depth: int) -> Any: ...

        def _type_of(self, annotation: Any, owner: Any, depth: int) -> Any: ...

    def _instance_member(self, cls: griffe.Class, name: str, path: str, depth: int) -> Any:
        try:
            member = super()._instance_member(cls, name, path, depth)
        except (_Missing, Unknown):
            if not name.startswith("__") and self._stored_by(cls, name, depth):
                return Stored(f"{cls.path}.{name}", cls, name)
            raise
        unannotated = isinstance(member, griffe.Attribute) and member.annotation is None
        if unannotated and isinstance(member.parent, griffe.Class):
            return Stored(member.path, cls, name, member)
        if isinstance(member, _Bound) and member.owner is None:
            return _Bound(member.function, cls)  # what `return self` gives is known now
        return member

    def _stored_by(self, cls: griffe.Class, name: str, depth: int) -> bool:
        """A class of the MRO that can be read stores `name` on its instances."""
        return any(k is not None and name in self._stores_of(k) for k in self._mro(cls, depth))

    def _stores_of(self, klass: griffe.Class) -> attributes.Stores:
        found = self._stores.get(id(klass))
        if found is None or found[0] is not klass:
            stores = attributes.class_stores(_source(klass)) or {}
            found = self._stores[id(klass)] = (klass, stores)
        return found[1]

    # ------------------------------------------------------------------ owners

    def _owners(self, package: str, method: str) -> tuple[list[str], list[str]]:
        """The classes the package's top level binds whose instances have `method` as a
        method, and those for which that cannot be known (for a `probable` finding)."""
        module = self._module(package)
        if module is None:
            raise _Missing(package, module=True)
        have: list[str] = []
        unknown: list[str] = []
        for name, member in list(module.members.items())[:MAX_EXPORTS]:
            if name.startswith("_") or getattr(member, "wildcard", None):
                continue
            try:
                cls = self._follow(member, 0)
            except (_Missing, Unknown, griffe.AliasResolutionError, griffe.CyclicAliasError):
                continue
            if not isinstance(cls, griffe.Class) or cls.path in have or cls.path in unknown:
                continue
            try:
                found = self._instance_member(cls, method, f"{cls.path}().{method}", 0)
            except Unlisted as gap:  # a data-keys __getattr__: gone unless a key is named so
                if not str(gap).startswith("unless "):
                    unknown.append(cls.path)
                continue
            except _Missing:
                continue
            except (Unknown, griffe.AliasResolutionError, griffe.CyclicAliasError):
                unknown.append(cls.path)
                continue
            (have if isinstance(found, _Bound) else unknown).append(cls.path)
        return have, unknown

    # ------------------------------------------------------------------ types

    def _stored_type(self, stored: Stored, depth: int) -> Any:
        """The type of an attribute stored on an instance of `stored.cls`."""
        where = f"{stored.cls.path}.{stored.name}"
        mro = self._mro(stored.cls, depth)
        if any(k is None for k in mro):
            raise Unknown(f"the type of {where} is not known: a base cannot be read")
        known = [k for k in mro if k is not None]
        if any(self._may_set(k, stored.name, stored.cls, depth) for k in known):
            raise Unknown(f"the type of {where} is not known: it may be set by name")
        if stored.member is not None and stored.member.annotation is not None:
            return self._type_of(stored.member.annotation, stored.member, depth)
        return self._made_by_stores(known, stored.name, where, depth)

    def _class_attribute_type(self, attr: griffe.Attribute, owner: griffe.Class, depth: int) -> Any:
        """The type of an unannotated attribute read on its class (`ContentType.objects`):
        what the class bodies and classmethods of the MRO give it, when no metaclass or
        class decorator may change it."""
        where = f"{owner.path}.{attr.name}"
        mro = self._mro(owner, depth)
        if any(k is None or self._remade(k, depth) for k in mro):
            raise Unknown(f"the type of {where} is not known: its class may be remade")
        return self._made_by_stores([k for k in mro if k is not None], attr.name, where, depth)

    def _made_by_stores(self, known: list[griffe.Class], name: str, where: str, depth: int) -> Any:
        spelled: set[str] = set()
        annotated: list[tuple[Any, griffe.Class]] = []
        on_class = False
        for klass in known:
            stores = self._stores_of(klass).get(name, [])
            if not stores:
                continue
            on_class = on_class or any(s.on_class for s in stores)
            annotation = attributes.annotation(stores)
            if annotation is not None:
                annotated.append((annotation, klass))
                continue
            callee = attributes.callee(stores)
            module = klass.module
            if callee is None or not isinstance(module, griffe.Module):
                raise Unknown(f"the type of {where} is not a provider class")
            spelled.add(_canonical(module, callee))
        if annotated or len(spelled) != 1:
            raise Unknown(f"the type of {where} is not a provider class")
        return self._result_of(spelled.pop(), where, depth, on_class=on_class)

    def _module_attribute_type(self, attr: griffe.Attribute, depth: int) -> Any:
        """The type of an unannotated module attribute (`api = HfApi()`): what every
        top-level binding of it calls, when no function rebinds it."""
        module = attr.parent
        where = attr.path
        loaded = self._evaluator().host.module_ast(module.path) if module is not None else None
        stores = attributes.module_stores(loaded[0], attr.name) if loaded is not None else None
        callee = attributes.callee(stores) if stores else None
        if callee is None or not isinstance(module, griffe.Module):
            raise Unknown(f"the type of {where} is not a provider class")
        return self._result_of(_canonical(module, callee), where, depth)

    def _result_of(self, path: str, where: str, depth: int, *, on_class: bool = False) -> Any:
        """What calling the provider object at `path` gives; `on_class`: the value is stored
        on a class, where a descriptor gives what its `__get__` returns instead."""
        if not self.owns(path):
            raise Unknown(f"the type of {where} is not a provider class")
        try:
            callee = self._find(path, depth + 1)
        except _Missing:
            raise Unknown(f"the type of {where} is not known: {path} is not found") from None
        made = self._call_result(callee, depth + 1)
        if on_class and isinstance(made, _Instance) and self._descriptor(made.cls, depth):
            raise Unknown(f"the type of {where} is not known: {made.cls.path} is a descriptor")
        return made

    def _descriptor(self, cls: griffe.Class, depth: int) -> bool:
        """A class whose instances are descriptors (or may be): reading one stored on a
        class gives what its `__get__` returns, not the instance itself."""
        return any(k is None or "__get__" in k.members for k in self._mro(cls, depth))

    def _may_set(self, klass: griffe.Class, name: str, cls: griffe.Class, depth: int) -> bool:
        """Whether the class may set `name` on its instances some other way than by a
        store spelled `self.name = ...`."""
        if self._dynamic_attributes(klass):
            return True
        source = self._class_source(klass).source
        if _DICT_WRITE.search(source):
            return True
        if "setattr(" not in source:
            return False
        return hooks.self_setattrs(source).may_add(name, self._literals_of(cls, depth))

    def _remade(self, klass: griffe.Class, depth: int) -> bool:
        """A metaclass that may add attributes, or a class decorator that may."""
        if classes.metaclass_expr(klass) is not None:
            try:
                self._metaclass(klass, depth)
            except Unknown:
                return True
        return self._opaque_decorators(klass)
