"""Provider API: griffe, static only, lazily per module -> our own Symbol and Signature types.

What it owns: turning a provider release's source tree into answers to one question, "what is
`a.b.C` in this release?" (`ProviderAPI.resolve`). Modules are visited with `griffe.visit` one
at a time, only when a lookup reaches them (vLLM has thousands of modules; an audit touches a few
dozen), with their parent packages first so that relative imports resolve. Re-exports (griffe
aliases), wildcard imports, submodules and base classes are followed by further lookups.

What it takes: a `SourceTree` (sources/). What it gives: `Resolution` values from model.py.
griffe stays behind this door: nothing else in the package imports it.

Never guess: a callable whose signature cannot be known statically (an unknown decorator, an
external base class, a metaclass, `@overload` sets) has `signature=None` and a reason; a name
that may be provided dynamically (module `__getattr__`, external wildcard) is UNKNOWN, not
missing.
"""

from __future__ import annotations

import ast
import logging
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

import griffe

from auditor.model import Lookup, Param, ParamKind, Resolution, Signature, Symbol, SymbolKind

if TYPE_CHECKING:
    from collections.abc import Iterable

    from auditor.sources import SourceTree

logger = logging.getLogger("drift_audit")

# Decorators that leave a function's call signature as it is.
TRANSPARENT_DECORATORS = frozenset(
    {
        "staticmethod",
        "classmethod",
        "abc.abstractmethod",
        "abstractmethod",
        "typing.final",
        "typing_extensions.final",
        "typing.override",
        "typing_extensions.override",
        "functools.cache",
        "functools.lru_cache",
        "contextlib.contextmanager",
        "contextlib.asynccontextmanager",
        "typing_extensions.deprecated",
        "warnings.deprecated",
        "deprecated.deprecated",
        "torch.inference_mode",
        "torch.no_grad",
        "torch.compiler.disable",
    }
)
# Decorators that make a method an attribute (no call through the class).
PROPERTY_DECORATORS = frozenset(
    {"property", "builtins.property", "functools.cached_property", "cached_property"}
)
# Base classes that add no constructor parameters.
NEUTRAL_BASES = frozenset(
    {
        "object",
        "builtins.object",
        "abc.ABC",
        "typing.Generic",
        "typing.Protocol",
        "typing_extensions.Protocol",
        "typing_extensions.Generic",
    }
)
NEUTRAL_METACLASSES = frozenset({"abc.ABCMeta", "ABCMeta"})
DATACLASS_DECORATORS = frozenset({"dataclasses.dataclass", "dataclass"})
MAX_DEPTH = 40


class _Unknown(Exception):
    """A lookup reached something that cannot be known statically."""


class _Missing(Exception):
    """A lookup reached a name that does not exist."""

    def __init__(self, path: str, *, module: bool) -> None:
        super().__init__(path)
        self.path = path
        self.module = module


class ProviderAPI:
    """Answers lookups by dotted path against one provider release, loading modules lazily."""

    def __init__(self, tree: SourceTree, import_names: tuple[str, ...], version: str | None):
        self.tree = tree
        self.import_names = frozenset(import_names)
        self.version = version
        self._modules: dict[str, griffe.Module | None] = {}
        self._collection = griffe.ModulesCollection()
        self._lines = griffe.LinesCollection()
        self._cache: dict[tuple[str, bool], Resolution] = {}
        self.load_errors: dict[str, str] = {}

    @property
    def modules_loaded(self) -> int:
        return sum(1 for m in self._modules.values() if m is not None)

    def owns(self, dotted: str) -> bool:
        """Whether a dotted path lies inside this provider's packages."""
        return dotted.split(".", 1)[0] in self.import_names

    # ------------------------------------------------------------------ public lookups

    def resolve(self, dotted: str, *, module_only: bool = False) -> Resolution:
        """What `dotted` is in this release: found (with a Symbol), missing, or unknown."""
        key = (dotted, module_only)
        if key not in self._cache:
            self._cache[key] = self._resolve(dotted, module_only)
        return self._cache[key]

    def _resolve(self, dotted: str, module_only: bool) -> Resolution:
        try:
            obj = self._find(dotted, depth=0)
        except _Missing as missing:
            status = Lookup.MISSING_MODULE if missing.module or module_only else Lookup.MISSING_NAME
            return Resolution(status, dotted, missing=missing.path)
        except _Unknown as unknown:
            return Resolution(Lookup.UNKNOWN, dotted, detail=str(unknown))
        except (griffe.AliasResolutionError, griffe.CyclicAliasError, RecursionError) as error:
            return Resolution(Lookup.UNKNOWN, dotted, detail=f"alias cycle or error: {error}")
        if module_only and not isinstance(obj, griffe.Module):
            return Resolution(Lookup.MISSING_MODULE, dotted, missing=dotted)
        return Resolution(Lookup.FOUND, dotted, symbol=self._symbol(obj))

    def prefetch(self, dotted_paths: Iterable[str]) -> None:
        """Tell a lazily fetching tree which module files lookups of these paths will read."""
        prefetch = getattr(self.tree, "prefetch", None)
        if prefetch is None:
            return
        paths = {c for d in dotted_paths if self.owns(d) for c in _module_files(d)}
        if paths:
            prefetch(sorted(paths))

    # ------------------------------------------------------------------ module loading

    def _module(self, name: str) -> griffe.Module | None:
        """The visited module `name`, or None when the release has no such module."""
        if name in self.load_errors:
            raise _Unknown(f"module {name} could not be parsed")
        if name in self._modules:
            return self._modules[name]
        self._modules[name] = None  # guards against re-entry while loading
        parent_name, _, short = name.rpartition(".")
        parent = self._module(parent_name) if parent_name else None
        if parent_name and parent is None:
            return None
        module = self._visit(name, short, parent)
        self._modules[name] = module
        return module

    def _visit(self, name: str, short: str, parent: griffe.Module | None) -> griffe.Module | None:
        base = name.replace(".", "/")
        for candidate in (
            f"{base}.pyi",
            f"{base}.py",
            f"{base}/__init__.pyi",
            f"{base}/__init__.py",
        ):
            code = self.tree.read_text(candidate)
            if code is None:
                continue
            try:
                module = griffe.visit(
                    short,
                    PurePosixPath(candidate),  # type: ignore[arg-type]
                    code,
                    parent=parent,
                    modules_collection=self._collection,
                    lines_collection=self._lines,
                )
            except Exception as error:
                self.load_errors[name] = f"{type(error).__name__}: {error}"
                logger.warning("provider module %s could not be read: %s", name, error)
                raise _Unknown(f"module {name} could not be parsed") from error
            self._attach(module, parent)
            self.prefetch(_alias_targets(module))
            return module
        if self.tree.is_dir(base):  # a namespace package
            module = griffe.Module(short, filepath=None, parent=parent)
            self._attach(module, parent)
            return module
        return None

    def _attach(self, module: griffe.Module, parent: griffe.Module | None) -> None:
        if parent is None:
            self._collection.set_member(module.name, module)
        elif module.name not in parent.members:  # the package's own binding wins
            parent.set_member(module.name, module)

    # ------------------------------------------------------------------ path walking

    def _find(self, dotted: str, depth: int) -> Any:
        if depth > MAX_DEPTH:
            raise _Unknown(f"too many re-exports while resolving {dotted}")
        parts = dotted.split(".")
        if parts[0] not in self.import_names:
            raise _Unknown(f"{dotted} is outside the provider")
        module, used = self._longest_module(parts)
        if module is None:
            raise _Missing(parts[0], module=True)
        obj: Any = module
        for index in range(used, len(parts)):
            obj = self._member(obj, parts[index], ".".join(parts[: index + 1]), depth)
        return obj

    def _longest_module(self, parts: list[str]) -> tuple[griffe.Module | None, int]:
        for size in range(len(parts), 0, -1):
            module = self._module(".".join(parts[:size]))
            if module is not None:
                return module, size
        return None, 0

    def _member(self, obj: Any, name: str, path: str, depth: int) -> Any:
        if isinstance(obj, griffe.Module):
            return self._module_member(obj, name, path, depth)
        if isinstance(obj, griffe.Class):
            return self._class_member(obj, name, path, depth, seen=set())
        raise _Unknown(f"{path}: attribute of a {type(obj).__name__.lower()} is not tracked")

    def _module_member(self, module: griffe.Module, name: str, path: str, depth: int) -> Any:
        member = module.members.get(name)
        if member is not None and not getattr(member, "wildcard", None):
            return self._follow(member, depth)
        submodule = self._module(f"{module.path}.{name}")
        if submodule is not None:
            return submodule
        found = self._from_wildcards(module, name, depth)
        if found is not None:
            return found
        if "__getattr__" in module.members:
            raise _Unknown(f"{module.path} defines __getattr__; {name} may be dynamic")
        raise _Missing(path, module=False)

    def _from_wildcards(self, module: griffe.Module, name: str, depth: int) -> Any:
        for member in list(module.members.values()):
            source = getattr(member, "wildcard", None)
            if not source:
                continue
            if not self.owns(source):
                raise _Unknown(f"{module.path} re-exports * from {source}")
            try:
                return self._find(f"{source}.{name}", depth + 1)
            except _Missing:
                continue
        return None

    def _class_member(
        self, cls: griffe.Class, name: str, path: str, depth: int, seen: set[str]
    ) -> Any:
        if cls.path in seen:
            raise _Unknown(f"cyclic bases at {cls.path}")
        seen.add(cls.path)
        member = cls.members.get(name)
        if member is not None:
            return self._follow(member, depth)
        for base in self._bases(cls, depth):
            if base is None:
                raise _Unknown(f"{cls.path} has a base that cannot be resolved statically")
            try:
                return self._class_member(base, name, path, depth, seen)
            except _Missing:
                continue
        if name.startswith("__") and name.endswith("__"):
            raise _Unknown(f"{name} may come from object or a metaclass")
        if cls.keywords.get("metaclass") is not None:
            raise _Unknown(f"{cls.path} has a metaclass")
        raise _Missing(path, module=False)

    def _follow(self, member: Any, depth: int) -> Any:
        if member.is_alias:
            target = member.target_path
            if not self.owns(target):
                raise _Unknown(f"re-exported from outside the provider: {target}")
            return self._find(target, depth + 1)
        return member

    def _bases(self, cls: griffe.Class, depth: int) -> list[griffe.Class | None]:
        """The provider classes among `cls`'s bases; None for one that cannot be resolved."""
        out: list[griffe.Class | None] = []
        for base in cls.bases:
            path = _expr_path(base)
            if path in NEUTRAL_BASES:
                continue
            if path is None or not self.owns(path):
                out.append(None)
                continue
            try:
                found = self._find(path, depth + 1)
            except (_Missing, _Unknown):
                out.append(None)
                continue
            out.append(found if isinstance(found, griffe.Class) else None)
        return out

    # ------------------------------------------------------------------ symbols

    def _symbol(self, obj: Any) -> Symbol:
        if isinstance(obj, griffe.Module):
            return Symbol(obj.path, SymbolKind.MODULE)
        if isinstance(obj, griffe.Class):
            signature, why = self._constructor(obj)
            return Symbol(obj.path, SymbolKind.CLASS, signature, why)
        if isinstance(obj, griffe.Function):
            decorators = {_decorator_path(d) for d in obj.decorators}
            if decorators & PROPERTY_DECORATORS or "property" in obj.labels:
                return Symbol(obj.path, SymbolKind.ATTRIBUTE)
            signature, why = _function_signature(obj, drop_first=_is_classmethod(obj))
            return Symbol(obj.path, SymbolKind.FUNCTION, signature, why)
        return Symbol(obj.path, SymbolKind.ATTRIBUTE)

    def _constructor(self, cls: griffe.Class) -> tuple[Signature | None, str | None]:
        """The parameters `cls(...)` accepts, when they can be known statically."""
        try:
            return self._constructor_of(cls, depth=0), None
        except _Unknown as why:
            return None, str(why)

    def _constructor_of(self, cls: griffe.Class, depth: int) -> Signature:
        if depth > MAX_DEPTH:
            raise _Unknown("class hierarchy too deep")
        decorators = [_decorator_path(d) for d in cls.decorators]
        dataclass = [d for d in cls.decorators if _decorator_path(d) in DATACLASS_DECORATORS]
        unknown = [d for d in decorators if d not in DATACLASS_DECORATORS]
        if unknown:
            raise _Unknown(f"{cls.path} is decorated with {unknown[0]}; its constructor is unknown")
        metaclass = cls.keywords.get("metaclass")
        if metaclass is not None and _expr_path(metaclass) not in NEUTRAL_METACLASSES:
            raise _Unknown(f"{cls.path} has a metaclass; its constructor is unknown")
        if "__new__" in cls.members:
            raise _Unknown(f"{cls.path} defines __new__")
        own_init = cls.members.get("__init__")
        if dataclass and own_init is None and _dataclass_init(dataclass[0]):
            return self._dataclass_signature(cls, dataclass[0], depth)
        if own_init is not None:
            init = self._follow(own_init, depth)
            if not isinstance(init, griffe.Function):
                raise _Unknown(f"{cls.path}.__init__ is not a plain function")
            signature, why = _function_signature(init, drop_first=True)
            if signature is None:
                raise _Unknown(why or "unknown __init__")
            return signature
        bases = self._bases(cls, depth)
        if any(b is None for b in bases):
            raise _Unknown(f"{cls.path} has a base that cannot be resolved statically")
        if not bases:
            return Signature(())
        return self._constructor_of(bases[0], depth + 1)  # type: ignore[arg-type]

    # ------------------------------------------------------------------ dataclasses

    def _dataclass_signature(self, cls: griffe.Class, decorator: Any, depth: int) -> Signature:
        kw_only_all = _decorator_flag(decorator, "kw_only")
        fields: dict[str, Param] = {}
        for base in reversed(self._bases(cls, depth)):
            if base is None:
                raise _Unknown(f"{cls.path} has a base that cannot be resolved statically")
            inherited = self._constructor_of(base, depth + 1)
            for param in inherited.params:
                fields[param.name] = param
        kw_only = kw_only_all
        for name, attr in cls.members.items():
            if not _is_field(cls, attr):
                continue
            if str(getattr(attr, "annotation", "")).endswith("KW_ONLY"):
                kw_only = True
                continue
            field_param = _field_param(name, attr, kw_only)
            fields.pop(name, None)
            if field_param is not None:
                fields[name] = field_param
        return _order_fields(list(fields.values()))


# ---------------------------------------------------------------------- helpers (pure)


def _module_files(dotted: str) -> list[str]:
    """Every file a lookup of `dotted` may read: each prefix as module or package."""
    parts = [p.removesuffix("()") for p in dotted.split(".")]
    files = []
    for size in range(1, len(parts) + 1):
        base = "/".join(parts[:size])
        files += [f"{base}.pyi", f"{base}.py", f"{base}/__init__.pyi", f"{base}/__init__.py"]
    return files


def _alias_targets(module: griffe.Module) -> list[str]:
    targets = []
    for member in module.members.values():
        wildcard = getattr(member, "wildcard", None)
        if wildcard:
            targets.append(wildcard)
        elif member.is_alias:
            targets.append(str(getattr(member, "target_path", "")))
    return targets


def _expr_path(expr: Any) -> str | None:
    """The canonical dotted path an expression names (`Generic[T]` -> `typing.Generic`)."""
    if isinstance(expr, str):
        return expr
    if isinstance(expr, griffe.ExprSubscript):
        return _expr_path(expr.left)
    if isinstance(expr, griffe.ExprCall):
        return _expr_path(expr.function)
    path = getattr(expr, "canonical_path", None)
    return path if isinstance(path, str) else None


def _decorator_path(decorator: Any) -> str:
    path = decorator.callable_path
    return path if isinstance(path, str) else str(decorator.value)


def _is_classmethod(function: griffe.Function) -> bool:
    return "classmethod" in function.labels


def _function_signature(
    function: griffe.Function, *, drop_first: bool
) -> tuple[Signature | None, str | None]:
    decorators = [_decorator_path(d) for d in function.decorators]
    unknown = [d for d in decorators if d not in TRANSPARENT_DECORATORS]
    if unknown:
        return None, f"{function.path} is decorated with {unknown[0]}; its signature is unknown"
    overloads = getattr(function, "overloads", None)
    if overloads:
        return None, f"{function.path} has @overload variants"
    params = [_param(p) for p in function.parameters]
    in_class = isinstance(function.parent, griffe.Class)
    if in_class and "staticmethod" not in function.labels and (drop_first or _is_init(function)):
        params = params[1:]
    returns = str(function.returns) if function.returns is not None else None
    return Signature(tuple(params), returns), None


def _is_init(function: griffe.Function) -> bool:
    return function.name in {"__init__", "__new__"}


def _param(parameter: griffe.Parameter) -> Param:
    default = parameter.default
    annotation = parameter.annotation
    return Param(
        name=parameter.name,
        kind=ParamKind(parameter.kind.value if parameter.kind else "positional or keyword"),
        default=None if default is None else str(default),
        annotation=None if annotation is None else str(annotation),
    )


def _decorator_flag(decorator: Any, flag: str) -> bool:
    value = decorator.value
    if not isinstance(value, griffe.ExprCall):
        return False
    for argument in value.arguments:
        if isinstance(argument, griffe.ExprKeyword) and argument.name == flag:
            return str(argument.value) == "True"
    return False


def _dataclass_init(decorator: Any) -> bool:
    value = decorator.value
    if not isinstance(value, griffe.ExprCall):
        return True
    for argument in value.arguments:
        if isinstance(argument, griffe.ExprKeyword) and argument.name == "init":
            return str(argument.value) != "False"
    return True


def _is_field(cls: griffe.Class, attr: Any) -> bool:
    """An annotated class-body attribute that is not a ClassVar (griffe strips ClassVar)."""
    if not isinstance(attr, griffe.Attribute) or attr.annotation is None:
        return False
    if "instance-attribute" not in attr.labels:
        return False  # ClassVar[...]: griffe labels it class-attribute only
    line = attr.lineno or 0
    methods = [m for m in cls.members.values() if isinstance(m, griffe.Function)]
    # `self.x: int = ...` inside a method is an instance attribute, not a field
    return not any((m.lineno or 0) <= line <= (m.endlineno or 0) for m in methods)


def _field_param(name: str, attr: Any, kw_only: bool) -> Param | None:
    """The __init__ parameter a dataclass field makes, or None for `field(init=False)`."""
    annotation = str(attr.annotation)
    default: str | None = None if attr.value is None else str(attr.value)
    call = _safe_call(default) if default is not None else None
    if call is not None and _call_name(call) in {"field", "dataclasses.field"}:
        options = {k.arg: k.value for k in call.keywords if k.arg}
        if _is_false(options.get("init")):
            return None
        has_default = "default" in options or "default_factory" in options
        default = ast.unparse(options["default"]) if "default" in options else None
        if "default_factory" in options:
            default = f"<factory {ast.unparse(options['default_factory'])}>"
        if not has_default:
            default = None
        kw_only = kw_only or _is_true(options.get("kw_only"))
    kind = ParamKind.KEYWORD_ONLY if kw_only else ParamKind.POSITIONAL_OR_KEYWORD
    return Param(name, kind, default, annotation)


def _order_fields(params: list[Param]) -> Signature:
    """Keyword-only fields move after the others, as dataclasses does."""
    positional = [p for p in params if p.kind is not ParamKind.KEYWORD_ONLY]
    keyword = [p for p in params if p.kind is ParamKind.KEYWORD_ONLY]
    return Signature(tuple(positional + keyword))


def _safe_call(source: str) -> ast.Call | None:
    try:
        node = ast.parse(source, mode="eval").body
    except (SyntaxError, ValueError, RecursionError):
        return None
    return node if isinstance(node, ast.Call) else None


def _call_name(call: ast.Call) -> str:
    try:
        return ast.unparse(call.func)
    except (ValueError, RecursionError):
        return ""


def _is_false(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Constant) and node.value is False


def _is_true(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Constant) and node.value is True
