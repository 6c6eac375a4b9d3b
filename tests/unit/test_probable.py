"""`probable` (auditor/probable.py): which undecided calls ask for it, and the rule."""

from __future__ import annotations

import pytest

from auditor.model import Action, Location, Lookup, Resolution, Site, Symbol, SymbolKind
from auditor.probable import evidence, owners_of

WHERE = Location("widget/a.py", 1, 1, 1, 2)


def _site(target: str) -> Site:
    return Site(Action.CALL, target, "widget.f", WHERE)


class _Asked:
    def __init__(self) -> None:
        self.asked: list[str] = []

    def resolve(
        self, dotted: str, *, module_only: bool = False, from_import: bool = False
    ) -> Resolution:
        self.asked.append(dotted)
        return Resolution(Lookup.MISSING_NAME, dotted)


@pytest.mark.parametrize(
    ("target", "asks"),
    [
        ("acme.load().mad", "acme.?.mad"),  # a method of a value the tool cannot type
        ("acme.Frame()[].iteritems", "acme.?.iteritems"),
        ("acme.load().items", None),  # dict has items: never
        ("acme.load()._mad", None),  # private: never
        ("acme.load().__len__", None),
        ("acme.tools.mad", None),  # a module's function: its own lookup decides
        ("acme.load().mad()[]", None),  # not the method call itself
    ],
)
def test_only_a_public_method_of_a_value_no_builtin_has_asks(target: str, asks: str | None) -> None:
    resolver = _Asked()
    owners_of(_site(target), resolver)
    assert resolver.asked == ([asks] if asks else [])


def _had(*classes: str, may: str = "") -> Resolution:
    symbol = Symbol("|".join(classes), SymbolKind.ATTRIBUTE)
    return Resolution(Lookup.FOUND, "acme.?.mad", symbol=symbol, detail=may)


def _gone(may: str = "") -> Resolution:
    return Resolution(Lookup.MISSING_NAME, "acme.?.mad", detail=may)


def test_a_method_gone_from_every_class_that_had_it_is_probable() -> None:
    why = evidence(_site("acme.load().mad"), _had("acme.Frame", "acme.Series"), _gone())
    assert why is not None
    assert "`mad` was a method of acme.Frame and acme.Series" in why


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (_had("acme.Frame"), _had("acme.Frame")),  # still there
        (_had("acme.Frame"), _had("acme.Store")),  # another class has it now
        (_had("acme.Frame"), _gone(may="acme.Frame")),  # the target cannot tell for Frame
        (_gone(), _gone()),  # no class had it: not the provider's method
        (None, _gone()),  # no baseline: nothing changed that can be shown
        (Resolution(Lookup.UNKNOWN, "acme.?.mad"), _gone()),
    ],
)
def test_anything_less_is_not_probable(before: Resolution | None, after: Resolution) -> None:
    assert evidence(_site("acme.load().mad"), before, after) is None
