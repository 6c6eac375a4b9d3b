# Maintainers: why a site is undecided, in a few stable words.
#
# Owns: CAUSES, the catalogue of undecided causes (slug and one line), and cause_of(), which
#       files an undecided site's reason (the sentence the provider analysis wrote: "numpy.x is
#       compiled and has no stub; arange may be in it") under one slug. The slug travels with
#       the site (model.Undecided.cause): --statistics counts by it, the JSON report and the
#       ecosystem rows carry it, and the world harness measures the undecided share by it.
# Takes: a reason string. Gives: a slug. Pure; the first pattern that matches wins.
"""The causes of undecided sites: a small catalogue and the rule that files a reason."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Cause:
    slug: str
    summary: str
    pattern: re.Pattern[str]


def _cause(slug: str, summary: str, pattern: str) -> Cause:
    return Cause(slug, summary, re.compile(pattern))


CAUSES = (
    _cause("stdlib", "a name the standard library's stub (typeshed) does not declare",
           r"is the standard library's; its typeshed stub"),
    _cause("compiled", "a compiled module or class with no stub that settles it",
           r"is compiled|is outside the provider"),
    _cause("overload", "an @overload set the call or its result cannot be chosen from",
           r"@overload"),
    _cause("decorated", "a decorator whose effect on the signature is not known",
           r"is decorated with|served at run time by its module; its signature"),
    _cause("namespace-writer", "names written into a module's namespace at run time",
           r"writes names into its namespace|gets attributes at import time|namespace model"
           r"|re-exports \* from|__all__ is not known|top level, which uses .* cannot be read"
           r"|lazy loader's names|served at run time; what it is"),
    _cause("data-keys", "a class that serves its data's keys as attributes",
           r"serves data keys"),
    _cause("module-getattr", "a module or class __getattr__ that cannot be evaluated for it",
           r"__getattr__|by a rule of its own|may be dynamic"),
    _cause("unresolved-base", "a base class that cannot be read",
           r"has a base that cannot be resolved|cyclic bases|hierarchy too deep"),
    _cause("metaclass", "a metaclass, class decorator or __init_subclass__ that may add names",
           r"metaclass|__init_subclass__|comes with (Enum|type)|may come from object"),
    _cause("instance-attribute", "an attribute set outside __init__",
           r"assigned outside __init__"),
    _cause("external", "a name re-exported from outside the provider",
           r"re-exported from outside the provider|too many re-exports"
           r"|namespace package; another distribution"),
    _cause("import-system", "a module attribute the import system sets",
           r"set by the import system"),
    _cause("untyped", "a value whose type is not known (not a provider class, or not tracked)",
           r"the type of|is not tracked|not known statically|calling or subscripting module"),
    _cause("signature", "a callable whose signature is not known",
           r"signature of .* is not known|__init__ is not a plain function"
           r"|__new__ and __init__ take different arguments"),
)  # fmt: skip
OTHER = "other"


def cause_of(reason: str) -> str:
    """The slug of the first cause whose pattern the reason matches; "other" if none."""
    for cause in CAUSES:
        if cause.pattern.search(reason):
            return cause.slug
    return OTHER
