"""The judge's probe: runs INSIDE a scratch venv holding one provider release, never in
drift-audit's environment, and imports nothing but the standard library and the provider.

    python -I probe.py QUERIES.json ANSWERS.jsonl ROOT[,ROOT...] [SECONDS]

QUERIES.json is a list of queries; each answer is appended to ANSWERS.jsonl as one JSON line
as soon as it is known, so a crash or a hang loses only the query that caused it. Queries:

    {"key": K, "op": "import", "module": "a.b"}             import a.b
    {"key": K, "op": "from", "module": "a.b", "name": "c"}  from a.b import c
    {"key": K, "op": "chain", "chain": "a.b.C().m"}         the attribute chain resolved
    {"key": K, "op": "call", "chain": ..., "shape": {"positional": 2, "keywords": ["k"],
     "star_args": false, "star_kwargs": false}, "self": "as-written" | "owner-instance"}

A chain is resolved as the judge's README says: `importlib.import_module` of the longest
module prefix, then `getattr` along the rest; `C()` of a class is an instance of it, whose
attributes are looked up on the class (`missing-on-class` when the class lacks one: the
caller decides, since an instance may still have it); the result of calling anything else,
or an item of anything, is undecidable. A call binds its shape (dummy objects in place of
the consumer's values) with `inspect.signature(...).bind(...)`, against the callable itself
(`follow_wrapped=False`) and against what it wraps: a wrapper that accepts what the wrapped
function refuses is undecidable (a decorator may map the arguments itself).

Each answer: status works | fails | missing-on-class | undecidable, and what shows it (the
step, the exception and its classes, the bind failure, the signature, keywords that only a
`**kwargs` took, whether the owner is compiled, the warnings raised).
"""

from __future__ import annotations

import importlib
import inspect
import json
import re
import signal
import sys
import traceback
import warnings
from typing import Any

_MARK = re.compile(r"\(\)|\[\*?\]")
_QUOTED = re.compile(r"'([^']+)'")
_COMPILED = (".so", ".pyd")
ROOTS: set[str] = set()


class Timeout(BaseException):
    """The query ran out of time (signal.alarm)."""


class Instance:
    """An instance of `cls` made by the consumer (`C()`): looked up on the class."""

    def __init__(self, cls: type) -> None:
        self.cls = cls


class Stop(Exception):
    def __init__(self, answer: dict[str, Any]) -> None:
        super().__init__(answer.get("detail", ""))
        self.answer = answer


def _short(text: object, size: int = 300) -> str:
    out = " ".join(str(text).split())
    return out if len(out) <= size else out[: size - 3] + "..."


def _exc(step: str, exc: BaseException, **more: Any) -> dict[str, Any]:
    mro = [c.__name__ for c in type(exc).__mro__ if c is not object]
    hooked = any(f.name == "__getattr__" for f in traceback.extract_tb(exc.__traceback__))
    return {
        "status": "fails",
        "step": step,
        "exc": type(exc).__name__,
        "mro": mro,
        "detail": _short(f"{type(exc).__name__}: {exc}"),
        "hook": hooked,
        **more,
    }


def _undecidable(step: str, detail: str, **more: Any) -> dict[str, Any]:
    return {"status": "undecidable", "step": step, "detail": _short(detail), **more}


def _compiled_module(name: str | None) -> bool:
    module = sys.modules.get(name or "")
    path = str(getattr(module, "__file__", "") or "")
    if module is None or hasattr(module, "__path__"):
        return path.endswith(_COMPILED)  # a package (a namespace one has no file)
    return path.endswith(_COMPILED) or not path  # no file: built into the interpreter


def compiled(owner: object) -> bool:
    """Whether the owner of an attribute is compiled: an extension module, or a class (or a
    base of it, `object` aside) that is a static C type or defined in an extension module."""
    if inspect.ismodule(owner):
        return _compiled_module(owner.__name__)
    cls = owner.cls if isinstance(owner, Instance) else owner
    if not isinstance(cls, type):
        return False
    for base in cls.__mro__[:-1]:
        static = not base.__flags__ & (1 << 9)  # Py_TPFLAGS_HEAPTYPE
        if static or _compiled_module(base.__module__):
            return True
    return False


def parse(chain: str) -> list[tuple[str, list[str]]]:
    parts = []
    for part in chain.split("."):
        cut = min((i for i in (part.find("("), part.find("[")) if i >= 0), default=len(part))
        parts.append((part[:cut], _MARK.findall(part[cut:])))
    return parts


def import_longest(parts: list[tuple[str, list[str]]]) -> tuple[Any, int]:
    """The longest prefix that imports as a module; Stop with the answer when an import
    fails for another reason than "no such module"."""
    limit = next((i + 1 for i, (_, marks) in enumerate(parts) if marks), len(parts))
    plain = [name for name, _ in parts]
    for size in range(limit, 0, -1):
        name = ".".join(plain[:size])
        try:
            return importlib.import_module(name), size
        except ModuleNotFoundError as exc:
            missing = exc.name or ""
            if missing == name or name.startswith(missing + "."):
                continue  # not a module: try a shorter prefix
            if missing.partition(".")[0] not in ROOTS:
                why = f"importing {name} needs {missing}: {exc}"
                raise Stop(_undecidable("import", why)) from exc
            raise Stop(_exc("import", exc, module=name)) from exc
        except Timeout:
            raise
        except BaseException as exc:
            raise Stop(_exc("import", exc, module=name)) from exc
    raise Stop(_exc("import", ModuleNotFoundError(f"No module named {plain[0]!r}")))


def _function_like(raw: object) -> bool:
    """Whether an attribute found on a class binds the instance as its first argument."""
    if isinstance(raw, (staticmethod, classmethod, property)):
        return False
    if inspect.isfunction(raw) or inspect.ismethoddescriptor(raw):
        return True
    return hasattr(type(raw), "__get__") and not hasattr(type(raw), "__set__")


class PropertyValue:
    """The value a property gives an instance: not known without running it."""


def _on_class(obj: Instance, name: str, owner_text: str) -> tuple[Any, bool]:
    try:
        value = getattr(obj.cls, name)
    except AttributeError:
        dynamic = any("__getattr__" in vars(c) for c in obj.cls.__mro__[:-1])
        raise Stop(
            {
                "status": "missing-on-class",
                "step": "attribute",
                "exc": "AttributeError",
                "mro": ["AttributeError", "Exception", "BaseException"],
                "detail": f"{owner_text} (looked up on the class) has no attribute {name!r}",
                "dynamic": dynamic,
                "compiled": compiled(obj.cls),
            }
        ) from None
    raw = inspect.getattr_static(obj.cls, name, None)
    if isinstance(raw, property):
        return PropertyValue(), False
    return value, _function_like(raw)


def _attribute(obj: Any, name: str) -> tuple[Any, bool]:
    """getattr on a module, a class or a value; (value, binds an instance when called)."""
    try:
        value = getattr(obj, name)
    except Timeout:
        raise
    except BaseException as exc:
        raise Stop(_exc("attribute", exc, compiled=compiled(obj))) from exc
    if inspect.isclass(obj):
        return value, _function_like(inspect.getattr_static(obj, name, None))
    return value, False


def walk(chain: str, trace: dict[str, Any]) -> dict[str, Any]:
    """Resolve a chain: {"obj", "owner", "bound", "module", "text"}; Stop with an answer.
    `trace` gets the module imported and the name being looked up when it stopped."""
    parts = parse(chain)
    obj, used = import_longest(parts)
    module = ".".join(name for name, _ in parts[:used])
    trace["module"] = module
    owner: Any = obj
    bound = False
    text = module
    for name, marks in parts[used:]:
        if isinstance(obj, PropertyValue):
            raise Stop(_undecidable("attribute", f"{text} is a property's value"))
        owner = obj
        trace["name"], trace["owner"] = name, text
        if isinstance(obj, Instance):
            obj, bound = _on_class(obj, name, text)
        else:
            obj, bound = _attribute(obj, name)
        text = f"{text}.{name}"
        for mark in marks:
            if mark == "()" and inspect.isclass(obj):
                obj, owner, bound = Instance(obj), obj, False
                text += "()"
            elif mark == "()":
                raise Stop(_undecidable("call", f"what {text}() returns is not known unrun"))
            else:
                raise Stop(_undecidable("item", f"an item of {text} is not known unrun"))
    return {"obj": obj, "owner": owner, "bound": bound, "module": module, "text": text}


def _bind_failure(message: str) -> tuple[str, str | None]:
    quoted = _QUOTED.findall(message)
    name = quoted[0] if quoted else None
    if "too many positional" in message:
        return "too-many-positional", None
    if "unexpected keyword" in message or "positional only" in message:
        return "unexpected-keyword", name
    if "missing a required" in message:
        return "missing-argument", name
    if "multiple values" in message:
        return "multiple-values", name
    return "bind", name


def _try_bind(sig: inspect.Signature, args: list[object], kwargs: dict[str, object]) -> Any:
    try:
        return sig.bind(*args, **kwargs)
    except TypeError as exc:
        return exc


def _absorbed(sig: inspect.Signature, bound: inspect.BoundArguments) -> dict[str, Any]:
    keywords: list[str] = []
    positional = 0
    for name, param in sig.parameters.items():
        if param.kind is param.VAR_KEYWORD:
            keywords += sorted(bound.arguments.get(name, {}))
        elif param.kind is param.VAR_POSITIONAL:
            positional += len(bound.arguments.get(name, ()))
    return {"keywords": keywords, "positional": positional}


def _params(sig: inspect.Signature) -> dict[str, Any]:
    kinds = [p.kind for p in sig.parameters.values()]
    return {
        "signature": _short(str(sig), 500),
        "params": [p.name for p in sig.parameters.values() if p.kind not in (2, 4)],
        "var_positional": inspect.Parameter.VAR_POSITIONAL in kinds,
        "var_keyword": inspect.Parameter.VAR_KEYWORD in kinds,
    }


def _callee(found: dict[str, Any], self_rule: str) -> tuple[Any, int]:
    """What is called and how many positional arguments Python adds in front (the instance,
    for a function found on a class and called on an instance)."""
    obj, owner = found["obj"], found["owner"]
    if isinstance(obj, PropertyValue):
        raise Stop(_undecidable("bind", f"{found['text']} is a property's value"))
    if isinstance(obj, Instance):
        call = inspect.getattr_static(obj.cls, "__call__", None)
        if call is None or obj.cls.__call__ is type.__call__:
            raise Stop(_undecidable("bind", f"{found['text']} is an instance, not callable"))
        return obj.cls.__call__, 1 if _function_like(call) else 0
    on_instance = isinstance(owner, Instance) or (
        inspect.isclass(owner) and self_rule == "owner-instance"
    )
    return obj, 1 if found["bound"] and on_instance else 0


def bind(found: dict[str, Any], shape: dict[str, Any], self_rule: str) -> dict[str, Any]:
    obj, extra = _callee(found, self_rule)
    args = [object()] * (int(shape["positional"]) + extra)
    kwargs = {k: object() for k in shape["keywords"]}
    try:
        outer = inspect.signature(obj, follow_wrapped=False)
    except (ValueError, TypeError) as exc:
        return _undecidable("bind", f"no signature for {found['text']}: {exc}", compiled=True)
    try:
        inner = inspect.signature(obj)
    except (ValueError, TypeError):
        inner = outer
    first, second = _try_bind(outer, args, kwargs), _try_bind(inner, args, kwargs)
    if isinstance(first, TypeError):
        failure, name = _bind_failure(str(first))
        return {
            **_exc("bind", first),
            "bind": failure,
            "parameter": name,
            **_params(outer),
            "self_added": bool(extra),
        }
    more = {**_params(inner), "self_added": bool(extra), "wrapped": outer != inner}
    if isinstance(second, TypeError):
        return _undecidable(
            "bind",
            f"the wrapper {outer} takes the call but the function it wraps does not: {second}",
            **more,
        )
    return {"status": "works", "step": "bind", "absorbed": _absorbed(inner, second), **more}


def _import(module: str) -> Any:
    parts: list[tuple[str, list[str]]] = [(p, []) for p in module.split(".")]
    found, used = import_longest(parts)
    if used < len(parts):
        missing = ".".join(p for p, _ in parts[: used + 1])
        raise Stop(_exc("import", ModuleNotFoundError(f"No module named {missing!r}")))
    return found


def _from(module: Any, name: str) -> dict[str, Any]:
    """`from module import name`, as Python does it: the attribute, else the submodule."""
    try:
        getattr(module, name)
    except AttributeError:
        pass
    except Timeout:
        raise
    except BaseException as exc:
        raise Stop(_exc("import", exc, compiled=compiled(module))) from exc
    else:
        return {"status": "works", "step": "import", "compiled": compiled(module)}
    full = f"{module.__name__}.{name}"
    try:
        importlib.import_module(full)
    except ModuleNotFoundError as exc:
        if exc.name != full:
            raise Stop(_exc("import", exc)) from exc
        text = f"cannot import name {name!r} from {module.__name__!r}"
        raise Stop(_exc("import", ImportError(text), compiled=compiled(module))) from None
    except Timeout:
        raise
    except BaseException as exc:
        raise Stop(_exc("import", exc)) from exc
    return {"status": "works", "step": "import"}


def answer(query: dict[str, Any], trace: dict[str, Any]) -> dict[str, Any]:
    op = query["op"]
    if op == "import":
        return {"status": "works", "step": "import", "compiled": compiled(_import(query["module"]))}
    if op == "from":
        return _from(_import(query["module"]), query["name"])
    found = walk(query["chain"], trace)
    trace.pop("name", None)
    trace.pop("owner", None)
    if op == "chain":
        return {"status": "works", "step": "attribute", "compiled": compiled(found["owner"])}
    result = bind(found, query["shape"], query.get("self", "as-written"))
    return {**result, "compiled": bool(result.get("compiled")) or compiled(found["owner"])}


def _on_alarm(signum: int, frame: object) -> None:
    raise Timeout


def safe_answer(query: dict[str, Any], seconds: int) -> dict[str, Any]:
    caught: list[warnings.WarningMessage] = []
    trace: dict[str, Any] = {}
    signal.alarm(seconds)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = answer(query, trace)
    except Stop as stop:
        result = stop.answer
    except Timeout:
        result = _undecidable("timeout", f"no answer within {seconds} s")
    except BaseException as exc:
        result = _undecidable("probe", f"the probe failed: {type(exc).__name__}: {exc}")
    finally:
        signal.alarm(0)
    names = sorted({f"{w.category.__name__}: {_short(w.message, 160)}" for w in caught})
    return {"key": query["key"], "warnings": names[:5], **trace, **result}


def main(argv: list[str]) -> int:
    queries_path, answers_path, roots = argv[:3]
    seconds = int(argv[3]) if len(argv) > 3 else 30
    ROOTS.update(r for r in roots.split(",") if r)
    signal.signal(signal.SIGALRM, _on_alarm)
    with open(queries_path, encoding="utf-8") as source:
        queries = json.load(source)
    with open(answers_path, "a", encoding="utf-8") as out:
        for query in queries:
            out.write(json.dumps(safe_answer(query, seconds), sort_keys=True) + "\n")
            out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
