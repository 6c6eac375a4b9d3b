"""Decide by difference (auditor/difference.py): two releases' bases for one site, compared
by file and, where a file differs, by the definitions the lookups consulted there."""

from __future__ import annotations

import pytest

from auditor.difference import Basis, basis, same_by_definition, unchanged
from auditor.model import Lookup, Resolution, Symbol, SymbolKind

UNKNOWN = Resolution(Lookup.UNKNOWN, "acme.Thing().x", detail="outside", closed=True)
FOUND = Resolution(Lookup.FOUND, "acme.Thing", symbol=Symbol("acme.core.Thing", SymbolKind.CLASS))
ASKED = (("acme.Thing", False, False, FOUND), ("acme.Thing().x", False, False, UNKNOWN))

BASE = (
    "import external\nfrom acme.base import Mixin\n\n\n"
    "class Thing(external.Base, Mixin):\n    pass\n"
)
MIXIN = "class Mixin:\n    def m(self):\n        pass\n"
INIT = "from acme.core import Thing\n"


def _basis(files: dict[str, str]) -> Basis:
    digests = {"acme": "acme/__init__.py", "acme.core": "acme/core.py", "acme.base": "acme/base.py"}
    deps = tuple((m, f"{digests[m]}:{hash(text)}") for m, text in sorted(files.items()))
    found = basis(ASKED, lambda *_: deps)
    assert found is not None
    return found


def _same(before: dict[str, str], after: dict[str, str]) -> bool:
    def reader(files: dict[str, str]):  # type: ignore[no-untyped-def]
        by_path = {
            "acme/__init__.py": "acme",
            "acme/core.py": "acme.core",
            "acme/base.py": "acme.base",
        }
        return lambda path: files.get(by_path[path])

    old, new = _basis(before), _basis(after)
    readers = (reader(before), reader(after))
    return unchanged(old, new) or same_by_definition(old, new, readers, frozenset({"acme"}))


RELEASE = {"acme": INIT, "acme.core": BASE, "acme.base": MIXIN}


def test_the_same_files_are_unchanged() -> None:
    assert _same(RELEASE, dict(RELEASE))


@pytest.mark.parametrize(
    "edit",
    [
        {"acme.core": BASE + "\n\ndef added():\n    pass\n"},  # beside the class
        {"acme.base": MIXIN + "\n\nclass Other:\n    pass\n"},  # beside the base
        {"acme": INIT + "\nVERSION = '2'\n"},  # beside the re-export
        {"acme.core": "# a comment\n" + BASE},  # the lines move, the statements do not
    ],
)
def test_a_change_beside_what_the_lookups_consulted_is_unchanged(edit: dict[str, str]) -> None:
    assert _same(RELEASE, RELEASE | edit)


@pytest.mark.parametrize(
    "edit",
    [
        {"acme.core": BASE.replace("    pass", "    def x(self):\n        pass")},  # the class
        {"acme.base": MIXIN.replace("def m", "def x")},  # a base, through its import
        {"acme.core": BASE + "\nThing.x = 1\n"},  # the class written after it is defined
        {"acme.core": BASE + "\nThing = external.wrap(Thing)\n"},  # the name bound again
        {"acme.core": BASE.replace("import external", "import other as external")},
        {"acme": INIT + "globals().update(table())\n"},  # a namespace writer
        {"acme": "from acme.other import Thing\n"},  # the re-export leads elsewhere
        {"acme.core": BASE + "\nwhile True:\n    pass\n" + "Thing(\n"},  # no longer parses
    ],
)
def test_a_change_to_what_the_lookups_consulted_is_not_unchanged(edit: dict[str, str]) -> None:
    assert not _same(RELEASE, RELEASE | edit)


def test_other_lookups_or_answers_are_never_unchanged() -> None:
    old = _basis(RELEASE)
    other = (("acme.Thing", False, False, FOUND),)
    new = (other, old[1])
    assert not unchanged(old, new)
    assert not same_by_definition(old, new, (str, str), frozenset({"acme"}))


def test_an_unknown_that_is_not_closed_or_a_compiled_module_has_no_basis() -> None:
    opaque = Resolution(Lookup.UNKNOWN, "acme.x", detail="a call not followed")
    assert basis([("acme.x", False, False, opaque)], lambda *_: ()) is None
    assert basis(ASKED, lambda *_: (("acme._c", "compiled"),)) is None
    assert basis(ASKED, lambda *_: (("acme", "acme/__init__.py:unreadable"),)) is None
    assert basis(ASKED, lambda *_: None) is None


def test_a_class_edited_apart_from_the_attribute_asked_is_unchanged() -> None:
    edited = BASE.replace("    pass", "    def other(self):\n        return 1")
    assert _same(RELEASE, RELEASE | {"acme.core": edited})
    docstring = BASE.replace("    pass", "    '''Now documented.'''")
    assert _same(RELEASE, RELEASE | {"acme.core": docstring})


@pytest.mark.parametrize(
    "body",
    [
        "    def __getattr__(self, name):\n        return 1",  # a hook
        "    def __init__(self):\n        self.x = 1",  # the attribute set on self
        "    x = property(lambda self: 1)",  # the attribute itself
        "    def other(self):\n        setattr(self, 'x', 1)",  # written by name
    ],
)
def test_a_class_edited_where_the_attribute_asked_may_come_from_is_not(body: str) -> None:
    assert not _same(RELEASE, RELEASE | {"acme.core": BASE.replace("    pass", body)})
