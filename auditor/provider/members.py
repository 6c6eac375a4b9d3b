# Maintainers: the members of provider classes and of their instances.
#
# Owns: `ClassMembers`, the part of ProviderAPI that finds a name through a class's MRO (its
#       provider bases; a base that cannot be read makes the answer unknown), its metaclass,
#       what Enum and `type` give every class, what decorators, `__init_subclass__` hooks and
#       the module's top level may add (hooks.py, the evaluator), and what an instance holds
#       besides: `self.x = ...` or `setattr(self, ...)` in any method (`_ClassSource`, each
#       class's source read once), a `__getattr__` that serves data keys or anything.
# Takes: griffe classes (and lookups of their bases through resolution.py). Gives: the member
# found, or _Missing / Unlisted / Unknown.
"""Class and instance members: the MRO, metaclasses, hooks and `self` assignments."""

from __future__ import annotations

import ast
import os
import re
from typing import TYPE_CHECKING, Any

import griffe

from auditor.provider import classes, exprs, functions, hooks
from auditor.provider.classes import Maker, Unknown
from auditor.provider.exports import StarExports
from auditor.provider.lookup import (
    Unlisted,
    _Bound,
    _Dynamic,
    _from_stub,
    _function_ast,
    _Missing,
    _Overloads,
    _source,
)
from auditor.provider.pyvalues import Stop, dotted

if TYPE_CHECKING:
    from collections.abc import Iterable

    from auditor.sources import SourceTree


DYNAMIC_ATTRIBUTES = ("__getattr__", "__getattribute__")
_OPEN = "\0"  # in a `seen` set: the class after it is still being searched
PLAIN_ENUMS = frozenset({"enum.Enum", "enum.Flag"})  # no str/int mixin: no extra attributes
TYPE_API = frozenset({"mro"})  # what every class has from `type`, besides dunders
ENUM_API = frozenset(
    {
        "name",
        "value",
        "_name_",
        "_value_",
        "_missing_",
        "_generate_next_value_",
        "_ignore_",
        "_order_",
        "_member_names_",
        "_member_map_",
        "_value2member_map_",
        "_numeric_repr_",
        "_add_alias_",
        "_add_value_alias_",
        "_sort_order_",
    }
)


class ClassMembers(StarExports):
    """A name of a provider class or of its instances, as Python would look it up."""

    def __init__(self, tree: SourceTree, import_names: Iterable[str], version: str | None):
        super().__init__(tree, import_names, version)
        self._class_sources: dict[int, _ClassSource] = {}  # id(class) -> its source, read once
        self._mentions: dict[tuple[str, str], bool] = {}  # (module, class) -> named at top level

    def _class_member(
        self,
        cls: griffe.Class,
        name: str,
        path: str,
        depth: int,
        seen: set[str],
        *,
        on_class: bool = False,
    ) -> Any:
        """`name` through the class and its bases (the MRO). A metaclass is consulted by
        the caller for an attribute of the class itself (never of an instance).

        `seen` holds the classes searched so far, and the ones still being searched marked
        (`_OPEN`): a class met again on the way down is a cycle; one met again through
        another base (a diamond: the standard library's ABCs are full of them) was already
        searched, and did not have the name."""
        if cls.path in seen:
            if _OPEN + cls.path in seen:
                raise Unknown(f"cyclic bases at {cls.path}")
            raise _Missing(path, module=False)
        top = not seen  # the class asked about, not one of its bases
        seen.update((cls.path, _OPEN + cls.path))
        try:
            return self._member_here_or_above(cls, name, path, depth, seen, on_class=on_class)
        except _Dunder:
            if not top:
                raise _Missing(path, module=False) from None  # a later base may define it
            return self._object_dunder(cls, name, depth, on_class=on_class)
        finally:
            seen.discard(_OPEN + cls.path)

    def _member_here_or_above(
        self,
        cls: griffe.Class,
        name: str,
        path: str,
        depth: int,
        seen: set[str],
        *,
        on_class: bool,
    ) -> Any:
        member = cls.members.get(name)
        if member is not None:
            return self._follow(member, depth)
        if cls.overloads.get(name):  # a stub's @overload set: griffe keeps it aside
            return _Overloads(f"{cls.path}.{name}")
        unlisted: Unlisted | None = None  # a compiled base's stub does not list it: go on
        for base in self._bases(cls, depth):
            if base is None:
                why = f"{cls.path} has a base that cannot be resolved statically"
                raise Unknown(why, closed=self.bases_outside(cls, depth))
            try:
                return self._class_member(base, name, path, depth, seen, on_class=on_class)
            except _Missing:
                continue
            except Unlisted as gap:
                unlisted = unlisted or gap
        if name.startswith("__") and name.endswith("__"):
            raise _Dunder
        if name in ENUM_API and self._is_enum(cls):
            raise Unknown(f"{name} comes with Enum")
        if on_class and name in TYPE_API:
            raise Unknown(f"{name} comes with type")
        if self._opaque_decorators(cls) or self._subclass_hook(cls, name):
            raise Unknown(f"{cls.path} has decorators or __init_subclass__ that may add {name}")
        if classes.metaclass_expr(cls) is not None and not on_class:
            self._metaclass(cls, depth)  # one that cannot be followed may add anything
        if _from_stub(cls):  # a compiled class: its stub may leave out what the type has
            stdlib = functions.from_stdlib(cls)
            why = f"{cls.path} is compiled; its stub may not list {name}"
            if stdlib:
                why = (
                    f"{cls.path} is the standard library's; its typeshed stub does not list {name}"
                )
            raise Unlisted(path, why, closed=stdlib)
        if self._installed(cls, name):
            return _Dynamic(path, None, None)
        if unlisted is not None:
            raise unlisted
        raise _Missing(path, module=False)

    def _object_dunder(self, cls: griffe.Class, name: str, depth: int, *, on_class: bool) -> Any:
        """A dunder no class of the MRO defines: `object`'s (the standard library's stub of
        it), when nothing else can add one: no metaclass anywhere in the MRO and every base
        read. Else, or when object has none, unknown (the runtime sets some: `__dict__`)."""
        why = f"{name} may come from object or a metaclass"
        mro = self._mro(cls, depth)
        if on_class or None in mro or any(_own_metaclass(k) for k in mro if k is not None):
            raise Unknown(why)
        found = self._provider_class("builtins.object", depth)
        member = found.members.get(name) if found is not None else None
        if member is None:
            raise Unknown(why, closed=found is not None)
        return self._follow(member, depth)

    def _installed(self, cls: griffe.Class, name: str) -> bool:
        """Whether the top level of the class's module puts `name` on the class at import time
        (`setattr(Cls, name, ...)` in a loop over literal names or a dict's keys, `Cls.name =
        ...`, directly or in a function it hands the class to, or a classmethod it calls:
        pandas' `ops.add_flex_arithmetic_methods(Series)`); Unknown when it may put names
        there that are not known (the class handed to code that cannot be followed)."""
        module = cls.module.path if isinstance(cls.module, griffe.Module) else None
        if module is None or not self._mentions_after(module, cls.name):
            return False
        evaluator = self._evaluator()
        try:
            evaluator.namespace(module)
        except (Stop, RecursionError):
            raise Unknown(f"{module}'s top level, which uses {cls.name}, cannot be read") from None
        if cls.path in evaluator.class_unknown:
            raise Unknown(f"{cls.path} gets attributes at import time that are not known")
        return name in evaluator.class_names.get(cls.path, ())

    def _mentions_after(self, module: str, name: str) -> bool:
        """Whether a top-level statement of `module` other than the definition of class
        `name` names it (cheap: the module's AST, parsed once)."""
        key = (module, name)
        if key not in self._mentions:
            loaded = self._evaluator().host.module_ast(module)
            body = loaded[0].body if loaded is not None else []
            self._mentions[key] = any(
                isinstance(n, ast.Name) and n.id == name
                for statement in body
                if not (isinstance(statement, ast.ClassDef) and statement.name == name)
                for n in ast.walk(statement)
            )
        else:
            self._evaluator().host.module_ast(module)  # read again: the memo records it
        return self._mentions[key]

    def _metaclass_member(self, cls: griffe.Class, name: str, path: str, depth: int) -> Any:
        """An attribute of a class that its metaclass defines (`Cls.X` where the metaclass
        has X or a property X); _Missing when neither the class nor its metaclass has it."""
        for klass in self._mro(cls, depth):
            if klass is None:
                why = f"{cls.path} has a base that cannot be resolved statically"
                raise Unknown(why, closed=self.bases_outside(cls, depth))
            meta = self._metaclass(klass, depth)
            if meta is None:
                continue
            try:
                return self._class_member(meta, name, path, depth, seen=set())
            except _Missing:
                continue
        raise _Missing(path, module=False)

    def _metaclass(self, cls: griffe.Class, depth: int) -> griffe.Class | None:
        """The provider metaclass of `cls` (None: none, or `type`); Unknown for one that may
        add attributes itself (its own __new__, __init__, __getattr__), or is not readable."""
        keyword = classes.metaclass_expr(cls)
        if keyword is None:
            return None
        meta_path = exprs.expr_path(keyword)
        if meta_path in classes.NEUTRAL_METACLASSES or meta_path == "type":
            return None
        meta = self._provider_class(meta_path, depth)
        if meta is None:
            raise Unknown(f"{cls.path} has a metaclass that cannot be read ({meta_path})")
        for klass in self._mro(meta, depth):
            if klass is None or any(
                n in klass.members for n in ("__new__", "__init__", *DYNAMIC_ATTRIBUTES)
            ):
                raise Unknown(f"{cls.path}'s metaclass {meta_path} may add attributes")
        return meta

    def _subclass_hook(self, cls: griffe.Class, name: str) -> bool:
        """Whether an __init_subclass__ of the MRO may set attribute `name` (hooks.py)."""
        for klass in self._mro(cls, 0):
            if klass is None:
                return True
            hook = klass.members.get("__init_subclass__")
            if hook is None or hook.is_alias:
                continue
            owner = klass

            def method_of(
                method: str, owner: griffe.Class = owner
            ) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
                member = owner.members.get(method)
                return _function_ast(member) if member is not None and not member.is_alias else None

            if hooks.hook_adds(_function_ast(hook), method_of).may_add(name):
                return True
        return False

    def _opaque_decorators(self, cls: griffe.Class) -> bool:
        """Decorators that may add public attributes (class makers add only dunders)."""
        for decorator in cls.decorators:
            if classes.is_add_metaclass(decorator):
                continue  # the metaclass it sets is read like `metaclass=`
            path = functions.decorator_path(decorator)
            if classes.known_maker(path, decorator.value) is None and not isinstance(
                self.own_decorator(path), Maker
            ):
                return self.own_decorator(path) != "transparent"
        return False

    def _instance_member(self, cls: griffe.Class, name: str, path: str, depth: int) -> Any:
        try:
            member = self._class_member(cls, name, path, depth, seen=set())
        except _Missing:
            if self._assigned_anywhere(cls, name, depth):
                raise Unknown(f"{path} is assigned outside __init__", closed=True) from None
            keys = self._data_keys(cls, depth)
            if keys is not None:  # gone unless the object holds a key of that name
                note = f"unless it holds a data key named {name!r}: {keys} serves data keys"
                raise Unlisted(path, note, closed=True) from None
            raise
        if isinstance(member, griffe.Function) and not functions.is_property(member):
            return _Bound(member)
        return member

    def _assigned_anywhere(self, cls: griffe.Class, name: str, depth: int) -> bool:
        """`self.name = ...` or `setattr(self, ...)` of that name (or of a name not spelled)
        in any method, or dynamic attributes, in the class or its bases."""
        if os.environ.get("DRIFT_AUDIT_NO_CLASS_SOURCES"):
            return self._assigned_anywhere_read_each_time(cls, name, depth)
        literals = self._literals_of(cls, depth)
        for klass in self._mro(cls, depth):
            if klass is None or self._dynamic_attributes(klass):
                return True
            if self._class_source(klass).assigns(name, literals):
                return True
        return False

    def _literals_of(self, cls: griffe.Class, depth: int) -> hooks.Literals:
        """For hooks.Adds.may_add: the strings a class attribute of `cls` lists, or that a
        method of it may return by its `Literal[...]` annotation; None when not known."""

        def literals(kind: str, name: str) -> set[str] | None:
            try:
                member = self._class_member(cls, name, f"{cls.path}.{name}", depth, seen=set())
            except (_Missing, Unknown, griffe.AliasResolutionError, griffe.CyclicAliasError):
                return None
            if kind == "attribute" and isinstance(member, griffe.Attribute):
                return _literal_strings(member.value)
            if kind == "method" and isinstance(member, griffe.Function):
                return _literal_annotation(member.returns)
            return None

        return literals

    def _dynamic_attributes(self, klass: griffe.Class) -> bool:
        """A `__getattribute__`, or a `__getattr__` that may serve more than data keys."""
        if "__getattribute__" in klass.members:
            return True
        return "__getattr__" in klass.members and not self._serves_data_keys(klass)

    def _serves_data_keys(self, klass: griffe.Class) -> bool:
        """The class's own `__getattr__` serves only data keys (hooks.serves_data_keys)."""
        member = klass.members.get("__getattr__")
        if not isinstance(member, griffe.Function) or member.decorators:
            return False
        return hooks.serves_data_keys(_function_ast(member))

    def _data_keys(self, cls: griffe.Class, depth: int) -> str | None:
        """The `__getattr__` Python calls for an instance of `cls`, when it serves only data
        keys: its path (None: there is none)."""
        for klass in self._mro(cls, depth):
            if klass is not None and "__getattr__" in klass.members:
                return f"{klass.path}.__getattr__" if self._serves_data_keys(klass) else None
        return None

    def _class_source(self, klass: griffe.Class) -> _ClassSource:
        """What one class's source assigns to `self`, read once per class (torch: ~1,300
        lookups read nn.Module's 2,700 lines, each one parsing them for its `setattr`s)."""
        found = self._class_sources.get(id(klass))
        if found is None or found.klass is not klass:
            found = self._class_sources[id(klass)] = _ClassSource(klass, _source(klass))
        return found

    def _assigned_anywhere_read_each_time(self, cls: griffe.Class, name: str, depth: int) -> bool:
        """_assigned_anywhere() as it was: each class's source read, searched and parsed
        again for every name (DRIFT_AUDIT_NO_CLASS_SOURCES=1)."""
        stored = re.compile(rf"\bself\.{re.escape(name)}\s*(?::[^=\n]*)?=(?!=)")
        for klass in self._mro(cls, depth):
            if klass is None or self._dynamic_attributes(klass):
                return True
            source = _source(klass)
            if _DICT_WRITE.search(source):
                return True
            if stored.search(source):
                return True
            if "setattr(" in source and hooks.self_setattrs(source).may_add(
                name, self._literals_of(cls, depth)
            ):
                return True
        return False

    def _mro(self, cls: griffe.Class, depth: int) -> list[griffe.Class | None]:
        out: list[griffe.Class | None] = [cls]
        for base in self._bases(cls, depth):
            out += [None] if base is None else self._mro(base, depth + 1)
        return out

    def _is_enum(self, cls: griffe.Class) -> bool:
        return any(exprs.expr_path(b) in PLAIN_ENUMS for b in cls.bases) or any(
            b is not None and self._is_enum(b) for b in self._bases(cls, 0)
        )

    def _bases(self, cls: griffe.Class, depth: int) -> list[griffe.Class | None]:
        """The provider classes among `cls`'s bases; None for one that cannot be resolved.

        A plain Enum base adds no members of its own beyond ENUM_API: its members are the
        class-body assignments, so a name missing from them is really missing.
        """
        out: list[griffe.Class | None] = []
        for base in cls.bases:
            path = exprs.expr_path(base)
            if path in classes.NEUTRAL_BASES or path in PLAIN_ENUMS:
                continue
            out.append(self._provider_class(path, depth))
        return out

    def bases_outside(self, cls: griffe.Class, depth: int) -> bool:
        """Whether every base of `cls` (and of its provider bases) that cannot be read is a
        class named outside the provider's own packages (the standard library's, another
        distribution's), not a call or a name the provider binds to what cannot be read:
        then what it may add is the same whenever the provider's files read are."""
        for base in cls.bases:
            path = exprs.builtin_path(exprs.expr_path(base))
            if path in classes.NEUTRAL_BASES or path in PLAIN_ENUMS:
                continue
            found = self._provider_class(path, depth)
            if found is not None:
                if depth < classes.MAX_DEPTH and not self.bases_outside(found, depth + 1):
                    return False
                continue
            if path is None or isinstance(base, griffe.ExprCall) or self.owns_itself(path):
                return False
        return True

    def _provider_class(self, path: str | None, depth: int) -> griffe.Class | None:
        path = exprs.builtin_path(path)
        if path is None or not self.owns(path):
            return None
        try:
            found = self._find(path, depth + 1)
        except (_Missing, Unknown):
            return None
        return found if isinstance(found, griffe.Class) else None


class _Dunder(Exception):
    """A dunder no class up to here defines: `object` or a metaclass may (_object_dunder)."""


def _own_metaclass(cls: griffe.Class) -> bool:
    """Whether the class sets a metaclass that may add attributes of its own (not `type` or
    ABCMeta: theirs are for the class, never for its instances)."""
    meta = classes.metaclass_expr(cls)
    return meta is not None and exprs.expr_path(meta) not in classes.NEUTRAL_METACLASSES


# `self.<name> = ...` (or `self.<name>: T = ...`), tried at every `self.`: the name is the
# whole identifier after it (a shorter one is followed by a word character, never by the
# space, `:` or `=` the rest needs), so this finds every name the per-name search would.
_SELF_STORE = re.compile(r"\bself\.(?=(\w+)\s*(?::[^=\n]*)?=(?!=))")
_WORD = re.compile(r"\w+")
_DICT_WRITE = re.compile(
    r"(?:self\.__dict__|vars\(self\))"
    r"(?:\s*\[[^\n]*\]\s*=(?!=)|\.(?:update|setdefault|__setitem__)\(|\s*=(?!=)|\s*\|=)"
)  # the instance's namespace written as a dict


class _ClassSource:
    """One provider class's source as `_assigned_anywhere` reads it: the names it assigns
    to `self`, and what its `setattr(self, ...)` calls may set (parsed on first need)."""

    def __init__(self, klass: griffe.Class, source: str) -> None:
        self.klass = klass  # kept alive: it is found again by its id
        self.source = source
        self.stored = frozenset(m.group(1) for m in _SELF_STORE.finditer(source))
        self._setattrs: hooks.Adds | None = None

    def assigns(self, name: str, literals: hooks.Literals | None = None) -> bool:
        if _DICT_WRITE.search(self.source):  # `self.__dict__.update(kwargs)`: anything
            return True
        if _WORD.fullmatch(name) is None:  # not one word: searched for as written
            pattern = rf"\bself\.{re.escape(name)}\s*(?::[^=\n]*)?=(?!=)"
            if re.search(pattern, self.source):
                return True
        elif name in self.stored:
            return True
        if "setattr(" not in self.source:
            return False
        if self._setattrs is None:
            self._setattrs = hooks.self_setattrs(self.source)
        return self._setattrs.may_add(name, literals)


def _literal_strings(value: Any) -> set[str] | None:
    """The strings a literal list, tuple or set holds (`_metadata = ["_name"]`)."""
    try:
        found = ast.literal_eval(str(value)) if value is not None else None
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    if isinstance(found, (list, tuple, set, frozenset)) and all(isinstance(v, str) for v in found):
        return set(found)
    return None


def _literal_annotation(annotation: Any) -> set[str] | None:
    """The strings a `Literal["a", "b"]` annotation allows."""
    try:
        expr = ast.parse(str(annotation), mode="eval").body if annotation is not None else None
    except (SyntaxError, ValueError, RecursionError):
        return None
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):  # a string annotation
        return _literal_annotation(expr.value)
    if not (isinstance(expr, ast.Subscript) and (dotted(expr.value) or "").endswith("Literal")):
        return None
    items = expr.slice.elts if isinstance(expr.slice, ast.Tuple) else [expr.slice]
    if all(isinstance(i, ast.Constant) and isinstance(i.value, str) for i in items):
        return {str(i.value) for i in items if isinstance(i, ast.Constant)}
    return None
