"""A name a module defines and then binds again through its namespace (`globals()["run"] =
_impl`) is what the write bound, as `run = _impl` would make it; a write whose key is not
known leaves the names it may hit undecided (trust, round four, item 12)."""

from __future__ import annotations

import ast

import pytest

from auditor.model import Lookup
from auditor.provider import ProviderAPI
from auditor.provider.dynamic import _may_rebind
from tests.helpers import DictTree

DEFS = "def run(a, b=1, old=2): ...\ndef _impl(a, b=1, new=3): ...\n"
REBOUND = {  # the module's text after DEFS -> the signature `acme.m.run` has at run time
    'globals()["run"] = _impl\n': "(a, b=1, new=3)",
    "globals().update(run=_impl)\n": "(a, b=1, new=3)",
    'globals().update({"run": _impl})\n': "(a, b=1, new=3)",
    'globals().__setitem__("run", _impl)\n': "(a, b=1, new=3)",
    'vars()["run"] = _impl\n': "(a, b=1, new=3)",
    'locals()["run"] = _impl\n': "(a, b=1, new=3)",
    'namespace = globals()\nnamespace["run"] = _impl\n': "(a, b=1, new=3)",
    'import sys\nmodule = sys.modules[__name__]\nsetattr(module, "run", _impl)\n': (
        "(a, b=1, new=3)"
    ),
    'import sys\nsetattr(sys.modules[__name__], "run", _impl)\n': "(a, b=1, new=3)",
    'import sys\nsys.modules[__name__].__dict__["run"] = _impl\n': "(a, b=1, new=3)",
    'def _install():\n    globals()["run"] = _impl\n_install()\n': "(a, b=1, new=3)",
    'globals()["run"] = _impl\ndef run(a, b=1, old=2): ...\n': "(a, b=1, old=2)",
    'globals()["helper"] = _impl\n': "(a, b=1, old=2)",
    'globals().setdefault("run", _impl)\n': "(a, b=1, old=2)",
    'globals()["run"] = run\n': "(a, b=1, old=2)",
    'def _install():\n    globals()["run"] = _impl\n': "(a, b=1, old=2)",
    '_SEEN = globals().get("run")\n': "(a, b=1, old=2)",
    # a top level not followed to its end (a writing function that cannot be followed): the
    # source decides, and it writes no name that could be run
    'def _set(x):\n    if x:\n        globals()["other"] = x\n_set(load())\n': "(a, b=1, old=2)",
}
UNDECIDED = [  # what follows DEFS: `acme.m.run` may be another object; never the def's signature
    'import os\nif os.environ.get("X"):\n    globals()["run"] = _impl\n',
    'import json\nglobals()["run"] = json.dumps\n',
    'def _set(x):\n    if x:\n        globals()["run"] = x\n_set(load())\n',  # not followed
]
STANDS = [  # a write whose key is computed, not written out: the def is what the module defines
    "import os\nfor _k in sorted(os.environ)[:0]:\n    globals()[_k] = _impl\n",
    "globals().update(_NAMES)\n",
    "def _set(names):\n    for n in names:\n        globals()[n] = _impl\n_set(load())\n",
]


def _api(text: str) -> ProviderAPI:
    return ProviderAPI(DictTree({"acme/__init__.py": "", "acme/m.py": text}), ("acme",), "1")


@pytest.mark.parametrize(("tail", "signature"), REBOUND.items(), ids=list(REBOUND))
def test_a_namespace_write_rebinds_the_name_as_an_assignment_would(
    tail: str, signature: str
) -> None:
    for path in ("acme.m.run", "acme.m.*.run"):  # an attribute, and what `import *` binds
        found = _api(DEFS + tail).resolve(path)
        assert found.status is Lookup.FOUND, found
        assert found.symbol is not None and str(found.symbol.signature) == signature
    imported = _api(DEFS + tail).resolve("acme.m.run", from_import=True)
    assert imported.symbol is not None and str(imported.symbol.signature) == signature


@pytest.mark.parametrize("tail", UNDECIDED)
def test_a_write_that_may_rebind_the_name_leaves_it_undecided(tail: str) -> None:
    found = _api(DEFS + tail).resolve("acme.m.run")
    assert found.status is Lookup.UNKNOWN, found
    assert found.detail and "acme.m" in found.detail


@pytest.mark.parametrize("tail", STANDS)
def test_a_write_whose_key_is_computed_leaves_an_explicit_definition_standing(tail: str) -> None:
    """The model issue 36 states: a name the module defines (def, class, assignment) is what
    it defines, unless a write can be shown to name it; a computed key is not followed."""
    found = _api(DEFS + tail).resolve("acme.m.run")
    assert found.symbol is not None and str(found.symbol.signature) == "(a, b=1, old=2)"


def test_a_write_whose_key_is_not_known_spares_what_is_defined_after_it() -> None:
    text = "import os\nfor _k in sorted(os.environ)[:0]:\n    globals()[_k] = 1\n" + DEFS
    found = _api(text).resolve("acme.m.run")
    assert found.symbol is not None and str(found.symbol.signature) == "(a, b=1, old=2)"


def test_a_name_written_only_through_globals_takes_the_function_written() -> None:
    found = _api('def _impl(a, b=1, new=3): ...\nglobals()["run"] = _impl\n').resolve("acme.m.run")
    assert found.symbol is not None and str(found.symbol.signature) == "(a, b=1, new=3)"


@pytest.mark.parametrize(
    ("source", "name", "expected"),
    [
        ('globals()["run"] = f', "run", True),
        ('globals()["other"] = f', "run", False),
        ("globals()[key] = f", "run", False),
        ("globals().update(run=f)", "run", True),
        ("globals().update(other=f)", "run", False),
        ('globals().update({"other": f})', "run", False),
        ("globals().update(names)", "run", False),
        ("globals().update(**names)", "run", False),
        ('globals().update(**{"run": f})', "run", True),
        ('setattr(sys.modules[__name__], "run", f)', "run", True),
        ('locals()["run"] = f', "run", True),
        ("setattr(obj, 'run', f)", "run", False),
        ('x = globals().get("run")', "run", False),
    ],
)
def test_the_source_says_which_names_a_module_may_write(
    source: str, name: str, expected: bool
) -> None:
    """When the top level cannot be followed, the source alone decides what may be hit."""
    assert _may_rebind(ast.parse(source), name) is expected


def test_a_name_a_star_import_binds_is_rebound_by_a_later_write_only() -> None:
    """`from acme.core import *` binds run; a write after it rebinds it, one before it is
    undone by it when the star source exports the name (then it is not known which)."""
    core = {"acme/__init__.py": "", "acme/core.py": "def run(a, b=1, old=2): ...\n"}
    impl = "def _impl(a, b=1, new=3): ...\n"
    after = impl + 'from acme.core import *\nglobals()["run"] = _impl\n'
    before = impl + 'globals()["run"] = _impl\nfrom acme.core import *\n'
    api = ProviderAPI(DictTree({**core, "acme/a.py": after, "acme/b.py": before}), ("acme",), "1")
    rebound = api.resolve("acme.a.run").symbol
    assert rebound is not None and str(rebound.signature) == "(a, b=1, new=3)"
    assert api.resolve("acme.b.run").status is Lookup.UNKNOWN
