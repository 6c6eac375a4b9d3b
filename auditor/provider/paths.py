"""Module files for dotted paths: pure string work, no griffe (the warm path imports this)."""

from __future__ import annotations

MARKERS = ("()", "[]", "[*]")  # a call, an item, an element (see scan/facts.py)
STAR = "*"  # a part: `a.*.b` is what `from a import *` binds as `b` (a consumer star import)
OWNERS = "?"  # a part: `a.?.m` asks which classes the package `a` exports have a method `m`
PARAMETER = "@"  # a part prefix: `C().m.@x` is what method m of C declares for parameter x
UNDECLARED = "no type is declared for parameter"  # how such a lookup ends when it declares none


def bare(part: str) -> str:
    """A path part without its markers: `params[*]` -> `params`, `f()[]` -> `f`."""
    cut = min((i for i in (part.find("("), part.find("[")) if i >= 0), default=len(part))
    return part[:cut]


def prefixes(dotted: str) -> list[str]:
    """`a`, `a.b`, `a.b.c` for `a.b.c` (instance, element and star markers dropped)."""
    parts = [bare(p) for p in dotted.split(".") if p not in (STAR, OWNERS)]
    return [".".join(parts[:size]) for size in range(1, len(parts) + 1)]


def star_parts(dotted: str) -> tuple[str, str, str] | None:
    """`a.b.*.c.d` -> ("a.b", "c", ".d"): the module star-imported, the name it binds, and
    the rest of the path; None for a path with no star part."""
    module, found, rest = dotted.partition(f".{STAR}.")
    if not found:
        return None
    name, dot, tail = rest.partition(".")
    cut = min((i for i in (name.find("("), name.find("[")) if i >= 0), default=len(name))
    return module, name[:cut], name[cut:] + dot + tail


def owners_path(package: str, method: str) -> str:
    """The lookup that asks which classes `package` exports have method `method`."""
    return f"{package}.{OWNERS}.{method}"


def owners_parts(dotted: str) -> tuple[str, str] | None:
    """`a.?.m` -> ("a", "m"); None for any other path."""
    package, found, method = dotted.partition(f".{OWNERS}.")
    return (package, method) if found and "." not in package and method.isidentifier() else None


def through_parameter(dotted: str) -> bool:
    """A path through an override's parameter (`C().m.@x.y`)."""
    return f".{PARAMETER}" in dotted


def without_star(dotted: str) -> str:
    """The path with its star part dropped: `a.*.c.d` -> `a.c.d`."""
    return dotted.replace(f".{STAR}.", ".", 1)


def candidates(module: str) -> tuple[str, ...]:
    """The files that may hold a module: what Python runs first (a package before a module
    of the same name, as its finder looks), then the stubs, which only stand in for a
    module that has no Python source (a compiled one). A stub beside a `.py` is not what
    runs: it may omit private or deprecated names the module still defines."""
    base = module.replace(".", "/")
    return (f"{base}/__init__.py", f"{base}.py", f"{base}/__init__.pyi", f"{base}.pyi")


def module_files(dotted: str) -> list[str]:
    """Every file a lookup of `dotted` may read: each prefix as module or package."""
    return [file for prefix in prefixes(dotted) for file in candidates(prefix)]
