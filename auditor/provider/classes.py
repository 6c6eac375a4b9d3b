"""Classes: what `SomeClass(...)` accepts, derived statically from the class statement.

Owns the constructor rules of the class makers Python code uses: a hand-written `__init__`
(found through the bases), stdlib dataclasses (defaults, `field(init=False)`, `InitVar`,
`kw_only` per class, per field and the `KW_ONLY` sentinel, inherited fields), pydantic models
and pydantic dataclasses (aliases, `populate_by_name`, `extra="forbid"` from `model_config`,
class keywords, `Config` or a base), attrs (`attr.s`/`attr.ib`, `define`/`frozen`/`field`,
private names losing their underscore, `alias=`, `kw_only`), `msgspec.Struct`,
`typing.NamedTuple`, `TypedDict` (a plain dict at run time: accepts anything) and `Enum`; and
PEP 681 `dataclass_transform` on decorators, bases and metaclasses, including a provider's
own decorator that wraps one of these (vLLM's `@config`).

Takes griffe Classes through a `ClassContext` (the API's lookups); gives a `Signature` or
raises `Unknown` with the reason. The libraries themselves are never imported: they are
recognised by name. Unknown keywords are a break only where the maker rejects them: a
signature that accepts extras ends in `**extra`.
"""

from __future__ import annotations

import ast
import re
import textwrap
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Protocol

import griffe

from auditor.model import Param, ParamKind, Signature
from auditor.provider import exprs
from auditor.provider.functions import decorator_path, from_stdlib, from_stub

if TYPE_CHECKING:
    from collections.abc import Iterable

NEUTRAL_BASES = frozenset(
    {
        "object",
        "builtins.object",
        "type",  # a metaclass's base: its attributes are dunders and TYPE_API
        "builtins.type",
        "abc.ABC",
        "typing.Generic",
        "typing.Protocol",
        "typing_extensions.Protocol",
        "typing_extensions.Generic",
    }
)
NEUTRAL_METACLASSES = frozenset({"abc.ABCMeta", "ABCMeta", "enum.EnumMeta", "enum.EnumType"})
PYDANTIC_MODEL = frozenset({"pydantic.BaseModel", "pydantic.main.BaseModel"})
MSGSPEC_STRUCT = frozenset({"msgspec.Struct"})
NAMED_TUPLE = frozenset({"typing.NamedTuple", "typing_extensions.NamedTuple"})
TYPED_DICT = frozenset({"typing.TypedDict", "typing_extensions.TypedDict"})
ENUM = frozenset(
    {"enum.Enum", "enum.IntEnum", "enum.StrEnum", "enum.Flag", "enum.IntFlag", "enum.ReprEnum"}
)
FAMILY_ROOTS = PYDANTIC_MODEL | MSGSPEC_STRUCT | NAMED_TUPLE | TYPED_DICT | ENUM
DATACLASS_TRANSFORM = frozenset(
    {"typing.dataclass_transform", "typing_extensions.dataclass_transform"}
)
STDLIB_DATACLASS = "dataclasses.dataclass"
PYDANTIC_DATACLASS = frozenset({"pydantic.dataclasses.dataclass", "pydantic.dataclass"})
ATTRS_CLASSIC = frozenset({"attr.s", "attr.attrs", "attr.attributes", "attrs.attrs"})
ATTRS_NEXT = frozenset(
    {
        "attr.define",
        "attr.mutable",
        "attr.frozen",
        "attr.dataclass",
        "attrs.define",
        "attrs.mutable",
        "attrs.frozen",
    }
)
FIELD_SPECIFIERS = frozenset(
    {
        "dataclasses.field",
        "pydantic.Field",
        "pydantic.fields.Field",
        "attr.ib",
        "attr.attrib",
        "attr.field",
        "attrs.field",
        "msgspec.field",
    }
)
EXTRA = re.compile(r"""extra['"]?\s*[=:]\s*(?:['"]|Extra\.)(forbid|allow|ignore)""")
BY_NAME = re.compile(r"""(?:populate_by_name|validate_by_name)\s*[=:]\s*True""")
ENUM_SIGNATURE = Signature(
    (
        Param("value", ParamKind.POSITIONAL_OR_KEYWORD),
        Param("names", ParamKind.POSITIONAL_OR_KEYWORD, "None"),
        Param("module", ParamKind.KEYWORD_ONLY, "None"),
        Param("qualname", ParamKind.KEYWORD_ONLY, "None"),
        Param("type", ParamKind.KEYWORD_ONLY, "None"),
        Param("start", ParamKind.KEYWORD_ONLY, "1"),
    )
)
ANYTHING = Signature(
    (Param("args", ParamKind.VAR_POSITIONAL), Param("kwargs", ParamKind.VAR_KEYWORD))
)
MAX_DEPTH = 30


class Unknown(Exception):
    """The answer cannot be known statically; the message says why.

    `closed`: what is not known lies outside the provider's own files (the standard
    library, another distribution, the data a program holds) or in the very files the
    answer read: a release whose files that answer read are the same gives Python's same
    answer (decided by difference, findings.py). An Unknown that stopped at code it did not
    follow (a compiled module, a call it cannot read) is not closed."""

    def __init__(self, message: str = "", *, closed: bool = False) -> None:
        super().__init__(message)
        self.closed = closed


@dataclass(frozen=True, slots=True)
class Maker:
    """How a class's `__init__` is made from its fields."""

    family: str  # dataclass, pydantic-dataclass, pydantic-model, attrs, msgspec, ...
    kw_only: bool = False
    init: bool = True
    extra: str = "forbid"  # forbid: unknown keywords fail; ignore/allow: accepted
    auto_attribs: bool | None = None  # attrs classic: False unless auto_attribs=True
    by_name: bool = False  # pydantic populate_by_name: a field's name works beside its alias
    specifiers: frozenset[str] = field(default_factory=frozenset)


class ClassContext(Protocol):
    """What constructor derivation needs from the API (lookups across modules)."""

    def provider_bases(self, cls: griffe.Class) -> list[griffe.Class | None]: ...
    def base_paths(self, cls: griffe.Class) -> list[str | None]: ...
    def bases_outside(self, cls: griffe.Class) -> bool: ...
    def own_decorator(self, path: str) -> Maker | str | None: ...
    def init_signature(self, function: Any) -> Signature: ...
    def follow(self, member: Any) -> Any: ...
    def constant_text(self, expr: Any) -> str: ...


# --------------------------------------------------------------------------- entry point


def constructor(cls: griffe.Class, ctx: ClassContext, depth: int = 0) -> Signature:
    """The parameters `cls(...)` accepts, or raise Unknown."""
    if depth > MAX_DEPTH:
        raise Unknown("class hierarchy too deep")
    maker = _decorator_maker(cls, ctx)
    if cls.overloads.get("__init__") or cls.overloads.get("__new__"):
        raise Unknown(f"{cls.path}: its constructor is an @overload set in a stub")
    own_init = cls.members.get("__init__")
    own_new = cls.members.get("__new__")
    if own_init is None and own_new is None and _compiled(cls):
        raise Unknown(f"{cls.path} is compiled; its stub does not say how it is constructed")
    if own_new is not None:
        return _with_new(cls, ctx.init_signature(ctx.follow(own_new)), own_init, ctx, depth)
    if own_init is not None:
        return ctx.init_signature(ctx.follow(own_init))
    _check_metaclass(cls, ctx)
    if maker is not None and maker.init:
        return _from_fields(cls, maker, ctx, depth)
    family = _family(cls, ctx, depth)
    if family is not None:
        return family
    return _inherited(cls, ctx, depth)


def _with_new(
    cls: griffe.Class, new: Signature, own_init: Any, ctx: ClassContext, depth: int
) -> Signature:
    """A class with its own `__new__`: CPython passes the call's arguments to `__new__` and
    then to `__init__`. One of them taking anything (`*args, **kwargs`) leaves the other to
    decide; `object.__init__` (no `__init__` anywhere) accepts what `__new__` accepts."""
    init: Signature | None = None
    if own_init is not None:
        init = ctx.init_signature(ctx.follow(own_init))
    elif ctx.provider_bases(cls):
        init = _inherited(cls, ctx, depth)
    if init is None or _takes_anything(init) or not init.params:
        return new
    if _takes_anything(new) or str(new) == str(init):
        return init
    raise Unknown(f"{cls.path}: __new__ and __init__ take different arguments")


def _compiled(cls: griffe.Class) -> bool:
    """A class known only by a stub (a compiled type): object's `()` is no guess to make.
    typeshed's standard library declares every constructor a class defines: one it does
    not declare is inherited."""
    return from_stub(cls) and not from_stdlib(cls)


def _takes_anything(signature: Signature) -> bool:
    kinds = {p.kind.value for p in signature.params}
    return {"variadic positional", "variadic keyword"} <= kinds


def _inherited(cls: griffe.Class, ctx: ClassContext, depth: int) -> Signature:
    for base in ctx.provider_bases(cls):
        if base is None:
            why = f"{cls.path} has a base that cannot be resolved statically"
            raise Unknown(why, closed=ctx.bases_outside(cls))
        return constructor(base, ctx, depth + 1)  # the first base decides, as in the MRO
    return Signature(())


ADD_METACLASS = ("add_metaclass",)  # six.add_metaclass(M), future's, a vendored copy


def metaclass_expr(cls: griffe.Class) -> Any:
    """What sets the class's metaclass: `metaclass=M`, or `@six.add_metaclass(M)` (which
    rebuilds the class with M as its metaclass and adds nothing else)."""
    keyword = cls.keywords.get("metaclass")
    if keyword is not None:
        return keyword
    for decorator in cls.decorators:
        value = decorator.value
        if (
            is_add_metaclass(decorator)
            and isinstance(value, griffe.ExprCall)
            and len(value.arguments) == 1
            and not isinstance(value.arguments[0], griffe.ExprKeyword)
        ):
            return value.arguments[0]
    return None


def is_add_metaclass(decorator: Any) -> bool:
    path = exprs.expr_path(decorator.value) or ""
    return path.rsplit(".", 1)[-1] in ADD_METACLASS


def _check_metaclass(cls: griffe.Class, ctx: ClassContext) -> None:
    metaclass = metaclass_expr(cls)
    if metaclass is None:
        return
    path = exprs.expr_path(metaclass)
    if path in NEUTRAL_METACLASSES:
        return
    if path is not None and isinstance(ctx.own_decorator(path), Maker):
        return  # a dataclass_transform metaclass: fields decide (handled by _family)
    raise Unknown(f"{cls.path} has a metaclass; its constructor is unknown")


# --------------------------------------------------------------------------- decorators


def _decorator_maker(cls: griffe.Class, ctx: ClassContext) -> Maker | None:
    found: Maker | None = None
    for decorator in cls.decorators:
        path = decorator_path(decorator)
        maker = known_maker(path, decorator.value)
        if maker is not None and maker.family == "pydantic-dataclass":
            maker = _config_from_constant(maker, decorator.value, ctx)
        if maker is None:
            own = ctx.own_decorator(path)
            if own == "transparent":
                continue
            if not isinstance(own, Maker):
                raise Unknown(f"{cls.path} is decorated with {path}; its constructor is unknown")
            maker = _with_call_options(own, decorator.value)
        found = found or maker
    return found


def known_maker(path: str, value: Any) -> Maker | None:
    options = exprs.keywords(value)
    kw_only = exprs.is_true(options.get("kw_only"))
    init = not exprs.is_false(options.get("init"))
    if path == STDLIB_DATACLASS:
        return Maker("dataclass", kw_only=kw_only, init=init)
    if path in PYDANTIC_DATACLASS:
        extra = _extra(str(options.get("config", ""))) or "ignore"
        return Maker("pydantic-dataclass", kw_only=kw_only, init=init, extra=extra)
    if path in ATTRS_CLASSIC:
        classic = exprs.is_true(options.get("auto_attribs"))
        return Maker("attrs", kw_only=kw_only, init=init, auto_attribs=classic)
    if path in ATTRS_NEXT:
        auto = None if "auto_attribs" not in options else exprs.is_true(options["auto_attribs"])
        return Maker("attrs", kw_only=kw_only, init=init, auto_attribs=auto)
    return None


def _config_from_constant(maker: Maker, value: Any, ctx: ClassContext) -> Maker:
    """`@dataclass(config=STRICT)`: read the module constant the config names."""
    config = exprs.keywords(value).get("config")
    if config is None or isinstance(config, (griffe.ExprCall, griffe.ExprDict)):
        return maker
    extra = _extra(ctx.constant_text(config))
    return replace(maker, extra=extra) if extra else maker


def _with_call_options(maker: Maker, value: Any) -> Maker:
    """`@own_decorator(config=ConfigDict(extra="allow"))` may override the default."""
    extra = _extra(str(value)) if isinstance(value, griffe.ExprCall) else None
    options = exprs.keywords(value)
    kw_only = maker.kw_only or exprs.is_true(options.get("kw_only"))
    return replace(maker, extra=extra or maker.extra, kw_only=kw_only)


def classify_decorator(function: Any, source: str, resolve_name: Any) -> Maker | str | None:
    """What a provider's own decorator function does to the class or function it decorates.

    "transparent": returns its argument unchanged, or wraps it with functools.wraps;
    a Maker: it is marked dataclass_transform and/or calls a known class maker;
    None: anything else (unknown: never guess).
    """
    marked = any(decorator_path(d) in DATACLASS_TRANSFORM for d in function.decorators)
    tree = _parse_function(source)
    if tree is None:
        return None
    if _is_identity(tree):
        return "transparent"
    called = {resolve_name(n) for n in _called_names(tree)}
    if called & PYDANTIC_DATACLASS:
        return Maker("pydantic-dataclass", extra=_extra(source) or "ignore")
    if STDLIB_DATACLASS in called:
        return Maker("dataclass")
    if marked:
        return Maker("transform", extra="allow", specifiers=_specifiers(function))
    if {"functools.wraps", "functools.update_wrapper"} & called:
        return "transparent"
    return None


def _parse_function(source: str) -> ast.FunctionDef | None:
    try:
        module = ast.parse(textwrap.dedent(source))
    except (SyntaxError, ValueError, RecursionError):
        return None
    node = module.body[0] if module.body else None
    return node if isinstance(node, ast.FunctionDef) else None


def _is_identity(function: ast.FunctionDef) -> bool:
    body = [s for s in function.body if not _is_docstring(s)]
    args = function.args.posonlyargs + function.args.args
    if len(body) != 1 or not args or not isinstance(body[0], ast.Return):
        return False
    value = body[0].value
    return isinstance(value, ast.Name) and value.id == args[0].arg


def _is_docstring(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)


def _called_names(function: ast.FunctionDef) -> Iterable[str]:
    for node in ast.walk(function):
        if isinstance(node, ast.Call):
            name = exprs.unparse(node.func)
            if name.replace(".", "").replace("_", "").isalnum():
                yield name


def _specifiers(function: Any) -> frozenset[str]:
    for decorator in function.decorators:
        if decorator_path(decorator) in DATACLASS_TRANSFORM:
            given = exprs.keywords(decorator.value).get("field_specifiers")
            if isinstance(given, griffe.ExprTuple):
                return frozenset(p for p in map(exprs.expr_path, given.elements) if p)
    return frozenset()


def _extra(text: str) -> str | None:
    match = EXTRA.search(text)
    return match.group(1) if match else None


# --------------------------------------------------------------------------- families


def _family(cls: griffe.Class, ctx: ClassContext, depth: int) -> Signature | None:
    """Constructors that come from a base class: pydantic, msgspec, NamedTuple, ..."""
    roots = _root_paths(cls, ctx, depth)
    if roots & TYPED_DICT:
        return ANYTHING  # a TypedDict is a plain dict constructor at run time
    if roots & ENUM:
        return ENUM_SIGNATURE
    if roots & NAMED_TUPLE:
        return _from_fields(cls, Maker("namedtuple"), ctx, depth)
    if roots & PYDANTIC_MODEL:
        extra = _model_extra(cls, ctx) or "ignore"
        return _from_fields(cls, Maker("pydantic-model", kw_only=True, extra=extra), ctx, depth)
    if roots & MSGSPEC_STRUCT:
        kw_only = exprs.is_true(cls.keywords.get("kw_only"))
        return _from_fields(cls, Maker("msgspec", kw_only=kw_only), ctx, depth)
    transform = _transform_base(cls, ctx)
    if transform is not None:
        return _from_fields(cls, transform, ctx, depth)
    return None


def _root_paths(cls: griffe.Class, ctx: ClassContext, depth: int) -> set[str]:
    """External (non-provider) base paths anywhere up the hierarchy."""
    if depth > MAX_DEPTH:
        raise Unknown("class hierarchy too deep")
    roots = {p for p in ctx.base_paths(cls) if p is not None}
    for base in ctx.provider_bases(cls):
        if base is not None:
            roots |= _root_paths(base, ctx, depth + 1)
    return roots


def _transform_base(cls: griffe.Class, ctx: ClassContext) -> Maker | None:
    """A provider base class (or metaclass) marked with dataclass_transform."""
    metaclass = metaclass_expr(cls)
    if metaclass is not None:
        maker = ctx.own_decorator(exprs.expr_path(metaclass) or "")
        if isinstance(maker, Maker):
            return maker
    for base in ctx.provider_bases(cls):
        if base is None:
            continue
        if any(decorator_path(d) in DATACLASS_TRANSFORM for d in base.decorators):
            return Maker("transform", extra="allow")
        inherited = _transform_base(base, ctx)
        if inherited is not None:
            return inherited
    return None


def _model_extra(cls: griffe.Class, ctx: ClassContext) -> str | None:
    """A pydantic model's `extra` policy: class keyword, model_config, Config, or a base."""
    keyword = cls.keywords.get("extra")
    if keyword is not None:
        return _extra(f"extra={keyword}")
    config = cls.members.get("model_config")
    if isinstance(config, griffe.Attribute) and config.value is not None:
        text = str(config.value)
        if isinstance(config.value, griffe.ExprName):
            text = ctx.constant_text(config.value)
        found = _extra(text)
        if found:
            return found
    legacy = cls.members.get("Config")
    if isinstance(legacy, griffe.Class):
        value = legacy.members.get("extra")
        if isinstance(value, griffe.Attribute):
            return _extra(f"extra={value.value}")
    for base in ctx.provider_bases(cls):
        if base is not None:
            found = _model_extra(base, ctx)
            if found:
                return found
    return None


def _populate_by_name(cls: griffe.Class, ctx: ClassContext) -> bool:
    """`populate_by_name=True` in model_config, as a class keyword, or in a provider base."""
    if exprs.is_true(cls.keywords.get("populate_by_name")) or exprs.is_true(
        cls.keywords.get("validate_by_name")
    ):
        return True
    config = cls.members.get("model_config")
    if isinstance(config, griffe.Attribute) and BY_NAME.search(str(config.value)):
        return True
    return any(b is not None and _populate_by_name(b, ctx) for b in ctx.provider_bases(cls))


# --------------------------------------------------------------------------- fields


def _from_fields(cls: griffe.Class, maker: Maker, ctx: ClassContext, depth: int) -> Signature:
    if maker.family == "pydantic-model" and _populate_by_name(cls, ctx):
        maker = replace(maker, by_name=True)
    params = _fields(cls, maker, ctx, depth)
    ordered = _order(params, maker)
    if maker.extra in ("ignore", "allow"):
        ordered.append(Param("extra", ParamKind.VAR_KEYWORD))
    return Signature(tuple(ordered))


def _fields(cls: griffe.Class, maker: Maker, ctx: ClassContext, depth: int) -> list[Param]:
    """Inherited fields first (in base order), then this class's, redefinitions in place."""
    fields: dict[str, Param] = {}
    for base in reversed(ctx.provider_bases(cls)):
        if base is None:
            why = f"{cls.path} has a base that cannot be resolved statically"
            raise Unknown(why, closed=ctx.bases_outside(cls))
        if _contributes_fields(base, maker, ctx):
            for param in _fields(base, _maker_for_base(base, maker, ctx), ctx, depth + 1):
                fields[param.name] = param
    kw_only = maker.kw_only
    for name, attr in cls.members.items():
        if not _is_field(cls, attr, maker):
            continue
        if str(getattr(attr, "annotation", "")).endswith("KW_ONLY"):
            kw_only = True
            continue
        made = _field_param(name, attr, maker, kw_only)
        fields.pop(name, None)
        if made is not None and made.name != name and maker.by_name:
            # the alias and the field's own name are both accepted, neither is required
            fields[made.name] = replace(made, default=made.default or "<or by name>")
            fields[name] = replace(made, name=name, default=made.default or "<or by alias>")
        elif made is not None:
            fields[made.name] = made
    return list(fields.values())


def _contributes_fields(base: griffe.Class, maker: Maker, ctx: ClassContext) -> bool:
    """Only bases made by a maker (or in the same base-class family) carry fields."""
    if maker.family in ("pydantic-model", "msgspec", "namedtuple", "transform"):
        return True
    try:
        return _decorator_maker(base, ctx) is not None
    except Unknown:
        return False


def _maker_for_base(base: griffe.Class, maker: Maker, ctx: ClassContext) -> Maker:
    try:
        own = _decorator_maker(base, ctx)
    except Unknown:
        own = None
    if own is None:
        return maker
    return replace(own, extra=maker.extra)


def _is_field(cls: griffe.Class, attr: Any, maker: Maker) -> bool:
    if not isinstance(attr, griffe.Attribute):
        return False
    if attr.annotation is None:
        return maker.family == "attrs" and _specifier_call(attr, maker) is not None
    if "instance-attribute" not in attr.labels:
        return False  # ClassVar[...]: griffe labels it class-attribute only
    if maker.family == "attrs" and maker.auto_attribs is False:
        return _specifier_call(attr, maker) is not None
    line = attr.lineno or 0
    methods = [m for m in cls.members.values() if isinstance(m, griffe.Function)]
    # `self.x: int = ...` inside a method is an instance attribute, not a field
    return not any((m.lineno or 0) <= line <= (m.endlineno or 0) for m in methods)


def _specifier_call(attr: Any, maker: Maker) -> ast.Call | None:
    value = attr.value
    if not isinstance(value, griffe.ExprCall):
        return None
    path = exprs.expr_path(value.function)
    if path in FIELD_SPECIFIERS or path in maker.specifiers:
        return exprs.safe_call(str(value))
    return None


def _field_param(name: str, attr: Any, maker: Maker, kw_only: bool) -> Param | None:
    """The __init__ parameter a field makes, or None when it takes no part in __init__."""
    annotation = None if attr.annotation is None else str(attr.annotation)
    call = _specifier_call(attr, maker)
    default = None if attr.value is None or call is not None else str(attr.value)
    keyword = name.lstrip("_") if maker.family == "attrs" else name
    if call is not None:
        options = exprs.call_keywords(call)
        if exprs.literal(options.get("init")) is False:
            return None
        default = _specifier_default(call, options)
        kw_only = kw_only or exprs.literal(options.get("kw_only")) is True
        keyword = _alias(options, maker) or keyword
    kind = ParamKind.KEYWORD_ONLY if kw_only else ParamKind.POSITIONAL_OR_KEYWORD
    return Param(keyword, kind, default, annotation)


def _specifier_default(call: ast.Call, options: dict[str, ast.expr]) -> str | None:
    for key in ("default", "default_factory", "factory"):
        if key in options:
            value = options[key]
            if key == "default" and isinstance(value, ast.Constant) and value.value is Ellipsis:
                return None  # pydantic Field(default=...) means required
            return exprs.unparse(value) if key == "default" else f"<{exprs.unparse(value)}()>"
    if call.args:
        first = call.args[0]
        if isinstance(first, ast.Constant) and first.value is Ellipsis:
            return None
        return exprs.unparse(first)  # pydantic Field(0), attr.ib(0): the default
    return None


def _alias(options: dict[str, ast.expr], maker: Maker) -> str | None:
    keys = ("alias",) if maker.family == "attrs" else ("alias", "validation_alias")
    if maker.family not in ("attrs", "pydantic-model", "pydantic-dataclass"):
        return None
    for key in keys:
        value = exprs.literal(options.get(key))
        if isinstance(value, str):
            return value
    return None


def _order(params: list[Param], maker: Maker) -> list[Param]:
    if maker.family == "pydantic-model":
        return [replace(p, kind=ParamKind.KEYWORD_ONLY) for p in params]
    positional = [p for p in params if p.kind is not ParamKind.KEYWORD_ONLY]
    keyword = [p for p in params if p.kind is ParamKind.KEYWORD_ONLY]
    return positional + keyword
