"""ProviderAPI: "what is `a.b.C` in this release?", answered lazily, one module at a time.

What it owns: visiting modules with `griffe.visit` only when a lookup reaches them (vLLM has
~1,500 modules; an audit touches a few dozen), parent packages first so relative imports
resolve; walking dotted paths through modules, re-exports (griffe aliases), wildcard imports,
submodules, classes and their bases; and instance paths: a part ending in `()` stands for an
instance of the class before it, or what the function before it returns (its return
annotation), so `vllm.x.Scheduler().add_request` is the bound method and
`vllm.config.VllmConfig().cache_config` the attribute's annotated type.

What it takes: a `SourceTree` (sources/). What it gives: `Resolution`s (model.py).

Module namespaces as they run (dynamic.py): a name a module does not define is looked up the
way the interpreter would, through its `__getattr__` (PEP 562), a lazy loader, or the names it
writes into `globals()` at import time; served, refused or undecided. Never guess: a name that
may be provided dynamically in a way that cannot be followed (a class with `__getattr__`,
`setattr`, an external base or wildcard) is UNKNOWN, not missing; a callable whose signature
cannot be known has `signature=None` and a reason.
"""

from __future__ import annotations

import griffe

from auditor.model import Lookup, Resolution, Symbol, SymbolKind
from auditor.provider.classes import Unknown
from auditor.provider.lookup import Unlisted, Unreadable, _Dynamic, _Missing
from auditor.provider.moves import MoveSearch
from auditor.provider.paths import owners_parts, prefixes, star_parts
from auditor.provider.signatures import SymbolBuilder


class ProviderAPI(SymbolBuilder, MoveSearch):
    """Answers lookups by dotted path against one provider release, loading modules lazily.

    Built in parts, one module each: loading.py (modules, state), exports.py (`__all__`),
    members.py (classes), resolution.py (paths), signatures.py (Symbols), moves.py."""

    # ------------------------------------------------------------------ public lookups

    def resolve(
        self, dotted: str, *, module_only: bool = False, from_import: bool = False
    ) -> Resolution:
        """What `dotted` is in this release: found (with a Symbol), missing, or unknown.

        `from_import`: the path is `from <all but the last part> import <last part>`, whose
        module part the import system imports (so no binding of a package shadows it)."""
        return self.resolve_tracked(dotted, module_only=module_only, from_import=from_import)[0]

    def resolve_tracked(
        self, dotted: str, *, module_only: bool = False, from_import: bool = False
    ) -> tuple[Resolution, frozenset[str]]:
        """The resolution and every module whose file it depended on (for the memo)."""
        key = (dotted, module_only, from_import)
        if key not in self._cache:
            self._wanted.update(prefixes(dotted))
            resolve = lambda: self._resolve(dotted, module_only, from_import)  # noqa: E731
            self._cache[key] = self._tracked(resolve)
        resolution, modules = self._cache[key]
        self._merge(modules)
        return resolution, modules

    def _resolve(self, dotted: str, module_only: bool, from_import: bool) -> Resolution:
        star = star_parts(dotted)
        owners = owners_parts(dotted)
        try:
            if owners is not None:  # `a.?.m`: which classes `a` exports have method m
                return self._owners_resolution(dotted, *owners)
            if star is not None:  # `a.*.b`: what a consumer's `from a import *` binds as b
                obj = self._star_bound(star[0], star[1])
            else:
                obj = self._find(dotted, depth=0, module_only=module_only, from_import=from_import)
        except _Missing as missing:
            status = Lookup.MISSING_MODULE if missing.module or module_only else Lookup.MISSING_NAME
            return Resolution(status, dotted, missing=missing.path)
        except Unreadable as unreadable:
            why = unreadable.reason
            return Resolution(Lookup.UNREADABLE, dotted, missing=unreadable.module, detail=why)
        except Unlisted as unlisted:
            why, closed = str(unlisted), unlisted.closed
            return Resolution(
                Lookup.UNLISTED, dotted, missing=unlisted.path, detail=why, closed=closed
            )
        except Unknown as unknown:
            return Resolution(Lookup.UNKNOWN, dotted, detail=str(unknown), closed=unknown.closed)
        except (griffe.AliasResolutionError, griffe.CyclicAliasError, RecursionError) as error:
            return Resolution(Lookup.UNKNOWN, dotted, detail=f"alias cycle or error: {error}")
        plain = obj.obj if isinstance(obj, _Dynamic) else obj
        if module_only and not isinstance(plain, griffe.Module):
            return Resolution(Lookup.MISSING_MODULE, dotted, missing=dotted)
        return Resolution(Lookup.FOUND, dotted, symbol=self._symbol(obj))

    def _owners_resolution(self, dotted: str, package: str, method: str) -> Resolution:
        """Found (the classes that have the method, `|`-joined, as the symbol's path; those
        that may, in `detail`) or missing (none has it; `detail` names those that may)."""
        have, unknown = self._owners(package, method)
        if not have:
            return Resolution(Lookup.MISSING_NAME, dotted, missing=dotted, detail="|".join(unknown))
        symbol = Symbol("|".join(have), SymbolKind.ATTRIBUTE)
        return Resolution(Lookup.FOUND, dotted, symbol=symbol, detail="|".join(unknown))


__all__ = ["ProviderAPI"]
