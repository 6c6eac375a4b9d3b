"""forwards.forward_of: where a function's **kwargs go on to, read from its source."""

from __future__ import annotations

import ast

import pytest

from auditor.provider.forwards import Forward, forward_of


def forward(source: str) -> Forward | None:
    node = ast.parse(source).body[0]
    assert isinstance(node, ast.FunctionDef)
    return forward_of(node)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("def f(self, a, **kw):\n    super().__init__(a, **kw)", Forward("super")),
        ("def f(*d, **kw):\n    return mod.Thing(d, **kw)", Forward("mod.Thing")),
        (
            "def f(*d, **kw):\n    cls = kw.pop('cls', None) or Argument\n    return cls(d, **kw)",
            Forward("Argument", "cls", ("cls",)),
        ),
        (
            "def f(*d, **kw):\n    cls = kw.pop('cls', Argument)\n    return cls(d, **kw)",
            Forward("Argument", "cls", ("cls",)),
        ),
        (
            "def f(d, cls=None, **kw):\n    if cls is None:\n        cls = Option\n"
            "    return cls(d, **kw)",
            Forward("Option", "cls"),
        ),
        ("def f(**kw):\n    kw.pop('x')\n    return g(**kw)", Forward("g", taken=("x",))),
        ("def f(**kw):\n    kw.setdefault('t', 5)\n    return g(**kw)", Forward("g", added=("t",))),
        ("def f(**kw):\n    kw['cls'] = G\n    return g(**kw)", Forward("g", added=("cls",))),
    ],
)
def test_a_forward_is_read(source: str, expected: Forward) -> None:
    assert forward(source) == expected


@pytest.mark.parametrize(
    "source",
    [
        "def f(a):\n    return g(a)",  # no **kwargs
        "def f(**kw):\n    del kw['x']\n    return g(**kw)",  # a caller's key may be gone
        "def f(**kw):\n    kw.clear()\n    return g(**kw)",
        "def f(**kw):\n    kw = {}\n    return g(**kw)",  # rebound
        "def f(k, **kw):\n    kw[k] = 1\n    return g(**kw)",  # a key not spelled
        "def f(**kw):\n    return g(kw)",  # the dict itself handed on
        "def f(**kw):\n    g(**kw)\n    return h(**kw)",  # two targets
        "def f(self, **kw):\n    return self.build(**kw)",  # dispatched at run time
        "def f(cls, **kw):\n    return cls(**kw)",
        "def f(cls=Base, **kw):\n    return cls(**kw)",  # the caller may choose any class
    ],
)
def test_no_forward_when_it_is_not_certain(source: str) -> None:
    assert forward(source) is None
