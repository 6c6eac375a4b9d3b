"""Consumer scan: provider objects reached through consumer values (`()` targets).

Each case is a consumer module and the CALL/ATTRIBUTE sites it must give (imports and the
sites of plain provider names left out unless they matter), firing and silent side by side.
"""

from __future__ import annotations

from dataclasses import dataclass
from textwrap import dedent
from typing import TYPE_CHECKING

import pytest

from auditor.model import CallShape, ConsumerScan, Edge, Site
from auditor.scan import scan_consumer

if TYPE_CHECKING:
    from collections.abc import Iterator

Row = tuple[str, str, int, CallShape | None]


@dataclass
class MemoryTree:
    """A SourceTree over a dict of posix path -> text, walked in the dict's order."""

    files: dict[str, str]

    def read_text(self, path: str) -> str | None:
        return self.files.get(path)

    def is_dir(self, path: str) -> bool:
        return any(p.startswith(path.rstrip("/") + "/") for p in self.files)

    def walk(self) -> Iterator[str]:
        return iter(self.files)


def scan(files: dict[str, str]) -> ConsumerScan:
    tree = MemoryTree({path: dedent(text) for path, text in files.items()})
    return scan_consumer(tree, ["pkg"], ["vllm"])


def sites_in(result: ConsumerScan, path: str = "pkg/mod.py") -> list[Site]:
    return [s for s in result.sites if s.location.path == path]


def instance_rows(source: str) -> list[Row]:
    """The sites whose target goes through an object (`()` inside or a provider base)."""
    return [
        (s.action.value, s.target, s.location.line, s.call)
        for s in sites_in(scan({"pkg/mod.py": source}))
        if s.action.value in ("call", "attribute") and "()" in s.target
    ]


def shape(positional: int = 0, *keywords: str, star: bool = False, kw: bool = False) -> CallShape:
    return CallShape(positional, tuple(keywords), star, kw)


S = "vllm.x.Scheduler()"
HEAD = "from vllm.x import Scheduler, make\nimport vllm\n"  # line 1-2: code starts at line 3

# --------------------------------------------------------------------------- locals

LOCALS: list[tuple[str, str, list[Row]]] = [
    (
        "a method called on a local made by a provider constructor",
        "def f(req):\n    x = Scheduler(1)\n    x.add_request(req)\n",
        [("call", f"{S}.add_request", 5, shape(1))],
    ),
    (
        "an attribute chain on a local",
        "def f():\n    x = Scheduler()\n    return x.kv_cache_manager.usage\n",
        [("attribute", f"{S}.kv_cache_manager.usage", 5, None)],
    ),
    (
        "through a dotted constructor",
        "def f():\n    x = vllm.x.Scheduler()\n    x.schedule()\n",
        [("call", f"{S}.schedule", 5, shape())],
    ),
    (
        "the result of a provider function",
        "def f():\n    cfg = make(1)\n    cfg.m(a=1)\n",
        [("call", "vllm.x.make().m", 5, shape(0, "a"))],
    ),
    (
        "a chain straight through a provider call",
        "vllm.x.make().m(1).n\n",
        [
            ("call", "vllm.x.make().m", 3, shape(1)),
            ("attribute", "vllm.x.make().m().n", 3, None),
        ],
    ),
    (
        "a module-level instance used in a function",
        "engine = Scheduler()\ndef f():\n    engine.step()\n",
        [("call", f"{S}.step", 5, shape())],
    ),
    (
        "a closure reads the enclosing function's local",
        "def f():\n    x = Scheduler()\n    def g():\n        return x.step()\n",
        [("call", f"{S}.step", 6, shape())],
    ),
    (
        "`None` is neutral: the call runs only on a Scheduler",
        "def f(c):\n    x = None\n    if c:\n        x = Scheduler()\n    x.step()\n",
        [("call", f"{S}.step", 7, shape())],
    ),
    (
        "a walrus in a loop condition",
        "def f(x: Scheduler):\n    while (out := x.schedule()).total > 0:\n        out.ids\n",
        [
            ("attribute", f"{S}.schedule().total", 4, None),
            ("call", f"{S}.schedule", 4, shape()),
            ("attribute", f"{S}.schedule().ids", 5, None),
        ],
    ),
    (
        "an alias of a provider function is a call of it",
        "def f():\n    fn = vllm.x.make\n    fn(1, k=2)\n",
        [],  # no `()` in the target: see test_alias_of_a_provider_callable
    ),
    (
        "silent: a local rebound to something else in the same function",
        "def f(other):\n    x = Scheduler()\n    x = other\n    x.step()\n",
        [],
    ),
    (
        "silent: a loop variable of the same name",
        "def f(xs):\n    x = Scheduler()\n    for x in xs:\n        x.step()\n",
        [],
    ),
    (
        "silent: unpacking",
        "def f():\n    x, y = Scheduler(), 1\n    x.step()\n",
        [],
    ),
    (
        "silent: `with ... as x` is whatever __enter__ returns",
        "def f():\n    with Scheduler() as x:\n        x.step()\n",
        [],
    ),
    (
        "silent: an unknown object",
        "def f(engine):\n    engine.step(1)\n",
        [],
    ),
    (
        "silent: getattr",
        "def f():\n    x = Scheduler()\n    getattr(x, 'step')()\n",
        [],
    ),
    (
        "silent: reading the instance alone asks the provider nothing",
        "def f(use):\n    x = Scheduler()\n    use(x)\n    return x\n",
        [],
    ),
    (
        "silent: calling a provider object (`__call__`) is not followed",
        "def f():\n    x = Scheduler()\n    x(1)\n    make()(1).run()\n",
        [],
    ),
    (
        "silent: a comprehension variable",
        "def f(xs):\n    return [x.step() for x in xs]\n",
        [],
    ),
    (
        "silent: rebound through `global` in another function",
        "engine = Scheduler()\ndef reset(o):\n    global engine\n    engine = o\n"
        "def f():\n    engine.step()\n",
        [],
    ),
    (
        "silent: awaiting is not followed",
        "async def f():\n    x = await make()\n    x.step()\n",
        [],
    ),
]


@pytest.mark.parametrize(
    ("source", "expected"), [c[1:] for c in LOCALS], ids=[c[0] for c in LOCALS]
)
def test_locals(source: str, expected: list[Row]) -> None:
    assert instance_rows(HEAD + source) == expected


def test_alias_of_a_provider_callable() -> None:
    source = HEAD + "def f():\n    fn = vllm.x.make\n    fn(1, k=2)\n"
    calls = [(s.target, s.location.line, s.call) for s in sites_in(scan({"pkg/mod.py": source}))]
    assert ("vllm.x.make", 5, shape(1, "k")) in calls


def test_instance_site_fields() -> None:
    source = HEAD + "def f(req):\n    x = Scheduler()\n    x.add_request(req)\n"
    (site,) = [s for s in sites_in(scan({"pkg/mod.py": source})) if "()" in s.target]
    assert (site.scope, site.via, site.guarded, site.store) == (
        "pkg.mod.f",
        "vllm.x.Scheduler",
        False,
        False,
    )
    assert (site.location.line, site.location.column) == (5, 5)


def test_value_made_under_an_import_guard_makes_its_sites_guarded() -> None:
    source = """\
        try:
            from vllm.x import Scheduler
            engine = Scheduler()
        except ImportError:
            engine = None
        def f():
            engine.step()
        """
    sites = [s for s in sites_in(scan({"pkg/mod.py": source})) if "()" in s.target]
    assert [(s.target, s.guarded) for s in sites] == [(f"{S}.step", True)]


# --------------------------------------------------------------------------- stores


def test_stores_into_provider_objects_are_marked() -> None:
    source = HEAD + "def f():\n    x = Scheduler()\n    x.cfg.block_size = 1\n    x.n += 1\n"
    sites = [s for s in sites_in(scan({"pkg/mod.py": source})) if "()" in s.target]
    assert [(s.target, s.location.line, s.store) for s in sites] == [
        (f"{S}.cfg", 5, False),
        (f"{S}.cfg.block_size", 5, True),
        (f"{S}.n", 6, True),
    ]


def test_module_attribute_store_is_marked() -> None:
    sites = sites_in(scan({"pkg/mod.py": "import vllm\nvllm.envs.VLLM_FOO = 1\ndel vllm.envs.X\n"}))
    assert [(s.target, s.location.line, s.store) for s in sites if s.location.line > 1] == [
        ("vllm.envs", 2, False),
        ("vllm.envs.VLLM_FOO", 2, True),
        ("vllm.envs", 3, False),
    ]


# --------------------------------------------------------------------------- self attributes

SELF: list[tuple[str, str, list[Row]]] = [
    (
        "set in __init__, used in another method",
        """\
        class Gen:
            def __init__(self):
                self.scheduler = Scheduler(1)
            def run(self, req):
                self.scheduler.add_request(req)
                self.scheduler.finish_requests([req], 2)
        """,
        [
            ("call", f"{S}.add_request", 7, shape(1)),
            ("call", f"{S}.finish_requests", 8, shape(2)),
        ],
    ),
    (
        "used in a subclass's method",
        """\
        class A:
            def __init__(self):
                self.scheduler = Scheduler()
        class B(A):
            def run(self):
                return self.scheduler.schedule()
        """,
        [("call", f"{S}.schedule", 8, shape())],
    ),
    (
        "a consumer method annotated with a provider return type",
        """\
        from vllm.config import VllmConfig
        class Gen:
            def __init__(self):
                self.cfg = self._make()
                self.cfg.cache_config.num_gpu_blocks = 4
            def _make(self) -> VllmConfig:
                return VllmConfig()
        """,
        [
            ("attribute", "vllm.config.VllmConfig().cache_config", 7, None),
            ("attribute", "vllm.config.VllmConfig().cache_config.num_gpu_blocks", 7, None),
        ],
    ),
    (
        "a property annotated with a provider type",
        """\
        class Gen:
            @property
            def scheduler(self) -> "Scheduler":
                return self._s
            def run(self):
                return self.scheduler.schedule()
        """,
        [("call", f"{S}.schedule", 8, shape())],
    ),
    (
        "a class-level annotation (dataclass field)",
        """\
        class Holder:
            scheduler: Scheduler
        def f(h: Holder):
            h.scheduler.step()
        """,
        [("call", f"{S}.step", 6, shape())],
    ),
    (
        "`self.x: T` in a method",
        """\
        class Gen:
            def __init__(self, s):
                self.s: Scheduler = s
            def run(self):
                self.s.step()
        """,
        [("call", f"{S}.step", 7, shape())],
    ),
    (
        "from an annotated parameter",
        """\
        class Gen:
            def __init__(self, s: Scheduler | None = None):
                self.s = s
            def run(self):
                self.s.step()
        """,
        [("call", f"{S}.step", 7, shape())],
    ),
    (
        "silent: set to two different things",
        """\
        class Gen:
            def __init__(self):
                self.s = Scheduler()
            def reset(self, other):
                self.s = other
            def run(self):
                self.s.step()
        """,
        [],
    ),
    (
        "silent: a subclass sets it to something else",
        """\
        class A:
            def __init__(self):
                self.s = Scheduler()
            def run(self):
                self.s.step()
        class B(A):
            def __init__(self, other):
                self.s = other
        """,
        [],
    ),
    (
        "silent: an async method's result is a coroutine",
        """\
        class Gen:
            def __init__(self):
                self.s = self._make()
            async def _make(self) -> Scheduler: ...
            def run(self):
                self.s.step()
        """,
        [],
    ),
    (
        "silent: a decorator we cannot name may change the return",
        """\
        class Gen:
            def __init__(self):
                self.s = self._make()
            @my_cache
            def _make(self) -> Scheduler: ...
            def run(self):
                self.s.step()
        """,
        [],
    ),
    (
        "silent: an augmented store",
        """\
        class Gen:
            def __init__(self):
                self.s = Scheduler()
                self.s += 1
            def run(self):
                self.s.step()
        """,
        [],
    ),
]


@pytest.mark.parametrize(("source", "expected"), [c[1:] for c in SELF], ids=[c[0] for c in SELF])
def test_self_attributes(source: str, expected: list[Row]) -> None:
    assert instance_rows(HEAD + dedent(source)) == expected


def test_consumer_object_chain_across_modules() -> None:
    """`generator.vllm_config.cache_config.x`: the class sets `self.vllm_config`."""
    files = {
        "pkg/gen.py": """\
            from vllm.config import VllmConfig
            class Generator:
                def __init__(self):
                    self.vllm_config = self._create()
                def _create(self) -> VllmConfig: ...
            """,
        "pkg/mod.py": """\
            from __future__ import annotations
            from typing import TYPE_CHECKING
            if TYPE_CHECKING:
                from pkg.gen import Generator
            def report(generator: Generator, other: "Generator"):
                generator.vllm_config.cache_config.gpu_memory_utilization
                other.vllm_config
            """,
    }
    sites = sites_in(scan(files))
    assert [(s.target, s.location.line, s.guarded) for s in sites] == [
        ("vllm.config.VllmConfig().cache_config.gpu_memory_utilization", 6, False)
    ]


def test_a_store_from_outside_the_class_counts() -> None:
    source = """\
        class Gen:
            def __init__(self):
                self.s = Scheduler()
            def run(self):
                self.s.step()
        def patch(g: Gen, other):
            g.s = other
        """
    assert instance_rows(HEAD + dedent(source)) == []


# --------------------------------------------------------------------------- annotations


@pytest.mark.parametrize(
    "annotation",
    [
        "Scheduler",
        "vllm.x.Scheduler",
        "'Scheduler'",
        "Optional[Scheduler]",
        "'Optional[Scheduler]'",
        "typing.Optional[Scheduler]",
        "Scheduler | None",
        "None | Scheduler",
        "Union[Scheduler, None]",
        "Annotated[Scheduler, 'doc']",
        "Final[Scheduler]",
    ],
)
def test_annotated_parameter_is_an_instance(annotation: str) -> None:
    source = (
        "import typing\nfrom typing import Annotated, Final, Optional, Union\n"
        + HEAD
        + f"def f(x: {annotation}):\n    x.step(1)\n"
    )
    assert instance_rows(source) == [("call", f"{S}.step", 6, shape(1))]


@pytest.mark.parametrize(
    "annotation",
    ["list[Scheduler]", "Union[Scheduler, int]", "Scheduler | int", "'not valid('", "Final"],
)
def test_annotations_that_name_no_single_class_are_silent(annotation: str) -> None:
    source = (
        "from typing import Final, Union\n" + HEAD + f"def f(x: {annotation}):\n    x.step(1)\n"
    )
    assert instance_rows(source) == []


ANNOTATED: list[tuple[str, str, list[Row]]] = [
    (
        "a local annotation wins over an unknown value",
        "def f(o):\n    x: Scheduler = o.get()\n    x.step()\n",
        [("call", f"{S}.step", 5, shape())],
    ),
    (
        "silent: an annotated parameter rebound to something unknown",
        "def f(x: Scheduler, o):\n    x = o\n    x.step()\n",
        [],
    ),
    (
        "a consumer function's return annotation",
        "def make_s() -> Scheduler: ...\ndef f():\n    make_s().add_request(1)\n"
        "    s = make_s()\n    s.schedule()\n",
        [("call", f"{S}.add_request", 5, shape(1)), ("call", f"{S}.schedule", 7, shape())],
    ),
    (
        "silent: a consumer function defined twice",
        "def make_s() -> Scheduler: ...\ndef make_s() -> int: ...\nmake_s().step()\n",
        [],
    ),
    (
        "`type[T]` is the class itself",
        "def f(cls: type[Scheduler]):\n    return cls.from_config(1).step()\n",
        [("call", "vllm.x.Scheduler.from_config().step", 4, shape())],
    ),
]


@pytest.mark.parametrize(
    ("source", "expected"), [c[1:] for c in ANNOTATED], ids=[c[0] for c in ANNOTATED]
)
def test_annotations_and_returns(source: str, expected: list[Row]) -> None:
    assert instance_rows(HEAD + source) == expected


def test_type_of_t_gives_a_class_method_call() -> None:
    source = HEAD + "def f(cls: type[Scheduler]):\n    return cls.from_config(1)\n"
    targets = [(s.target, s.call) for s in sites_in(scan({"pkg/mod.py": source}))]
    assert ("vllm.x.Scheduler.from_config", shape(1)) in targets


def test_a_generic_provider_class_annotation() -> None:
    source = HEAD + "def f(x: 'Scheduler[int]'):\n    x.step()\n"
    assert instance_rows(source) == [("call", f"{S}.step", 4, shape())]


# --------------------------------------------------------------------------- subclasses

SUBCLASSES: list[tuple[str, str, list[Row]]] = [
    (
        "a method the consumer subclass does not define, on an instance",
        """\
        class MyWorker(vllm.Worker):
            def mine(self): ...
        def f():
            w = MyWorker()
            w.load_model(1)
            w.mine()
        """,
        [("call", "vllm.Worker().load_model", 7, shape(1))],
    ),
    (
        "a provider method reached through self",
        """\
        class Mixin:
            def helper(self): ...
        class MyWorker(Mixin, vllm.Worker):
            def run(self):
                self.helper()
                self.execute_model(1)
                return self.model_runner.model
        """,
        [
            ("call", "vllm.Worker().execute_model", 8, shape(1)),
            ("attribute", "vllm.Worker().model_runner.model", 9, None),
        ],
    ),
    (
        "through a consumer base that derives from the provider",
        """\
        class Base(vllm.Worker):
            pass
        class Mine(Base):
            def run(self):
                self.execute_model()
        """,
        [("call", "vllm.Worker().execute_model", 7, shape())],
    ),
    (
        "silent: an attribute the consumer stores itself",
        """\
        class MyWorker(vllm.Worker):
            def __init__(self, x):
                self.extra = x
            def run(self):
                self.extra.go()
        """,
        [],
    ),
    (
        "silent: a consumer subclass may define the method",
        """\
        class MyWorker(vllm.Worker):
            def run(self):
                self.hook()
        class Concrete(MyWorker):
            def hook(self): ...
        """,
        [],
    ),
    (
        "silent: __getattr__ answers anything",
        """\
        class MyWorker(vllm.Worker):
            def __getattr__(self, name): ...
            def run(self):
                self.anything()
        """,
        [],
    ),
    (
        "silent: no provider base",
        """\
        class Plain:
            def run(self):
                self.missing()
        """,
        [],
    ),
]


@pytest.mark.parametrize(
    ("source", "expected"), [c[1:] for c in SUBCLASSES], ids=[c[0] for c in SUBCLASSES]
)
def test_provider_subclasses(source: str, expected: list[Row]) -> None:
    assert instance_rows(HEAD + dedent(source)) == expected


def test_class_attribute_of_a_provider_subclass() -> None:
    source = HEAD + "class MyWorker(vllm.Worker):\n    pass\nMyWorker.from_config(1)\n"
    targets = [(s.target, s.call) for s in sites_in(scan({"pkg/mod.py": source}))]
    assert ("vllm.Worker.from_config", shape(1)) in targets


@pytest.mark.parametrize(
    "expression",
    ["x.__class__.__name__", "x.__dict__", "w.__private", "w.__class__"],
)
def test_dunder_and_private_attributes_are_not_followed(expression: str) -> None:
    source = HEAD + (
        "class MyWorker(vllm.Worker):\n    pass\n"
        f"def f(x: Scheduler, w: MyWorker):\n    return {expression}\n"
    )
    assert instance_rows(source) == []


# --------------------------------------------------------------------------- partial


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("import functools\nfunctools.partial(vllm.x.make, 1, a=2)\n", "vllm.x.make"),
        ("from functools import partial\npartial(make, a=2)\n", "vllm.x.make"),
        ("from functools import partial\ns = Scheduler()\npartial(s.step, a=2)\n", f"{S}.step"),
    ],
    ids=["dotted", "from-import", "bound-method"],
)
def test_partial_of_a_provider_callable_is_a_lower_bound_call(source: str, expected: str) -> None:
    sites = sites_in(scan({"pkg/mod.py": HEAD + source}))
    partial = [s for s in sites if s.target == expected and s.call is not None]
    (site,) = partial
    assert site.call is not None
    assert (site.call.keywords, site.call.star_args, site.call.star_kwargs) == (("a",), True, True)


@pytest.mark.parametrize(
    "source",
    [
        "from functools import partial\ndef mine(): ...\npartial(mine, 1)\n",
        "from functools import partial\npartial(*fns)\n",
        "from functools import partial\ns = Scheduler()\npartial(s, 1)\n",
    ],
    ids=["consumer-callable", "starred", "provider-object"],
)
def test_partial_of_anything_else_is_silent(source: str) -> None:
    sites = sites_in(scan({"pkg/mod.py": HEAD + source}))
    assert [s for s in sites if s.call is not None and s.location.line > 4] == []


# --------------------------------------------------------------------------- edges


def test_calls_on_consumer_objects_are_edges() -> None:
    files = {
        "pkg/gen.py": "class Gen:\n    def run(self): ...\n",
        "pkg/mod.py": "from pkg.gen import Gen\ndef main(g: Gen):\n    g.run()\n"
        "def other():\n    Gen().run()\n",
    }
    edges = scan(files).edges
    assert Edge("pkg.mod.main", "pkg.gen.Gen.run") in edges
    assert Edge("pkg.mod.other", "pkg.gen.Gen.run") in edges


def test_instances_are_deterministic_whatever_the_file_order() -> None:
    files = {
        "pkg/a.py": "from vllm.x import Scheduler\nclass A:\n    def __init__(self):\n"
        "        self.s = Scheduler()\n",
        "pkg/b.py": "from pkg.a import A\nclass B(A):\n    def run(self):\n        self.s.step()\n",
    }
    tree = {p: dedent(t) for p, t in files.items()}
    forward = scan_consumer(MemoryTree(tree), ["pkg"], ["vllm"])
    backward = scan_consumer(MemoryTree(dict(reversed(tree.items()))), ["pkg"], ["vllm"])
    assert forward == backward
    assert [s.target for s in forward.sites if "()" in s.target] == [f"{S}.step"]
