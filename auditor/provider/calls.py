"""What calls do in evaluated provider code.

What it owns: the calls the namespace evaluator follows: `warnings.warn` (a deprecation, by
its category's name), `importlib.import_module`, the builtins that build or read containers
(`set`, `dict`, `sorted`, `len`, `getattr`, `dir`, `globals()`, `vars()`, `setattr` on
`sys.modules[__name__]`), the methods of strings, dicts, sets and lists (a mutation with a key
not known makes the container Partial), provider functions (through the Evaluator), and the
module-level assignments that install a namespace model: `lazy_loader.attach`/`attach_stub`,
a factory's `__getattr__`, `sys.modules[__name__] = ...LazyModule(...)`. Any other call is
opaque: its value is UNKNOWN.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

from auditor.provider.pyvalues import (
    UNKNOWN,
    AnyKey,
    Function,
    GlobalsView,
    ModuleObject,
    Partial,
    Raised,
    Ref,
    Stop,
    absolute,
    as_attrs,
    as_set,
    convert,
    dotted,
    is_sys_modules_self,
    iterate,
    literal,
    safe_str_method,
    target_names,
)

if TYPE_CHECKING:
    from auditor.provider.frame import Frame

DEPRECATIONS = frozenset({"DeprecationWarning", "PendingDeprecationWarning", "FutureWarning"})
READERS = frozenset({"get", "keys", "values", "items", "copy", "count", "index", "__contains__",
                     "__getitem__", "__len__", "issubset", "issuperset", "isdisjoint", "union",
                     "intersection", "difference", "symmetric_difference"})  # fmt: skip
PURE_BUILTINS = frozenset({"isinstance", "issubclass", "hasattr", "getattr", "len", "repr", "str",
                           "type", "id", "print", "hash", "callable", "sorted", "list", "tuple",
                           "set", "frozenset", "dict", "any", "all", "min", "max", "sum",
                           "enumerate", "zip", "range", "format", "bool", "int", "float", "abs",
                           "round", "divmod", "ord", "chr", "reversed", "object", "super",
                           "property", "staticmethod", "classmethod"})  # fmt: skip
REMOVERS = frozenset({"pop", "popitem", "remove", "discard", "clear"})  # what may be there, may
NAMESPACE_WRITERS = frozenset({"update", "__setitem__", "setdefault"})  # methods of globals()
LAZY_ATTACH = frozenset({"lazy_loader.attach"})
LAZY_ATTACH_STUB = frozenset({"lazy_loader.attach_stub"})
STR_METHODS = frozenset(
    {"startswith", "endswith", "lower", "upper", "strip", "lstrip", "rstrip", "replace",
     "split", "rsplit", "partition", "rpartition", "removeprefix", "removesuffix", "join",
     "format", "isidentifier", "islower", "isupper", "title", "capitalize"}
)  # fmt: skip


def _literal_spread(expr: ast.Call) -> list[tuple[str, ast.expr]] | None:
    """The keywords `**` spreads when every spread is a dict display with string keys
    written out (`**{"run": x}`); None when there is another spread, or none."""
    spreads = [k.value for k in expr.keywords if k.arg is None]
    if not spreads or not all(isinstance(s, ast.Dict) for s in spreads):
        return None
    pairs: list[tuple[str, ast.expr]] = []
    for display in spreads:
        assert isinstance(display, ast.Dict)
        for key, value in zip(display.keys, display.values, strict=True):
            if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                return None
            pairs.append((key.value, value))
    return pairs


def call(frame: Frame, expr: ast.Call, *, certain: bool) -> Any:
    func = frame.value(expr.func)
    callee = frame.canonical(expr.func)
    args = [frame.value(a) for a in expr.args if not isinstance(a, ast.Starred)]
    kwargs = {k.arg: frame.value(k.value) for k in expr.keywords if k.arg}
    spread = _literal_spread(expr)  # `f(**{"run": x})` is `f(run=x)`
    if spread is not None:
        kwargs.update((key, frame.value(value)) for key, value in spread)
    if any(isinstance(a, ast.Starred) for a in expr.args) or (
        spread is None and any(k.arg is None for k in expr.keywords)
    ):
        if _namespace_write(frame, func, callee, expr):
            frame.facts.write_unknown()  # `globals().update(**names)`: any name
        return UNKNOWN  # `*args`/`**kwargs`: not followed
    if isinstance(func, tuple) and len(func) == 3 and func[0] == "method":
        return _method(frame, func[1], func[2], args, kwargs, expr, certain)
    if callee in ("warnings.warn", "warn") or (callee or "").endswith("warnings.warn"):
        _warn(frame, expr, args)
        return None
    if callee in ("importlib.import_module", "import_module") or (callee or "").endswith(
        ".import_module"
    ):
        return _import_module(frame, args, kwargs)
    if isinstance(func, Ref) and func.path.startswith("builtins."):
        return _builtin(frame, func.path[9:], args, kwargs, expr)
    if callee == "setattr" or (isinstance(func, Ref) and func.path == "builtins.setattr"):
        return _setattr(frame, expr)
    if isinstance(func, Function) or (isinstance(func, Ref) and frame.ev_function(func.path)):
        function = func if isinstance(func, Function) else frame.ev_function(func.path)
        assert function is not None
        return _call_function(frame, function, args, kwargs, expr)
    if isinstance(func, Ref) and not func.module:
        method = frame.ev.method(func.path)  # `Cls.classmethod(...)`, `Cls.function(obj)`
        if method is not None:
            function, owner = method
            bound = [owner, *args] if owner is not None else args
            return _call_function(frame, function, bound, kwargs, expr)
    if callee == "sys.modules.get" or callee == "sys.modules.__getitem__":
        return UNKNOWN
    # A call not followed: its value is not known. Lenient, it may change what it is given:
    # the containers it is passed become Partial, a class it is passed may get anything.
    if frame.lenient and not (callee in PURE_BUILTINS and frame.lookup(callee) is UNKNOWN):
        frame.havoc(expr)
    return UNKNOWN


def _namespace_write(frame: Frame, func: Any, callee: str | None, expr: ast.Call) -> bool:
    """Whether a call writes names into the module's namespace: a writing method of
    `globals()`, or `setattr` on the module itself."""
    if isinstance(func, tuple) and len(func) == 3 and func[0] == "method":
        return isinstance(func[1], GlobalsView) and func[2] in NAMESPACE_WRITERS
    if callee != "setattr" or not expr.args or isinstance(expr.args[0], ast.Starred):
        return callee == "setattr"  # `setattr(*args)`: on anything, the module included
    owner = frame.deref(frame.value(expr.args[0]))
    return is_sys_modules_self(expr.args[0]) or (
        isinstance(owner, ModuleObject) and owner.path == frame.facts.module
    )


def _call_function(
    frame: Frame, function: Function, args: list[Any], kwargs: dict[str, Any], expr: ast.Call
) -> Any:
    """A provider function called. In a lenient frame (a module's top level), one whose body
    the strict evaluation cannot follow is run again leniently, for what it may do to what it
    reaches (module containers, classes it is given) and what it may return; at a module's
    top level one that may write names into a namespace leaves the module's names unknown."""
    try:
        return frame.ev.call(function, args, kwargs, frame.depth + 1, caller=frame)
    except Stop:
        if not frame.lenient or (frame.top and _writes_names(function.node)):
            raise
    try:
        return frame.ev.call(function, args, kwargs, frame.depth + 1, caller=frame, lenient=True)
    except Stop:
        frame.havoc(expr)
        return UNKNOWN


def _writes_names(node: ast.AST) -> bool:
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and sub.id in ("globals", "vars", "locals", "setattr"):
            return True
        if isinstance(sub, ast.Attribute) and sub.attr in ("modules", "__dict__"):
            return True
    return False


def _warn(frame: Frame, expr: ast.Call, args: list[Any]) -> None:
    """`warnings.warn(message, category)`: a deprecation when the category is one (by its
    name, as written: DeprecationWarning, FutureWarning, a provider's subclass named so)."""
    category = expr.args[1] if len(expr.args) > 1 else None
    for keyword in expr.keywords:
        if keyword.arg == "category":
            category = keyword.value
    if category is None:
        return  # a UserWarning: not a deprecation
    name = (frame.canonical(category) or "").rsplit(".", 1)[-1]
    if not (name in DEPRECATIONS or "Deprecat" in name):
        return
    frame.deprecated = args[0] if args and isinstance(args[0], str) else "deprecated"


def _import_module(frame: Frame, args: list[Any], kwargs: dict[str, Any]) -> Any:
    name = args[0] if args else kwargs.get("name")
    package = args[1] if len(args) > 1 else kwargs.get("package")
    if not isinstance(name, str):
        return UNKNOWN
    if name.startswith("."):
        if not isinstance(package, str):
            return UNKNOWN
        level = len(name) - len(name.lstrip("."))
        return Ref(absolute(name.lstrip("."), level, package), module=True)
    return Ref(name, module=True)


def _builtin(
    frame: Frame, name: str, args: list[Any], kwargs: dict[str, Any], expr: ast.Call
) -> Any:
    if (name in ("globals", "vars") or (name == "locals" and frame.top)) and not args:
        return GlobalsView()
    if name == "getattr" and len(args) >= 2 and isinstance(args[1], str):
        owner = args[0]
        if isinstance(owner, Ref):
            return Ref(f"{owner.path}.{args[1]}")
        return UNKNOWN
    if name == "dir" and len(args) == 1 and isinstance(args[0], Ref):
        frame.ev.read(args[0].path)
        names = frame.ev.host.member_names(args[0].path)
        return tuple(names) if names is not None else UNKNOWN
    if name == "setattr":
        return _setattr(frame, expr)
    if name in ("set", "frozenset", "list", "tuple", "sorted", "dict") and len(args) <= 1:
        return convert(name, args[0] if args else (), kwargs)
    if name == "len" and len(args) == 1:
        seq = iterate(args[0])
        return len(seq) if seq is not None else UNKNOWN
    return UNKNOWN


def _setattr(frame: Frame, expr: ast.Call) -> Any:
    """`setattr(sys.modules[__name__], k, v)` writes a module name; `setattr(Cls, k, v)` (a
    provider class, or the `cls` a function was given) puts attribute k on the class."""
    if len(expr.args) < 2:
        return None
    value = frame.value(expr.args[2]) if len(expr.args) > 2 else UNKNOWN
    if is_sys_modules_self(expr.args[0]):
        frame.write(frame.value(expr.args[1]), value)
        return None
    owner = frame.deref(frame.value(expr.args[0]))
    if isinstance(owner, ModuleObject) and owner.path == frame.facts.module:
        frame.write(frame.value(expr.args[1]), value)  # `sympy = sys.modules[__name__]`
    elif isinstance(owner, Ref) and not owner.module:
        frame.ev.class_write(owner.path, frame.value(expr.args[1]))
    return None


def _method(frame: Frame, owner: Any, method: str, args: list[Any], kwargs: dict[str, Any],
    expr: ast.Call, certain: bool,
) -> Any:  # fmt: skip
    if isinstance(owner, GlobalsView):
        return _globals_method(frame, method, args, kwargs, certain)
    partial = isinstance(owner, Partial)
    known = owner.known if partial else owner
    if isinstance(known, str) and method in STR_METHODS:
        if not all(isinstance(a, (str, int, tuple)) for a in [*args, *kwargs.values()]):
            return UNKNOWN
        return safe_str_method(known, method, args, kwargs)
    if isinstance(known, dict):
        found = _dict_method(frame, known, method, args, partial, expr)
    elif isinstance(known, (set, list)):
        found = _seq_method(frame, known, method, args, expr)
    else:
        return UNKNOWN
    if found is UNKNOWN and method not in READERS | REMOVERS:
        _poison_expr(frame, expr)  # a method not followed may have added anything
    return found


def _globals_method(
    frame: Frame, method: str, args: list[Any], kwargs: dict[str, Any], certain: bool
) -> Any:
    """`globals().update(...)`, `.setdefault(k, v)`, `.get(k)`, `.__setitem__(k, v)`: each
    name written is bound to its value, as an assignment binds it."""
    if method == "update":
        other = args[0] if args else {}
        if isinstance(other, dict) and len(args) <= 1:
            for key, value in {**other, **kwargs}.items():
                frame.write(key, value, certain)
        else:
            frame.facts.write_unknown()
    elif method == "__setitem__" and args:
        frame.write(args[0], args[1] if len(args) > 1 else UNKNOWN, certain)
    elif method == "setdefault" and args:  # a name already bound keeps its value
        if not (isinstance(args[0], str) and args[0] in frame.facts.values):
            frame.write(args[0], args[1] if len(args) > 1 else None, certain)
    elif method == "get" and args and isinstance(args[0], str):
        try:
            return frame.global_value(args[0])
        except Raised:
            return args[1] if len(args) > 1 else None
    return None


def _dict_method(
    frame: Frame, known: dict[Any, Any], method: str, args: list[Any], partial: bool, expr: ast.Call
) -> Any:
    if method == "get" and args:
        if args[0] in known:
            return known[args[0]]
        return UNKNOWN if partial else (args[1] if len(args) > 1 else None)
    if method in ("keys", "values", "items") and not partial:
        return tuple(getattr(known, method)())
    if method == "keys":
        return owner_partial(frame, expr, tuple(known))
    if method == "update" and args:
        other = args[0]
        if isinstance(other, dict):
            known.update(other)
        else:
            _poison_expr(frame, expr)
        return None
    if method == "setdefault" and args:
        if args[0] is UNKNOWN:
            _poison_expr(frame, expr)
            return UNKNOWN
        return known.setdefault(args[0], args[1] if len(args) > 1 else None)
    if method in ("pop", "clear"):
        return UNKNOWN  # a removal: may remove what a name needs; stay unsure
    return UNKNOWN


def owner_partial(frame: Frame, expr: ast.Call, items: tuple[Any, ...]) -> Any:
    """The keys of a Partial dict: Partial too, with what it certainly lacks."""
    owner = frame.value(expr.func.value) if isinstance(expr.func, ast.Attribute) else None
    return Partial(items, owner.absent) if isinstance(owner, Partial) else UNKNOWN


def _seq_method(
    frame: Frame, known: set[Any] | list[Any], method: str, args: list[Any], expr: ast.Call
) -> Any:
    if method == "insert" and len(args) == 2 and isinstance(known, list):
        method, args = "append", args[1:]  # where it goes does not change what it holds
    if method in ("add", "append") and args:
        if isinstance(args[0], AnyKey):
            _poison_expr(frame, expr, args[0].absent)
        elif args[0] is UNKNOWN:
            _poison_expr(frame, expr)
        elif isinstance(known, set):
            known.add(args[0])
        else:
            known.append(args[0])
        return None
    if method in ("update", "extend") and args:
        seq = iterate(frame.deref(args[0]))
        if seq is None:
            other = frame.deref(args[0])
            items = iterate(other.known) if isinstance(other, Partial) else None
            if isinstance(other, Partial) and items is not None:
                (known.update if isinstance(known, set) else known.extend)(items)
                _poison_expr(frame, expr, other.absent)
                return None
            _poison_expr(frame, expr)
        elif isinstance(known, set):
            known.update(seq)
        else:
            known.extend(seq)
        return None
    return UNKNOWN


def _poison_expr(frame: Frame, expr: ast.Call, absent: frozenset[Any] = frozenset()) -> None:
    func = expr.func
    if isinstance(func, ast.Attribute):
        owner = func.value
        called = owner.func if isinstance(owner, ast.Call) else None
        if isinstance(called, ast.Name) and called.id in ("globals", "vars", "locals"):
            frame.facts.write_unknown(absent)
            return
        if isinstance(owner, ast.Name):
            frame.poison(owner, absent)
        elif isinstance(owner, ast.Subscript):
            frame.poison(owner.value)


def lazy_assign(frame: Frame, node: ast.Assign) -> bool:
    """`__getattr__, __dir__, __all__ = lazy_loader.attach(...)`, a factory's
    `__getattr__ = make(...)`, or `sys.modules[__name__] = SomeLazyModule(...)`."""
    call = node.value
    if not isinstance(call, ast.Call):
        return False
    names = [n for t in node.targets for n in target_names(t)]
    if "__getattr__" in names:
        frame.facts.getattr = _getattr_model(frame, call)
        return True
    if any(is_sys_modules_self(t) for t in node.targets):
        model = _lazy_module_model(frame, call)
        if frame.mirrored and not _fully_known(model):
            # `if TYPE_CHECKING: from .x import *` ... `else: sys.modules[__name__] =
            # _LazyModule(__name__, _file, define_import_structure(_file))` (transformers,
            # diffusers): the structure is built at run time from the files, and the
            # TYPE_CHECKING block is kept its mirror (their import checks enforce it): the
            # names it imports are the module's, read statically like any import, except
            # names of a shape the lazy class's own __getattr__ serves by a rule
            # (transformers 5: any `*TokenizerFast`, from its `*Tokenizer`)
            shapes = _served_shapes(frame, call.func)
            frame.facts.lazy_module = UNKNOWN if shapes is UNKNOWN else ("mirror", shapes)
            return True
        frame.facts.lazy_module = model
        return True
    return False


def _getattr_model(frame: Frame, call: ast.Call) -> Any:
    callee = frame.canonical(call.func)
    args = [frame.value(a) for a in call.args]
    kwargs = {k.arg: frame.value(k.value) for k in call.keywords if k.arg}
    if callee in LAZY_ATTACH:
        submodules = as_set(kwargs.get("submodules", args[1] if len(args) > 1 else ()))
        attrs = as_attrs(kwargs.get("submod_attrs", args[2] if len(args) > 2 else {}))
        return ("lazy", submodules, attrs, set())
    if callee in LAZY_ATTACH_STUB:
        return _stub_model(frame)
    factory = frame.value(call.func)
    if isinstance(factory, Ref):
        factory = frame.ev_function(factory.path)
    if isinstance(factory, Function):
        try:
            result = frame.ev.call(factory, args, kwargs, frame.depth + 1)
        except (Stop, Raised):
            return UNKNOWN
        if isinstance(result, tuple) and result:
            result = result[0]
        return result if isinstance(result, Function) else UNKNOWN
    return UNKNOWN


def _stub_model(frame: Frame) -> Any:
    stub = frame.ev.host.stub_ast(frame.facts.module)
    frame.facts.deps.add(frame.facts.module)
    if stub is None:
        return UNKNOWN
    submodules: set[str] = set()
    attrs: dict[str, set[str]] = {}
    for node in stub.body:
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            names = {a.asname or a.name for a in node.names if a.name != "*"}
            if node.module is None:
                submodules |= names
            else:
                attrs.setdefault(node.module, set()).update(names)
        elif isinstance(node, (ast.ImportFrom, ast.Import)):
            continue
    return ("lazy", submodules, attrs, set())


def _served_shapes(frame: Frame, func: ast.expr) -> Any:
    """The name shapes a lazy module class's `__getattr__` tests (`name.endswith("Fast")`,
    `name.startswith(...)`) as (method, text) pairs; UNKNOWN when the class or a test of its
    cannot be read. Other tests (`name in self._objects`) are its structure: the mirror's."""
    body = _class_body(frame, frame.canonical(func) or "")
    if body is None:
        return UNKNOWN
    method = body.get("__getattr__")
    if method is None:
        return frozenset()
    if not isinstance(method, Function) or len(method.node.args.args) < 2:
        return UNKNOWN
    param = method.node.args.args[1].arg
    shapes: set[tuple[str, str]] = set()
    for node in ast.walk(method.node):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        if node.func.attr not in ("endswith", "startswith"):
            continue
        if not (isinstance(node.func.value, ast.Name) and node.func.value.id == param):
            continue
        texts = [literal(a) for a in node.args[:1]]
        for text in texts:
            options = text if isinstance(text, tuple) else (text,)
            if not options or not all(isinstance(o, str) for o in options):
                return UNKNOWN
            shapes.update((node.func.attr, o) for o in options)
    return frozenset(shapes)


def _class_body(frame: Frame, path: str) -> dict[str, Any] | None:
    """The names a provider class's body binds, through the imports that re-export it."""
    found = frame.ev_binding(path)
    return found[0].class_bodies.get(found[1]) if found is not None else None


def _fully_known(model: Any) -> bool:
    if not isinstance(model, tuple):
        return False
    _, submodules, attrs, _ = model
    return not isinstance(submodules, Partial) and not any(
        isinstance(v, Partial) for v in attrs.values()
    )


def _lazy_module_model(frame: Frame, call: ast.Call) -> Any:
    callee = dotted(call.func) or ""
    if not callee.rsplit(".", 1)[-1].endswith("LazyModule"):
        return UNKNOWN
    structure: Any = UNKNOWN
    extra: Any = set()
    for arg in call.args:
        value = frame.value(arg)
        if isinstance(value, (dict, Partial)) and structure is UNKNOWN:
            structure = value
    for keyword in call.keywords:
        if keyword.arg == "import_structure":
            structure = frame.value(keyword.value)
        elif keyword.arg == "extra_objects":
            found = frame.value(keyword.value)
            extra = set(found) if isinstance(found, dict) else UNKNOWN
    partial = isinstance(structure, Partial)
    known = structure.known if partial else structure
    if not isinstance(known, dict):
        return UNKNOWN
    submodules: Any = set(known)
    attrs: dict[str, Any] = {}
    for key, value in known.items():
        names = as_set(value)
        attrs[key] = names if names is not UNKNOWN else Partial(set())
    if partial:
        submodules = Partial(submodules)
    if extra is UNKNOWN:
        return UNKNOWN
    return ("lazy", submodules, attrs, extra)


def class_getattr_model(frame: Frame, node: ast.ClassDef) -> Any:
    """`@decorator class __getattr__:` whose properties are the module's dynamic names, as
    matplotlib's `_api.caching_module_getattr` builds one: read from the decorator's source,
    it must return an inner function that ends in `raise AttributeError` (so a name that is
    not a property is refused). ("class", {name: deprecation or None}) or UNKNOWN."""
    if len(node.decorator_list) != 1:
        return UNKNOWN
    path = frame.canonical(node.decorator_list[0])
    decorator = frame.ev_function(path) if path else None
    if decorator is None or not _refuses_the_rest(decorator.node):
        return UNKNOWN
    served: dict[str, str | None] = {}
    for statement in node.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if any(_names_property(d) for d in statement.decorator_list):
                served[statement.name] = None
        elif isinstance(statement, ast.Assign) and _names_property(statement.value):
            deprecated = _deprecation(statement.value)
            for target in statement.targets:
                if isinstance(target, ast.Name):
                    served[target.id] = deprecated
    return ("class", served)


def _refuses_the_rest(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """The decorator returns a nested function whose last statement raises AttributeError."""
    returned = function.body[-1] if function.body else None
    if not (isinstance(returned, ast.Return) and isinstance(returned.value, ast.Name)):
        return False
    for statement in function.body:
        if isinstance(statement, ast.FunctionDef) and statement.name == returned.value.id:
            last = statement.body[-1]
            raised = (
                last.exc.func
                if isinstance(last, ast.Raise) and isinstance(last.exc, ast.Call)
                else None
            )
            return raised is not None and (dotted(raised) or "").endswith("AttributeError")
    return False


def _names_property(expr: ast.expr) -> bool:
    """`property`, `functools.cached_property`, or an expression that calls one."""
    for sub in ast.walk(expr):
        if not isinstance(sub, ast.expr):
            continue
        name = dotted(sub.func) if isinstance(sub, ast.Call) else dotted(sub)
        if name and name.rsplit(".", 1)[-1] in ("property", "cached_property"):
            return True
    return False


def _deprecation(expr: ast.expr) -> str | None:
    """`_api.deprecated("3.5")(property(...))`: a property wrapped by a deprecating call."""
    for sub in ast.walk(expr):
        if isinstance(sub, ast.Call) and "deprecat" in (dotted(sub.func) or "").lower():
            return "deprecated"
    return None
