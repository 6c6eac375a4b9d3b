"""Consumer scan: calls, attribute chains, subclasses, overrides and super() calls."""

from __future__ import annotations

from textwrap import dedent

import pytest

from auditor.model import CallShape, ConsumerScan, Edge, Location, Param, ParamKind, Signature, Site
from auditor.scan import scan_consumer
from tests.helpers import DictTree

Row = tuple[str, str, int, CallShape | None]


def scan(files: dict[str, str]) -> ConsumerScan:
    tree = DictTree({path: dedent(text) for path, text in files.items()})
    return scan_consumer(tree, ["pkg"], ["vllm"])


def sites_in(result: ConsumerScan, path: str = "pkg/mod.py") -> list[Site]:
    return [s for s in result.sites if s.location.path == path]


def rows(source: str, *, imports: bool = False) -> list[Row]:
    sites = sites_in(scan({"pkg/mod.py": source}))
    return [
        (s.action.value, s.target, s.location.line, s.call)
        for s in sites
        if imports or s.action.value != "import"
    ]


def shape(positional: int = 0, *keywords: str, star: bool = False, kw: bool = False) -> CallShape:
    return CallShape(positional, tuple(keywords), star, kw)


CALLS: list[tuple[str, str, list[Row]]] = [
    (
        "call shape with * and **",
        "from vllm.x import F\nF(1, 2, *xs, a=1, b=2, **kw)\n",
        [("call", "vllm.x.F", 2, shape(2, "a", "b", star=True, kw=True))],
    ),
    (
        "only a starred positional",
        "from vllm.x import F\nF(*xs)\n",
        [("call", "vllm.x.F", 2, shape(0, star=True))],
    ),
    (
        "a chain that is read, not called",
        "import vllm.config\nx = vllm.config.CacheConfig\n",
        [("attribute", "vllm.config.CacheConfig", 2, None)],
    ),
    (
        "the longest chain only",
        "import vllm\nif vllm.envs.VLLM_FOO:\n    pass\n",
        [("attribute", "vllm.envs.VLLM_FOO", 2, None)],
    ),
    (
        "a called chain is a CALL, never an extra ATTRIBUTE",
        "import vllm\nvllm.a.b.f(1)\n",
        [("call", "vllm.a.b.f", 2, shape(1))],
    ),
    (
        "a classmethod on a from-imported class",
        "from vllm.v1.request import Request\nRequest.from_engine_core_request(r)\n",
        [("call", "vllm.v1.request.Request.from_engine_core_request", 2, shape(1))],
    ),
    (
        "an enum member",
        "from vllm.v1.request import RequestStatus\nf(RequestStatus.FINISHED_ABORTED)\n",
        [("attribute", "vllm.v1.request.RequestStatus.FINISHED_ABORTED", 2, None)],
    ),
    ("getattr is never guessed", "import vllm\ngetattr(vllm, name)(1)\n", []),
    ("calls on unknown objects give nothing", "def f(engine):\n    engine.step(1)\n", []),
    (
        "the result of a call is not followed",
        "import vllm\nvllm.make()(1).run()\n",
        [("call", "vllm.make", 2, shape())],
    ),
    (
        "calling an item of a registry is a call of the item (its annotation decides)",
        "import vllm\nvllm.REGISTRY['x'](1)\n",
        [("call", "vllm.REGISTRY[]", 2, shape(1))],
    ),
    (
        "assigning to a provider attribute reads its owner and stores the attribute",
        "import vllm\nvllm.envs.VLLM_FOO = 1\n",
        [("attribute", "vllm.envs", 2, None), ("attribute", "vllm.envs.VLLM_FOO", 2, None)],
    ),
    (
        "calls in arguments, keywords and nested calls",
        "from vllm import A, B\nA(x=B(1), y=[B(k=2)])\n",
        [
            ("call", "vllm.A", 2, shape(0, "x", "y")),
            ("call", "vllm.B", 2, shape(1)),
            ("call", "vllm.B", 2, shape(0, "k")),
        ],
    ),
    (
        "decorators and defaults belong to the enclosing scope",
        "import vllm\n@vllm.register('x')\ndef f(c=vllm.Config()):\n    pass\n",
        [("call", "vllm.register", 2, shape(1)), ("call", "vllm.Config", 3, shape())],
    ),
    (
        "a class body's names are not visible from its methods",
        "from vllm import F\nclass C:\n    F = 1\n    def m(self):\n        F()\n",
        [("call", "vllm.F", 5, shape())],
    ),
    (
        "a class attribute shadows the import inside the class body",
        "from vllm import F\nclass C:\n    F = 1\n    x = F()\n",
        [],
    ),
    (
        "`global` reaches the module's binding",
        "from vllm import F\ndef f():\n    global F\n    F()\n",
        [("call", "vllm.F", 4, shape())],
    ),
    (
        "a `global` store in a function rebinds the module's name",
        "from vllm import F\ndef reset():\n    global F\n    F = None\nF()\n",
        [],
    ),
    (
        "lambda and comprehension parameters shadow",
        "from vllm import F\ng = lambda F: F()\nh = [F() for F in xs]\n",
        [],
    ),
    (
        "walrus in a comprehension binds in the function",
        "from vllm import F\ndef f():\n    [(F := 1) for _ in xs]\n    F()\n",
        [],
    ),
]


@pytest.mark.parametrize(("source", "expected"), [c[1:] for c in CALLS], ids=[c[0] for c in CALLS])
def test_calls_and_attributes(source: str, expected: list[Row]) -> None:
    assert rows(source) == expected


def test_call_location_spans_the_call() -> None:
    source = "from vllm.x import F\nresult = F(\n    a=1,\n)\n"
    (site,) = [s for s in sites_in(scan({"pkg/mod.py": source})) if s.call is not None]
    assert site.location == Location("pkg/mod.py", 2, 10, 4, 2)


def test_scope_of_calls_in_methods_lambdas_and_comprehensions() -> None:
    source = """\
        from vllm import F
        class C:
            def m(self):
                g = lambda: F(1)
                return [F(2) for _ in range(3)]
        F(3)
        """
    scopes = [(s.location.line, s.scope) for s in sites_in(scan({"pkg/mod.py": source}))]
    assert scopes == [(1, "pkg.mod"), (4, "pkg.mod.C.m"), (5, "pkg.mod.C.m"), (6, "pkg.mod")]


# --------------------------------------------------------------------------- classes

BASE = "from vllm.x import Base\n"

CLASSES: list[tuple[str, str, list[Row]]] = [
    (
        "subclass through an attribute chain",
        "import vllm.x\nclass C(vllm.x.Base):\n    pass\n",
        [("subclass", "vllm.x.Base", 2, None)],
    ),
    (
        "subclass of a generic base",
        BASE + "class C(Base[int]):\n    pass\n",
        [("subclass", "vllm.x.Base", 2, None)],
    ),
    (
        "overrides: __init__, __call__ and plain methods, not other dunders",
        BASE
        + "class C(Base):\n    def __init__(self): ...\n    def __repr__(self): ...\n"
        + "    def __call__(self): ...\n    async def forward(self): ...\n",
        [
            ("subclass", "vllm.x.Base", 2, None),
            ("override", "vllm.x.Base.__init__", 3, None),
            ("override", "vllm.x.Base.__call__", 5, None),
            ("override", "vllm.x.Base.forward", 6, None),
        ],
    ),
    (
        "super().__init__ with a call shape",
        BASE + "class C(Base):\n    def __init__(self, a):\n        super().__init__(a, b=1)\n",
        [
            ("subclass", "vllm.x.Base", 2, None),
            ("override", "vllm.x.Base.__init__", 3, None),
            ("super-call", "vllm.x.Base.__init__", 4, shape(1, "b")),
        ],
    ),
    (
        "super(C, self).meth",
        BASE + "class C(Base):\n    def run(self, x):\n        return super(C, self).step(x)\n",
        [
            ("subclass", "vllm.x.Base", 2, None),
            ("override", "vllm.x.Base.run", 3, None),
            ("super-call", "vllm.x.Base.step", 4, shape(1)),
        ],
    ),
    (
        "a consumer mixin first that lacks the method: the provider base",
        BASE
        + "class Mixin:\n    def other(self): ...\n"
        + "class C(Mixin, Base):\n    def __init__(self):\n        super().__init__()\n",
        [
            ("subclass", "vllm.x.Base", 4, None),
            ("override", "vllm.x.Base.__init__", 5, None),
            ("super-call", "vllm.x.Base.__init__", 6, shape()),
        ],
    ),
    (
        "a consumer mixin first that defines the method takes the call",
        BASE
        + "class Mixin:\n    def __init__(self): ...\n"
        + "class C(Mixin, Base):\n    def __init__(self):\n        super().__init__()\n",
        [("subclass", "vllm.x.Base", 4, None), ("override", "vllm.x.Base.__init__", 5, None)],
    ),
    (
        "provider base inherited through a consumer base",
        BASE
        + "class A(Base):\n    pass\n"
        + "class B(A):\n    def forward(self):\n        return super().forward()\n",
        [
            ("subclass", "vllm.x.Base", 2, None),
            ("override", "vllm.x.Base.forward", 5, None),
            ("super-call", "vllm.x.Base.forward", 6, shape()),
        ],
    ),
    (
        "no provider base, no override",
        "class C(object):\n    def forward(self):\n        return super().forward()\n",
        [],
    ),
]


@pytest.mark.parametrize(
    ("source", "expected"), [c[1:] for c in CLASSES], ids=[c[0] for c in CLASSES]
)
def test_classes(source: str, expected: list[Row]) -> None:
    assert rows(source) == expected


def test_subclass_and_override_scopes_and_override_location() -> None:
    source = BASE + "class C(Base):\n    @property\n    def forward(self): ...\n"
    sites = sites_in(scan({"pkg/mod.py": source}))
    summary = [(s.action.value, s.scope) for s in sites if s.action.value != "import"]
    assert summary == [("subclass", "pkg.mod.C"), ("override", "pkg.mod.C.forward")]
    assert sites[-1].location == Location("pkg/mod.py", 4, 9, 4, 16)


def test_provider_base_from_another_consumer_module() -> None:
    files = {
        "pkg/base.py": "from vllm.x import Base\nclass Local(Base):\n    pass\n",
        "pkg/mod.py": "from .base import Local\nclass C(Local):\n    def step(self): ...\n",
    }
    assert [(s.action.value, s.target) for s in sites_in(scan(files))] == [
        ("override", "vllm.x.Base.step")
    ]


def test_super_into_a_consumer_base_is_an_edge() -> None:
    source = """\
        class A:
            def run(self): ...
        class B(A):
            def run(self):
                return super().run()
        """
    result = scan({"pkg/mod.py": source})
    assert Edge("pkg.mod.B.run", "pkg.mod.A.run") in result.edges
    assert Edge("pkg.mod.B", "pkg.mod.A") in result.edges
    assert result.sites == ()


# --------------------------------------------------------------------------- override signatures

DECORATED_BASE = "from vllm.x import Base\nimport functools\nfrom abc import abstractmethod\n"
POK = ParamKind.POSITIONAL_OR_KEYWORD


@pytest.mark.parametrize(
    ("method", "expected"),
    [
        (
            "def forward(self, x, *args, y=1, **kw) -> int: ...",
            Signature(
                (
                    Param("x", POK),
                    Param("args", ParamKind.VAR_POSITIONAL),
                    Param("y", ParamKind.KEYWORD_ONLY, "1"),
                    Param("kw", ParamKind.VAR_KEYWORD),
                ),
                "int",
            ),
        ),
        (
            "def forward(self, a: int, /, b: 'T' = None, *, c): ...",
            Signature(
                (
                    Param("a", ParamKind.POSITIONAL_ONLY, None, "int"),
                    Param("b", POK, "None", "'T'"),
                    Param("c", ParamKind.KEYWORD_ONLY),
                )
            ),
        ),
        ("@staticmethod\ndef forward(x): ...", Signature((Param("x", POK),))),
        ("@classmethod\ndef forward(cls, x): ...", Signature((Param("x", POK),))),
        ("@abstractmethod\ndef forward(self, x): ...", Signature((Param("x", POK),))),
        ("def forward(*args): ...", Signature((Param("args", ParamKind.VAR_POSITIONAL),))),
        ("@property\ndef forward(self): ...", None),
        ("@functools.cached_property\ndef forward(self): ...", None),
        ("@my_decorator\ndef forward(self, x): ...", None),
    ],
    ids=["kinds", "posonly", "static", "class", "abstract", "varargs", "prop", "cached", "own"],
)
def test_override_carries_the_consumer_signature(method: str, expected: Signature | None) -> None:
    body = "\n".join("    " + line for line in method.splitlines())
    source = DECORATED_BASE + "class C(Base):\n" + body + "\n"
    (override,) = [
        s for s in sites_in(scan({"pkg/mod.py": source})) if s.action.value == "override"
    ]
    assert override.override == expected
