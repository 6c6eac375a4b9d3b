# Maintainers: what a name means in a module that star-imports a provider module.
#
# Owns: the candidates, in the order Python would find them, for a name read at the top
# level of a consumer module with a `from <provider module> import *`. Which names such an
# import binds is the provider's business, and differs between releases (its `__all__`, else
# its public names): so a provider star import gives a conditional candidate,
# `<module>.*.<name>` (provider/paths.py), that bind.check_site asks each release about. The
# star imports are taken last first (the last one to bind a name wins); behind a provider
# candidate come the fallbacks that hold when the provider does not bind the name: an earlier
# star import (a provider's, a consumer module's that binds it, or a module that cannot be
# read, which may), the module's own binding made before the star import (scopes.Scope
# .star_overwrites; one made after it always wins, and needs no star at all), else the
# builtin of that name. What the scan cannot follow (a plain store, a module it cannot
# read) is `<opaque>.<module>.<name>`, a path nothing resolves. A fallback makes the site
# guarded: a name the provider stops binding is then no break. A star import of a module
# that cannot be read (neither the consumer's nor a provider's) after the provider's may
# shadow the name: unknown, no candidate at all.
# Takes: a Scope, the provider import names, and a way to ask whether a consumer module
# binds a name. Gives: candidate paths. Never guesses a break: what cannot be known gives
# nothing, or a fallback.
from __future__ import annotations

import builtins
from dataclasses import dataclass
from typing import TYPE_CHECKING

from auditor.provider.paths import STAR
from auditor.scan.imports import root_of

if TYPE_CHECKING:
    from collections.abc import Callable

    from auditor.scan.scopes import Scope

BUILTINS = frozenset(dir(builtins))
OPAQUE = "<opaque>"  # the root of a fallback the scan cannot follow (the module's own value
# of the name, a plain store before the star import; a name a module it cannot read may
# bind): no module has that name, so nothing resolves it further, and it is no provider's


@dataclass(frozen=True, slots=True)
class StarLookup:
    """Star-import candidates for one name; `binds(module)`: whether a consumer module binds
    it (None: not a consumer module, its names cannot be read)."""

    providers: frozenset[str]
    binds: Callable[[str], bool | None]

    def candidates(
        self, scope: Scope, name: str, local: tuple[str, ...] | None, *, shadowed: bool
    ) -> tuple[str, ...]:
        """The paths `name` may stand for, first preferred; () when it cannot be known or
        no import binds it. `shadowed`: the module binds it itself, before the provider's
        star import (`local`: to what, when that is known)."""
        out: list[str] = []
        for module in reversed(scope.star_modules):
            if root_of(module) in self.providers:
                out.append(f"{module}.{STAR}.{name}")
                continue
            binds = self.binds(module)
            if binds is None and not out:
                return ()  # it may bind the name over every provider import before it
            if binds is None:
                return (*out, f"{OPAQUE}.{module}.{name}")  # it may bind the name
            if binds:
                return (*out, f"{module}.{name}")
        if shadowed:
            return (*out, *(local or (f"{OPAQUE}.{scope.module}.{name}",)))
        return (*out, f"builtins.{name}") if name in BUILTINS else tuple(out)
