"""Types that flow through values the provider gives no annotation (typed.py, attributes.py,
returns.py): module-level instances, attributes any method stores, `return self`."""

from __future__ import annotations

import ast
import textwrap

import pytest

from auditor.model import Lookup
from auditor.provider import ProviderAPI
from auditor.provider.attributes import callee, class_stores, module_stores
from auditor.provider.returns import SELF, made_by, receiver
from tests.helpers import DictTree

ACME = {
    "acme/__init__.py": (
        "from acme.hub import api, create, Api\nfrom acme.est import Plain, Estimator, Model\n"
    ),
    "acme/hub.py": textwrap.dedent(
        """
        class Repo:
            def push(self, branch=None):
                return branch

        class Api:
            def create(self, name):
                return Repo()

            def make(self, name):
                return self.create(name)

            def chained(self):
                return self

        api = Api()
        create = api.create
        client = Api()

        def reset():
            global client
            client = None
        """
    ),
    "acme/est.py": textwrap.dedent(
        """
        class Helper:
            def transform(self, x):
                return x

        class Plain:
            def fit(self, data):
                self.helper_ = Helper()
                self.n_ = 1
                return self

        class Estimator:
            def fit(self, data):
                self.helper_ = Helper()
                return self

            def set_params(self, **params):
                for key, value in params.items():
                    setattr(self, key, value)

        class Model:
            objects = Helper()

        class Axis:
            def __get__(self, obj, owner=None):
                return 1

        class Indexed:
            index = Axis()

        import collections.abc

        class Headers(collections.abc.MutableMapping):
            def get_list(self, key):
                return [key]

        class Request:
            def __init__(self):
                self.headers = Headers()
        """
    ),
    "acme/frames.py": textwrap.dedent(
        """
        from typing import Iterator, Self, TypeVar

        T = TypeVar("T")

        class Column:
            def total(self):
                return 0

        class Frame:
            def copy(self: T) -> T: ...
            def view(self) -> Self: ...
            def other(self: "Frame") -> "Frame": ...
            def __getitem__(self, key) -> Column: ...
            def __iter__(self) -> Iterator[Column]: ...

        class Table(Frame):
            def width(self):
                return 1

        class Callback:
            def on_end(self, trainer: Table, logs=None, *rest): ...
        """
    ),
}


@pytest.fixture
def api() -> ProviderAPI:
    return ProviderAPI(DictTree(ACME), ("acme",), "0.1")


@pytest.mark.parametrize(
    "path",
    [
        "acme.api.create",  # a module-level instance's method
        "acme.create",  # a module name bound to a method of one
        "acme.Api().make().push",  # what the method it returns makes
        "acme.Api().chained().make",  # `return self`
        "acme.Plain().fit().helper_.transform",  # a method stores it, of a known type
        "acme.Plain().n_",  # a method stores it: it exists
        "acme.Model.objects.transform",  # a class attribute made by a call
        "acme.est.Request().headers.get_list",  # on an instance, a descriptor is a value
        "acme.frames.Table().copy().width",  # `(self: T) -> T`
        "acme.frames.Table().view().width",  # `-> Self`
        "acme.frames.Table()[].total",  # what `__getitem__` returns
        "acme.frames.Table()[*].total",  # an element of what `__iter__` returns
        "acme.frames.Callback().on_end.@trainer.width",  # what an override is passed
    ],
)
def test_a_value_without_an_annotation_has_the_type_its_stores_make(
    api: ProviderAPI, path: str
) -> None:
    assert api.resolve(path).status is Lookup.FOUND, api.resolve(path).detail


@pytest.mark.parametrize(
    ("path", "why"),
    [
        ("acme.hub.client.create", "not a provider class"),  # `global client` in reset()
        ("acme.Estimator().fit().helper_.transform", "may be set by name"),  # setattr
        ("acme.est.Indexed.index.bit_length", "is a descriptor"),  # what `__get__` gives
        ("acme.frames.Callback().on_end.@logs.keys", "no type is declared"),  # no annotation
        ("acme.frames.Callback().on_end.@rest.keys", "no type is declared"),  # variadic
    ],
)
def test_a_value_that_may_be_rebound_has_no_type(api: ProviderAPI, path: str, why: str) -> None:
    resolution = api.resolve(path)
    assert resolution.status is Lookup.UNKNOWN
    assert why in (resolution.detail or "")


def test_an_attribute_no_method_stores_is_missing(api: ProviderAPI) -> None:
    assert api.resolve("acme.Plain().gone_").status is Lookup.MISSING_NAME


def test_a_string_annotation_of_the_receiver_is_the_class_it_names(api: ProviderAPI) -> None:
    """`def other(self: "Frame") -> "Frame"` returns a Frame, not the receiver's subclass."""
    assert api.resolve("acme.frames.Table().other().width").status is not Lookup.FOUND


def test_every_kind_of_store_on_self_is_found() -> None:
    source = textwrap.dedent(
        """
        class C:
            a = None
            def m(me, x):
                me.b, (me.c, y) = 1, (2, 3)
                for me.d in x: pass
                setattr(me, "e", Thing())
                object.__setattr__(me, "f", 1)
                super().__setattr__("g", 1)
                def inner():
                    me.h = 1
                def other(me):
                    me.not_this = 1
            @staticmethod
            def s(me):
                me.not_static = 1
            @classmethod
            def k(cls):
                cls.i = Thing()
        """
    )
    stores = class_stores(source)
    assert stores is not None
    assert set(stores) == set("abcdefghi")
    assert callee(stores["e"]) == "Thing"
    assert callee(stores["b"]) is None  # part of an unpacking: no one value


def test_a_store_whose_callee_the_method_binds_itself_has_no_callee() -> None:
    stores = class_stores("class C:\n    def m(self, Thing):\n        self.x = Thing()\n")
    assert stores is not None
    assert callee(stores["x"]) is None
    both = class_stores("class C:\n    def m(self):\n        self.x = A()\n        self.x = B()\n")
    assert both is not None
    assert callee(both["x"]) is None  # two callees
    none = class_stores("class C:\n    def m(self):\n        self.x = None\n        self.x = A()\n")
    assert none is not None
    assert callee(none["x"]) == "A"  # None aside


def test_a_module_name_a_function_rebinds_has_no_stores() -> None:
    tree = ast.parse("api = Api()\ndef f():\n    global api\n    api = 1\n")
    assert module_stores(tree, "api") is None
    tree = ast.parse("api = Api()\ndef f():\n    api = 1\n")  # a local of f
    stores = module_stores(tree, "api")
    assert stores is not None
    assert callee(stores) == "Api"


def test_a_method_returning_its_receiver_or_another_method_s_result() -> None:
    def function(text: str) -> ast.FunctionDef:
        node = ast.parse(textwrap.dedent(text)).body[0]
        assert isinstance(node, ast.FunctionDef)
        return node

    plain = function("def fit(self, x):\n    return self\n")
    assert made_by(plain, receiver(plain)) == SELF
    assert made_by(plain) is None  # a function's parameter: not followed
    other = function("def make(self):\n    if x:\n        return self.a()\n    return self.a(1)\n")
    assert made_by(other, "self") == f"{SELF}.a"
    rebound = function("def f(self):\n    self = other()\n    return self\n")
    assert made_by(rebound, "self") is None
    klass = function("@classmethod\ndef f(cls):\n    return cls\n")
    assert receiver(klass) is None


def test_a_parameter_of_a_method_the_provider_lacks_is_missing_and_no_removal(
    api: ProviderAPI,
) -> None:
    """`mine` is the consumer's own method: bind.check_site decides it, with no finding."""
    from auditor.bind import check_site
    from auditor.model import Action, Location, Site

    path = "acme.frames.Callback().mine.@trainer.width"
    assert api.resolve(path).status is Lookup.MISSING_NAME
    site = Site(Action.CALL, path, "widget.Mine.mine", Location("widget/a.py", 1, 1, 1, 2))
    verdict = check_site(site, api)
    assert verdict.resolution.status is Lookup.MISSING_NAME
    assert verdict.problems == ()
