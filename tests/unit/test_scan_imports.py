"""Consumer scan: import forms, aliases, consumer re-exports, scoping and guards."""

from __future__ import annotations

from textwrap import dedent

import pytest

from auditor.model import Action, CallShape, ConsumerScan, Site
from auditor.scan import scan_consumer
from tests.helpers import DictTree

Row = tuple[str, str, int, CallShape | None]


def scan(files: dict[str, str]) -> ConsumerScan:
    tree = DictTree({path: dedent(text) for path, text in files.items()})
    return scan_consumer(tree, ["pkg"], ["vllm"])


def sites_in(result: ConsumerScan, path: str = "pkg/mod.py") -> list[Site]:
    return [s for s in result.sites if s.location.path == path]


def rows(result: ConsumerScan, path: str = "pkg/mod.py") -> list[Row]:
    return [(s.action.value, s.target, s.location.line, s.call) for s in sites_in(result, path)]


def shape(positional: int = 0, *keywords: str) -> CallShape:
    return CallShape(positional, tuple(keywords))


IMPORT_FORMS: list[tuple[str, str, list[Row]]] = [
    ("plain import", "import vllm\n", [("import", "vllm", 1, None)]),
    (
        "dotted import binds the top name; chains resolve through it",
        "import vllm.config\nvllm.config.CacheConfig(block_size=16)\n",
        [
            ("import", "vllm.config", 1, None),
            ("call", "vllm.config.CacheConfig", 2, shape(0, "block_size")),
        ],
    ),
    (
        "import as",
        "import vllm.v1.core as core\ncore.sched.Scheduler(1)\n",
        [
            ("import", "vllm.v1.core", 1, None),
            ("call", "vllm.v1.core.sched.Scheduler", 2, shape(1)),
        ],
    ),
    (
        "from import",
        "from vllm.config import CacheConfig\nCacheConfig(block_size=16)\n",
        [
            ("import", "vllm.config.CacheConfig", 1, None),
            ("call", "vllm.config.CacheConfig", 2, shape(0, "block_size")),
        ],
    ),
    (
        "from import as",
        "from vllm.config import CacheConfig as CC\nCC(16)\n",
        [
            ("import", "vllm.config.CacheConfig", 1, None),
            ("call", "vllm.config.CacheConfig", 2, shape(1)),
        ],
    ),
    (
        "from package import module",
        "from vllm import config\nconfig.CacheConfig()\n",
        [("import", "vllm.config", 1, None), ("call", "vllm.config.CacheConfig", 2, shape())],
    ),
    (
        "several modules in one statement",
        "import vllm.a, vllm.b as b\n",
        [("import", "vllm.a", 1, None), ("import", "vllm.b", 1, None)],
    ),
    (
        "parenthesised names, one site per alias line",
        "from vllm.config import (\n    CacheConfig,\n    ModelConfig as MC,\n)\n",
        [
            ("import", "vllm.config.CacheConfig", 2, None),
            ("import", "vllm.config.ModelConfig", 3, None),
        ],
    ),
    (
        "star import: the module, and a call of what each release's `*` may bind",
        "from vllm.x import *\nF()\n",
        [("import", "vllm.x", 1, None), ("call", "vllm.x.*.F", 2, shape())],
    ),
    ("other libraries give nothing", "import torch\ntorch.zeros(1)\nfrom os import path\n", []),
    (
        "a name imported from the provider and rebound later is dropped",
        "from vllm.x import F\nF = None\nF(1)\n",
        [("import", "vllm.x.F", 1, None)],
    ),
    (
        "a parameter shadows the module's import",
        "from vllm import config\ndef f(config):\n    config.CacheConfig()\n",
        # the parameter, not the module: only the `probable` rule asks of it (scan/loose.py)
        [("import", "vllm.config", 1, None), ("call", "vllm.?.CacheConfig", 3, shape())],
    ),
]


@pytest.mark.parametrize(
    ("source", "expected"), [c[1:] for c in IMPORT_FORMS], ids=[c[0] for c in IMPORT_FORMS]
)
def test_import_forms(source: str, expected: list[Row]) -> None:
    assert rows(scan({"pkg/mod.py": source})) == expected


def test_module_only_is_set_for_plain_and_star_imports() -> None:
    source = "import vllm.a\nfrom vllm import b\nfrom vllm.c import *\n"
    flags = {s.target: s.module_only for s in sites_in(scan({"pkg/mod.py": source}))}
    assert flags == {"vllm.a": True, "vllm.b": False, "vllm.c": True}


def test_import_site_is_positioned_on_the_alias() -> None:
    (site,) = sites_in(scan({"pkg/mod.py": "from vllm.config import CacheConfig as CC\n"}))
    loc = site.location
    assert (loc.line, loc.column, loc.end_line, loc.end_column) == (1, 25, 1, 42)


def test_columns_count_characters_not_bytes() -> None:
    (site,) = sites_in(scan({"pkg/mod.py": "x = 'é'; import vllm\n"}))
    assert site.location.column == 17


def test_import_inside_a_function_is_scoped_to_it() -> None:
    source = """\
        def f():
            from vllm.x import F
            F(a=1)
        F(b=2)
        """
    result = scan({"pkg/mod.py": source})
    assert rows(result) == [
        ("import", "vllm.x.F", 2, None),
        ("call", "vllm.x.F", 3, shape(0, "a")),
    ]
    assert {s.scope for s in sites_in(result)} == {"pkg.mod.f"}


def test_nested_function_sees_the_enclosing_functions_import() -> None:
    source = """\
        def outer():
            import vllm
            def inner():
                return vllm.envs.VLLM_FOO
            return inner
        """
    sites = sites_in(scan({"pkg/mod.py": source}))
    assert [(s.action, s.target, s.scope) for s in sites] == [
        (Action.IMPORT, "vllm", "pkg.mod.outer"),
        (Action.ATTRIBUTE, "vllm.envs.VLLM_FOO", "pkg.mod.outer.inner"),
    ]


# --------------------------------------------------------------------------- re-exports

REEXPORTS: list[tuple[str, dict[str, str], str, list[Row]]] = [
    (
        "relative re-export from a sibling",
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "from vllm.x import F\n",
            "pkg/mod.py": "from .a import F\nF(1)\n",
        },
        "pkg/mod.py",
        [("call", "vllm.x.F", 2, shape(1))],
    ),
    (
        "transitive, through an alias, user sorted before the re-exporters",
        {
            "pkg/a_user.py": "from .m_middle import G as H\nH(k=1)\n",
            "pkg/m_middle.py": "from .z_compat import F as G\n",
            "pkg/z_compat.py": "from vllm.x import F\n",
        },
        "pkg/a_user.py",
        [("call", "vllm.x.F", 2, shape(0, "k"))],
    ),
    (
        "parent package module imported with `from .. import`",
        {
            "pkg/__init__.py": "",
            "pkg/compat.py": "from vllm.x import F\n",
            "pkg/sub/__init__.py": "",
            "pkg/sub/mod.py": "from .. import compat\ncompat.F()\n",
        },
        "pkg/sub/mod.py",
        [("call", "vllm.x.F", 2, shape())],
    ),
    (
        "absolute import of the consumer's own module",
        {
            "pkg/compat.py": "from vllm import x as vx\n",
            "pkg/mod.py": "from pkg.compat import vx\nvx.F()\n",
        },
        "pkg/mod.py",
        [("call", "vllm.x.F", 2, shape())],
    ),
    (
        "attribute chain through an imported consumer module",
        {
            "pkg/compat.py": "from vllm.x import F\n",
            "pkg/mod.py": "import pkg.compat\npkg.compat.F(2)\n",
        },
        "pkg/mod.py",
        [("call", "vllm.x.F", 2, shape(1))],
    ),
    (
        "package __init__ re-export",
        {
            "pkg/__init__.py": "from .compat import F\n",
            "pkg/compat.py": "from vllm.x import F\n",
            "pkg/mod.py": "from . import F\nF()\n",
        },
        "pkg/mod.py",
        [("call", "vllm.x.F", 2, shape())],
    ),
    (
        "consumer star import",
        {"pkg/compat.py": "from vllm.x import F\n", "pkg/mod.py": "from .compat import *\nF()\n"},
        "pkg/mod.py",
        [("call", "vllm.x.F", 2, shape())],
    ),
    (
        "an import cycle resolves to nothing",
        {"pkg/a.py": "from .mod import F\n", "pkg/mod.py": "from .a import F\nF()\n"},
        "pkg/mod.py",
        [],
    ),
    (
        "a re-exporter that rebinds the name exports nothing",
        {
            "pkg/a.py": "from vllm.x import F\nF = wrap(F)\n",
            "pkg/mod.py": "from .a import F\nF()\n",
        },
        "pkg/mod.py",
        [],
    ),
]


@pytest.mark.parametrize(
    ("files", "path", "expected"), [c[1:] for c in REEXPORTS], ids=[c[0] for c in REEXPORTS]
)
def test_consumer_reexports(files: dict[str, str], path: str, expected: list[Row]) -> None:
    assert rows(scan(files), path) == expected


def test_relative_import_beyond_the_top_is_ignored() -> None:
    assert scan({"pkg/mod.py": "from ... import x\nx()\n"}).sites == ()


# --------------------------------------------------------------------------- guards


def test_try_except_import_error_links_alternatives_both_ways() -> None:
    source = """\
        try:
            from vllm.new import X
        except ImportError:
            from vllm.old import X
        X(1)
        """
    result = scan({"pkg/mod.py": source})
    summary = [(s.action, s.target, s.guarded, s.alternatives) for s in sites_in(result)]
    assert summary == [
        (Action.IMPORT, "vllm.new.X", True, ("vllm.old.X",)),
        (Action.IMPORT, "vllm.old.X", True, ("vllm.new.X",)),
        (Action.CALL, "vllm.new.X", False, ("vllm.old.X",)),
    ]


def test_alternative_outside_the_provider_is_kept_and_makes_calls_guarded() -> None:
    source = (
        "try:\n    from vllm.x import F\nexcept ImportError:\n    from backport import F\nF()\n"
    )
    summary = [
        (s.target, s.guarded, s.alternatives) for s in sites_in(scan({"pkg/mod.py": source}))
    ]
    assert summary == [("vllm.x.F", True, ("backport.F",)), ("vllm.x.F", True, ())]


def test_fallback_assignment_in_the_handler_keeps_the_name() -> None:
    source = "try:\n    from vllm.x import F\nexcept ImportError:\n    F = None\nF()\n"
    assert rows(scan({"pkg/mod.py": source}))[-1] == ("call", "vllm.x.F", 5, shape())


HANDLERS = [
    "except ImportError:",
    "except ModuleNotFoundError:",
    "except (ImportError, AttributeError) as exc:",
    "except Exception:",
    "except BaseException:",
    "except:",
]


@pytest.mark.parametrize("handler", HANDLERS)
def test_handlers_that_guard(handler: str) -> None:
    source = f"try:\n    import vllm.x\n    vllm.x.f()\n{handler}\n    pass\n"
    assert all(s.guarded for s in sites_in(scan({"pkg/mod.py": source})))


def test_other_handlers_do_not_guard() -> None:
    source = "try:\n    import vllm.x\nexcept ValueError:\n    pass\nelse:\n    vllm.x.f()\n"
    assert not any(s.guarded for s in sites_in(scan({"pkg/mod.py": source})))


@pytest.mark.parametrize("test", ["TYPE_CHECKING", "typing.TYPE_CHECKING"])
def test_type_checking_body_is_guarded_else_is_not(test: str) -> None:
    source = (
        f"import typing\nif {test}:\n    from vllm.a import A\nelse:\n    from vllm.b import B\n"
    )
    guarded = {s.target: s.guarded for s in sites_in(scan({"pkg/mod.py": source}))}
    assert guarded == {"vllm.a.A": True, "vllm.b.B": False}


VERSION_TESTS = [
    'vllm.__version__ >= "0.12"',
    'version("vllm") >= "0.12"',
    "Version(v) > Version('1')",
    "parse(v) > parse('1')",
    "sys.version_info >= (3, 11)",
    'importlib.metadata.version("vllm") > "1"',
    "VLLM_VERSION >= (0, 12)",
    "vllm_version.major > 0",
    "is_version_at_least('0.12')",
]


@pytest.mark.parametrize("test", VERSION_TESTS)
def test_version_checks_guard_both_branches(test: str) -> None:
    source = f"""\
        import sys, vllm
        if {test}:
            from vllm.new import X
        else:
            from vllm.old import X
        """
    result = scan({"pkg/mod.py": source})
    sites = [s for s in sites_in(result) if s.location.line > 2]
    assert all(s.guarded for s in sites_in(result) if s.location.line == 2)
    assert [(s.target, s.guarded, s.alternatives) for s in sites] == [
        ("vllm.new.X", True, ("vllm.old.X",)),
        ("vllm.old.X", True, ("vllm.new.X",)),
    ]


def test_a_test_that_only_contains_version_letters_does_not_guard() -> None:
    source = "if conversion_enabled:\n    from vllm.a import A\n"
    assert not sites_in(scan({"pkg/mod.py": source}))[0].guarded


def test_contextlib_suppress_import_error_guards() -> None:
    source = "import contextlib\nwith contextlib.suppress(ImportError):\n    import vllm\n"
    assert [s.guarded for s in sites_in(scan({"pkg/mod.py": source}))] == [True]


def test_stub_sites_are_guarded_and_a_stub_beside_its_module_is_skipped() -> None:
    result = scan(
        {"pkg/a.pyi": "import vllm\n", "pkg/b.py": "import vllm\n", "pkg/b.pyi": "import vllm.x\n"}
    )
    assert [(s.location.path, s.target, s.guarded) for s in result.sites] == [
        ("pkg/a.pyi", "vllm", True),
        ("pkg/b.py", "vllm", False),
    ]
    assert result.files == ("pkg/a.pyi", "pkg/b.py")
