"""ProviderAPI: lookups by dotted path against small in-memory provider trees."""

from __future__ import annotations

import warnings

import pytest

from auditor.model import Lookup, SymbolKind
from auditor.provider import ProviderAPI
from tests.helpers import DictTree

ACME = {
    "acme/__init__.py": """
        from acme._core import Engine as Engine
        from acme.util import *
        """,
    "acme/_core.py": """
        class Base:
            def __init__(self, a, b=1, *, c):
                self.inst = a
            def run(self, x): ...
            @classmethod
            def make(cls, y): ...
            @staticmethod
            def helper(z): ...
            @property
            def prop(self): ...

        class Engine(Base):
            pass

        def decorated_by(f):
            return lambda *a: f(*a[1:])

        def identity(f):
            # returns its argument: leaves the signature as it is
            return f

        @decorated_by
        def fancy(q): ...

        @identity
        def plain(q): ...

        class External(torch.nn.Module):
            pass
        """,
    "acme/util.py": """
        __all__ = ["tool"]
        def tool(a, /, b): ...
        """,
    "acme/config/__init__.py": "from acme.config.cache import CacheConfig\n",
    "acme/config/cache.py": """
        from dataclasses import dataclass, field, KW_ONLY
        from typing import ClassVar

        @dataclass
        class Parent:
            p: int

        @dataclass
        class CacheConfig(Parent):
            block_size: int = 16
            names: list = field(default_factory=list)
            hidden: int = field(init=False, default=0)
            LIMIT: ClassVar[int] = 3
            _: KW_ONLY
            swap: float = 4.0
        """,
    "acme/dyn.py": "def __getattr__(name): ...\n",
    "acme/undecided.py": (
        "from elsewhere import NAMES\n\ndef __getattr__(name):\n"
        "    if name in NAMES:\n        return 1\n    raise AttributeError(name)\n"
    ),
    "acme/broken.py": "def (:\n",
}


@pytest.fixture
def api() -> ProviderAPI:
    return ProviderAPI(DictTree(ACME), ("acme",), "0.1")


def test_reexport_resolves_to_the_defining_module(api: ProviderAPI) -> None:
    found = api.resolve("acme.Engine")
    assert found.status is Lookup.FOUND
    assert found.symbol is not None and found.symbol.path == "acme._core.Engine"


def test_constructor_is_inherited_from_a_provider_base(api: ProviderAPI) -> None:
    symbol = api.resolve("acme.Engine").symbol
    assert symbol is not None and str(symbol.signature) == "(a, b=1, *, c)"


def test_methods_found_through_bases(api: ProviderAPI) -> None:
    assert api.resolve("acme.Engine.run").status is Lookup.FOUND
    make = api.resolve("acme.Engine.make").symbol
    assert make is not None and str(make.signature) == "(y)"  # cls dropped
    helper = api.resolve("acme.Engine.helper").symbol
    assert helper is not None and str(helper.signature) == "(z)"
    prop = api.resolve("acme.Engine.prop").symbol
    assert prop is not None and prop.kind is SymbolKind.ATTRIBUTE


def test_missing_method_is_missing_name(api: ProviderAPI) -> None:
    assert api.resolve("acme.Engine.gone").status is Lookup.MISSING_NAME


def test_wildcard_reexport(api: ProviderAPI) -> None:
    tool = api.resolve("acme.tool").symbol
    assert tool is not None and str(tool.signature) == "(a, /, b)"


def test_missing_module_and_missing_name(api: ProviderAPI) -> None:
    assert api.resolve("acme.nothere", module_only=True).status is Lookup.MISSING_MODULE
    assert api.resolve("acme.util.nothere").status is Lookup.MISSING_NAME
    assert api.resolve("acme.util.tool", module_only=True).status is Lookup.MISSING_MODULE


def test_a_module_getattr_that_returns_for_every_name_serves_every_name(api: ProviderAPI) -> None:
    found = api.resolve("acme.dyn.anything")  # `...` as the body: it returns None, always
    assert found.status is Lookup.FOUND and found.symbol is not None
    assert found.symbol.signature is None and found.symbol.why_unknown


def test_a_module_getattr_that_cannot_be_decided_is_unknown(api: ProviderAPI) -> None:
    assert api.resolve("acme.undecided.anything").status is Lookup.UNKNOWN


def test_unparsable_provider_module_is_unreadable_not_missing(api: ProviderAPI) -> None:
    for path in ("acme.broken.f", "acme.broken.g"):
        found = api.resolve(path)
        assert found.status is Lookup.UNREADABLE
        assert found.missing == "acme.broken" and "SyntaxError" in (found.detail or "")


def test_unknown_decorator_hides_the_signature(api: ProviderAPI) -> None:
    fancy = api.resolve("acme._core.fancy").symbol
    assert fancy is not None and fancy.signature is None and fancy.why_unknown


def test_identity_decorator_keeps_the_signature(api: ProviderAPI) -> None:
    plain = api.resolve("acme._core.plain").symbol
    assert plain is not None and str(plain.signature) == "(q)"


def test_external_base_hides_the_constructor(api: ProviderAPI) -> None:
    external = api.resolve("acme._core.External").symbol
    assert external is not None and external.signature is None


def test_dataclass_constructor_from_fields(api: ProviderAPI) -> None:
    config = api.resolve("acme.config.CacheConfig").symbol
    assert config is not None
    assert str(config.signature) == (
        "(p: int, block_size: int = 16, names: list = <list()>, *, swap: float = 4.0)"
    )


def test_modules_are_loaded_lazily(api: ProviderAPI) -> None:
    api.resolve("acme.util.tool")
    assert api.modules_loaded == 2  # acme (the parent package) and acme.util


def test_outside_the_provider_is_unknown(api: ProviderAPI) -> None:
    assert api.resolve("torch.nn.Module").status is Lookup.UNKNOWN


def test_moved_names_are_found_among_loaded_modules(api: ProviderAPI) -> None:
    api.resolve("acme._core.Engine")
    assert api.moved("acme.util.Base") == "acme._core.Base"
    assert api.moved("acme.util.NowhereToBeFound") is None


DEPRECATIONS = {
    "acme/__init__.py": "",
    "acme/dep.py": """
        import warnings
        from functools import wraps

        def deprecate_kwargs(*names):
            def decorator(f):
                @wraps(f)
                def inner(*a, **k):
                    return f(*a, **k)
                return inner
            return decorator

        def keyword_warned(a, old=None, new=None):
            if old is not None:
                warnings.warn("old is deprecated, use new", DeprecationWarning, stacklevel=2)
            return a

        def kwargs_warned(a, **kwargs):
            if "legacy" in kwargs:
                warnings.warn("legacy() is deprecated", FutureWarning)
            return a

        def whole(a):
            warnings.warn("whole() is deprecated", DeprecationWarning)
            return a

        def under_other_condition(a, flag=False):
            if a > 3:
                warnings.warn("big values are deprecated", DeprecationWarning)
            return a

        @deprecate_kwargs("gone_soon")
        def decorated(a, gone_soon=None): ...
        """,
}


@pytest.mark.parametrize(
    ("name", "whole", "params"),
    [
        ("keyword_warned", False, ("old",)),
        ("kwargs_warned", False, ("legacy",)),
        ("whole", True, ()),
        ("under_other_condition", False, ()),  # a condition on values says nothing certain
        ("decorated", False, ("gone_soon",)),
    ],
)
def test_deprecations_are_told_apart_by_where_the_warning_is(
    name: str, whole: bool, params: tuple[str, ...]
) -> None:
    api = ProviderAPI(DictTree(DEPRECATIONS), ("acme",), "1")
    symbol = api.resolve(f"acme.dep.{name}").symbol
    assert symbol is not None
    assert (symbol.deprecated is not None) == whole
    assert symbol.deprecated_params == params


def test_a_warning_while_reading_a_provider_module_does_not_hide_it() -> None:
    """`"\\d"` warns when compiled; under -W error the module must still be read."""
    files = {
        "acme/__init__.py": "",
        "acme/m.py": 'import re\nPAT = re.compile("\\d+")\ndef f(a): ...\n',
    }
    api = ProviderAPI(DictTree(files), ("acme",), "1")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        found = api.resolve("acme.m.f")
    assert found.status is Lookup.FOUND
    assert found.symbol is not None and str(found.symbol.signature) == "(a)"
