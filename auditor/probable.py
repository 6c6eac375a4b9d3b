# Maintainers: the evidence of a `probable` finding.
#
# Owns: which undecided call sites ask for it (`owners_of`: a call of a public method on a
#       value, not a module, that the analysis could not type, whose name no built-in type
#       has), the lookup that asks it (`a.?.m`, provider/paths.owners_path: which classes the
#       package `a`'s top level binds have a method `m`, and for which that cannot be known;
#       ProviderAPI answers it), and the rule (`evidence`): at the baseline some of those
#       classes had the method; at the target none of them has it, and none of the classes
#       that had it is one the target cannot tell about. Never an error: the value may be of
#       another type that has the method (Kind.PROBABLE is a warning).
# Takes: a Site and a resolver (bind.Resolver), the two releases' answers. Gives: the
# lookup's Resolution, and the sentence of evidence or None. Pure; no griffe.
"""`probable`: a method of the provider's classes, gone, called on a value of unknown type."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from auditor.model import Lookup
from auditor.provider.paths import MARKERS, PARAMETER, bare, owners_path

if TYPE_CHECKING:
    from auditor.model import Resolution, Site

BUILTIN_TYPES = (
    str, bytes, bytearray, memoryview, list, tuple, dict, set, frozenset, int, float,
    complex, bool, range, slice, object, type, BaseException,
)  # fmt: skip
BUILTIN_NAMES = frozenset(name for t in BUILTIN_TYPES for name in dir(t))


class Resolver(Protocol):
    def resolve(
        self, dotted: str, *, module_only: bool = False, from_import: bool = False
    ) -> Resolution: ...


def owners_of(site: Site, resolver: Resolver) -> Resolution | None:
    """For an undecided call `value.m(...)` whose value is an object (a part before `m`
    holds a call or an item marker), the answer to "which classes the provider's package
    exports have method m"; None when the site does not ask."""
    receiver, _, last = site.target.rpartition(".")
    method = bare(last)
    if method != last.removesuffix("()") or not method.isidentifier():
        return None  # `x.m()[0]`, `x.m()()`: not the method call itself
    if method.startswith("_") or method in BUILTIN_NAMES:
        return None
    if not any(marker in receiver for marker in MARKERS):
        return None  # a module or class path: its own lookup decides, not this rule
    if f".{PARAMETER}" in receiver:
        return None  # an override's parameter: only the type the provider declares counts
    return resolver.resolve(owners_path(site.target.split(".", 1)[0], method))


def evidence(site: Site, before: Resolution | None, after: Resolution | None) -> str | None:
    """The sentence that makes the call `probable`, or None: the baseline's exported
    classes that had the method, none of which has it (or may have it) at the target."""
    if before is None or after is None or before.symbol is None:
        return None
    if before.status is not Lookup.FOUND or after.status is not Lookup.MISSING_NAME:
        return None
    had = before.symbol.path.split("|")
    may = set((after.detail or "").split("|"))
    if may & set(had):
        return None
    method = bare(site.target.rpartition(".")[2])
    classes = " and ".join(had) if len(had) <= 3 else f"{', '.join(had[:3])} and others"
    return (
        f"`{method}` was a method of {classes} at the baseline, and no class the provider's "
        "package exports has it at the target"
    )
