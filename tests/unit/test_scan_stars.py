"""Consumer scan: names a provider's `from m import *` may bind, and dicts spread into calls.

A star import of a provider module gives a site whose target is `m.*.name`: what each
release's `import *` binds is asked at binding time (bind.check_site). The candidates behind
it (a builtin, an earlier import, the module's own earlier binding) make it guarded; a name
bound after the import is the module's own. A spread dict whose keys are all known passes
exactly those keywords; one that may hold others keeps `**` a lower bound.
The interpreter's verdicts on the same shapes: tests/functional/test_trust_gate.py.
"""

from __future__ import annotations

from dataclasses import replace
from textwrap import dedent

import pytest

from auditor.model import CallShape, ConsumerScan, Site
from auditor.scan import scan_consumer
from tests.helpers import DictTree


def scan(files: dict[str, str]) -> ConsumerScan:
    tree = DictTree({path: dedent(text) for path, text in files.items()})
    return scan_consumer(tree, ["pkg"], ["vllm"])


def calls(source: str, **more: str) -> list[Site]:
    result = scan({"pkg/mod.py": source, **more})
    return [s for s in result.sites if s.location.path == "pkg/mod.py" and s.call is not None]


STARS = [
    ("a bare name", "from vllm.x import *\nF(1)\n", ("vllm.x.*.F", False, ())),
    ("a builtin falls back", "from vllm.x import *\nlen(1)\n", ("vllm.x.*.len", True, ())),
    (
        "the last star import first",
        "from vllm.a import *\nfrom vllm.b import *\nF()\n",
        ("vllm.b.*.F", True, ("vllm.a.*.F",)),
    ),
    (
        "an earlier def falls back",
        "def F(): pass\nfrom vllm.x import *\nF()\n",
        ("vllm.x.*.F", True, ()),
    ),
    ("a call through an instance", "from vllm.x import *\nE().m(1)\n", ("vllm.x.*.E", False, ())),
]


@pytest.mark.parametrize(("source", "expected"), [c[1:] for c in STARS], ids=[c[0] for c in STARS])
def test_a_name_a_provider_star_import_may_bind(
    source: str, expected: tuple[str, bool, tuple[str, ...]]
) -> None:
    site = calls(source)[0]
    assert (site.target, site.guarded, site.alternatives) == expected


@pytest.mark.parametrize(
    "source",
    [
        "from vllm.x import *\ndef F(): pass\nF()\n",  # bound after: the module's own
        "from vllm.x import *\nF = 1\nF()\n",
        "from vllm.x import *\nfrom os.path import *\nF()\n",  # may shadow it: unknown
    ],
)
def test_a_name_bound_after_the_star_import_or_shadowed_unseen_gives_no_star_site(
    source: str,
) -> None:
    assert [s.target for s in calls(source) if "*" in s.target] == []


def test_a_consumer_module_that_binds_the_name_after_a_provider_import_wins() -> None:
    source = "from vllm.x import *\nfrom .compat import *\nF()\n"
    sites = calls(source, **{"pkg/compat.py": "from vllm.y import F\n"})
    assert [s.target for s in sites] == ["vllm.y.F"]


def shape(*keywords: str, kw: bool) -> CallShape:
    return CallShape(0, keywords, False, kw)


SPREADS = [
    ("a display", 'from vllm import f\nf(**{"a": 1, "b": 2})\n', shape("a", "b", kw=False)),
    ("dict()", "from vllm import f\nf(**dict(a=1))\n", shape("a", kw=False)),
    (
        "a display and another spread",
        'from vllm import f\nf(**{"a": 1}, **x)\n',
        shape("a", kw=True),
    ),
    ("a display spreading more", 'from vllm import f\nf(**{"a": 1, **x})\n', shape(kw=True)),
    ("a module-level local", 'from vllm import f\nkw = {"a": 1}\nf(**kw)\n', shape("a", kw=False)),
    (
        "a local that gains a key",
        'from vllm import f\ndef g():\n    kw = {"a": 1}\n    kw["b"] = 2\n    f(**kw)\n',
        shape("a", "b", kw=False),
    ),
    (
        "a **kwargs with a default set",
        'from vllm import f\ndef g(**kw):\n    kw.setdefault("a", 1)\n    f(**kw)\n',
        shape("a", kw=True),
    ),
    (
        "a local popped in the same statement",
        'from vllm import f\ndef g():\n    kw = {"a": 1}\n    kw.pop("a") or f(**kw)\n',
        shape(kw=True),
    ),
    (
        "a local handed to globals()",
        'from vllm import f\ndef g():\n    kw = {"a": 1}\n    vars()\n    f(**kw)\n',
        shape(kw=True),
    ),
]


@pytest.mark.parametrize(
    ("source", "expected"), [c[1:] for c in SPREADS], ids=[c[0] for c in SPREADS]
)
def test_a_spread_passes_its_keys_and_stays_a_lower_bound_only_when_some_are_unknown(
    source: str, expected: CallShape
) -> None:
    found = [s.call for s in calls(source)]
    assert [replace(s, written=()) if s is not None else None for s in found] == [expected]


def test_a_key_a_spread_passes_is_placed_where_it_was_written() -> None:
    """The finding about a keyword a `**d` spread passes goes where the key was written."""
    source = (
        "from vllm import f\ndef g(**kw):\n"
        '    kw["a"] = 1\n    kw.setdefault("b", 2)\n    kw.update(c=3)\n    f(**kw)\n'
    )
    (site,) = calls(source)
    assert site.call is not None
    placed = {key: (at.line, at.column) for key, at in site.call.written}
    assert placed == {"a": (3, 5), "b": (4, 19), "c": (5, 15)}
