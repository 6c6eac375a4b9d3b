"""Constructors derived statically must agree with what the class makers do at run time.

Each case is provider source defining `C`. The test derives `C`'s constructor with the
ProviderAPI (static: nothing is imported), then executes the same source for real (the
makers' libraries are test dependencies only) and tries every call shape of the case: the
binder must reject exactly the calls that fail at run time (TypeError, or pydantic's
ValidationError for missing or forbidden arguments).
"""

from __future__ import annotations

from textwrap import dedent
from typing import TYPE_CHECKING, Any

import pytest

from auditor.bind import bind
from auditor.model import CallShape
from auditor.provider import ProviderAPI
from tests.helpers import DictTree

if TYPE_CHECKING:
    from auditor.model import Signature


def derive(source: str, name: str = "C") -> Signature | None:
    api = ProviderAPI(DictTree({"acme/__init__.py": "", "acme/m.py": source}), ("acme",), "1")
    symbol = api.resolve(f"acme.m.{name}").symbol
    assert symbol is not None
    return symbol.signature


BINDING_ERRORS = {
    "missing",
    "missing_argument",
    "missing_keyword_only_argument",
    "missing_positional_only_argument",
    "extra_forbidden",
    "unexpected_keyword_argument",
    "unexpected_positional_argument",
    "multiple_argument_values",
}


def runtime_accepts(cls: Any, positional: int, keywords: tuple[str, ...]) -> bool:
    """Whether the call binds at run time (pydantic's type-validation errors aside)."""
    import pydantic

    try:
        cls(*range(positional), **dict.fromkeys(keywords, 0))
    except TypeError:
        return False
    except pydantic.ValidationError as error:
        return not any(e["type"] in BINDING_ERRORS for e in error.errors())
    return True


# (source, calls as (positional count, keywords))
CASES: dict[str, tuple[str, list[tuple[int, tuple[str, ...]]]]] = {
    "dataclass": (
        """
        from dataclasses import dataclass, field, InitVar, KW_ONLY
        from typing import ClassVar
        @dataclass
        class B:
            a: int
            b: int = 1
        @dataclass
        class C(B):
            c: int = 2
            d: list = field(default_factory=list)
            e: int = field(init=False, default=0)
            f: InitVar[int] = 3
            LIMIT: ClassVar[int] = 9
            _: KW_ONLY
            g: int = 4
        """,
        [
            (1, ()),
            (0, ()),
            (0, ("a",)),
            (1, ("e",)),
            (1, ("f", "g")),
            (6, ()),
            (7, ()),
            (1, ("LIMIT",)),
            (1, ("zz",)),
            (2, ("b",)),
        ],
    ),
    "dataclass-kw-only-class": (
        """
        from dataclasses import dataclass, field
        @dataclass(kw_only=True)
        class C:
            a: int
            b: int = field(default=1, kw_only=True)
        """,
        [(1, ()), (0, ("a",)), (0, ("a", "b")), (0, ())],
    ),
    "dataclass-init-false-hand-written": (
        """
        from dataclasses import dataclass
        @dataclass(init=False)
        class C:
            a: int
            def __init__(self, x, *, y=0):
                self.a = x
        """,
        [(1, ()), (0, ("a",)), (1, ("y",)), (0, ("x",))],
    ),
    "pydantic-model-ignores-extra": (
        """
        from pydantic import BaseModel, Field
        class C(BaseModel):
            a: int
            b: int = 1
            c: int = Field(default=2)
            d: int = Field(alias="dee")
        """,
        [(0, ("a", "dee")), (0, ("a", "d")), (0, ("a", "dee", "zz")), (1, ("dee",)), (0, ("dee",))],
    ),
    "pydantic-model-forbids-extra": (
        """
        from pydantic import BaseModel, ConfigDict
        class Base(BaseModel):
            model_config = ConfigDict(extra="forbid")
        class C(Base):
            a: int
            b: int | None = None
        """,
        [(0, ("a",)), (0, ("a", "zz")), (0, ("b",)), (0, ("a", "b"))],
    ),
    "pydantic-model-class-keyword": (
        """
        import pydantic
        class C(pydantic.BaseModel, extra="forbid", populate_by_name=True):
            a: int = pydantic.Field(default=0, alias="A")
        """,
        [(0, ("A",)), (0, ("zz",)), (0, ())],
    ),
    "pydantic-dataclass": (
        """
        from dataclasses import InitVar
        from pydantic import ConfigDict
        from pydantic.dataclasses import dataclass
        @dataclass(config=ConfigDict(extra="forbid"))
        class C:
            n: InitVar[int]
            a: int = 1
            def __post_init__(self, n): ...
        """,
        [(0, ("n",)), (0, ("a",)), (0, ("n", "zz")), (1, ()), (3, ())],
    ),
    "pydantic-dataclass-default-ignores": (
        """
        import pydantic
        @pydantic.dataclasses.dataclass
        class C:
            a: int = 1
        """,
        [(0, ("zz",)), (1, ()), (0, ("a",))],
    ),
    "attrs-classic": (
        """
        import attr
        @attr.s
        class C:
            _x = attr.ib()
            y = attr.ib(default=1, kw_only=True)
            z = attr.ib(init=False, default=0)
            w = attr.ib(factory=list, alias="dub")
        """,
        [
            (1, ()),
            (0, ("x",)),
            (0, ("_x",)),
            (1, ("y",)),
            (1, ("z",)),
            (1, ("dub",)),
            (1, ("w",)),
            (2, ()),
        ],
    ),
    "attrs-define": (
        """
        from attrs import define, field
        @define
        class C:
            a: int
            b: int = field(default=2)
            c: int = field(default=3, init=False)
        """,
        [(1, ()), (2, ()), (3, ()), (0, ("a", "c")), (0, ())],
    ),
    "msgspec": (
        """
        import msgspec
        class C(msgspec.Struct, kw_only=True):
            a: int
            b: int = 1
            c: list = msgspec.field(default_factory=list)
        """,
        [(0, ("a",)), (1, ()), (0, ("a", "zz")), (0, ("b",))],
    ),
    "namedtuple": (
        """
        from typing import NamedTuple
        class C(NamedTuple):
            a: int
            b: int = 1
        """,
        [(1, ()), (2, ()), (3, ()), (0, ("a", "b")), (0, ("b",))],
    ),
    "typeddict": (
        """
        from typing import TypedDict
        class C(TypedDict, total=False):
            a: int
        """,
        [(0, ("a",)), (0, ("zz",)), (0, ())],
    ),
    "enum": (
        """
        import enum
        class C(enum.Enum):
            A = 0
            B = 1
        """,
        [(1, ()), (0, ()), (0, ("value",))],
    ),
    "provider-decorator-wrapping-pydantic": (
        """
        from typing import Any
        from pydantic import ConfigDict
        from pydantic.dataclasses import dataclass
        from typing_extensions import dataclass_transform
        @dataclass_transform()
        def config(cls=None, *, config=None, **kwargs):
            merged = ConfigDict(extra="forbid")
            def decorator(cls):
                return dataclass(cls, config=merged, **kwargs)
            return decorator if cls is None else decorator(cls)
        @config
        class C:
            a: int = 0
            b: str = "x"
        """,
        [(0, ("a",)), (0, ("zz",)), (2, ()), (3, ())],
    ),
    "provider-identity-decorator": (
        """
        from dataclasses import dataclass
        def config(cls):
            \"\"\"Checks nothing at run time.\"\"\"
            return cls
        @config
        @dataclass
        class C:
            a: int
        """,
        [(1, ()), (0, ()), (0, ("zz",))],
    ),
    "plain-class-inherits-init": (
        """
        class Base:
            def __init__(self, a, *, b=0): ...
        class Mixin:
            pass
        class C(Base):
            pass
        """,
        [(1, ()), (0, ()), (1, ("b",)), (2, ())],
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_derived_constructor_agrees_with_the_runtime(case: str) -> None:
    source, calls = CASES[case]
    signature = derive(source)
    assert signature is not None, f"{case}: constructor not derived"
    namespace: dict[str, Any] = {"__name__": "acme.m"}
    exec(compile(dedent(source), f"<{case}>", "exec", dont_inherit=True), namespace)
    cls = namespace["C"]
    for positional, keywords in calls:
        expected = runtime_accepts(cls, positional, keywords)
        verdict = bind(CallShape(positional, keywords), signature)
        assert (not verdict) == expected, (
            f"{case}: C(*{positional}, {keywords}) runs={expected}, "
            f"binder says {verdict} against {signature}"
        )


@pytest.mark.parametrize(
    "source",
    [
        "import torch\nclass C(torch.nn.Module):\n    pass\n",
        "def deco(cls):\n    cls.x = 1\n    return cls\n@deco\nclass C:\n    a: int\n",
        "class Meta(type): ...\nclass C(metaclass=Meta):\n    pass\n",
        "from somewhere import model\n@model\nclass C:\n    a: int\n",
    ],
)
def test_unknowable_constructors_stay_unknown(source: str) -> None:
    assert derive(source) is None
