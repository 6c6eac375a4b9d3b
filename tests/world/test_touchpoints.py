"""The touchpoint scan finds every place a consumer touches the provider that can be written
down without types, with the guards around it, and nothing else."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from tests.world.touchpoints import Touchpoint, guard_test, scan_source

ROOTS = {"numpy", "pandas", "acme"}


def points(code: str) -> list[tuple[int, str, str]]:
    scan = scan_source(textwrap.dedent(code), "pkg/mod.py", ROOTS)
    assert scan.error is None
    return [(t.line, t.op, t.symbol) for t in scan.touchpoints]


def last(code: str) -> Touchpoint:
    scan = scan_source(textwrap.dedent(code), "pkg/mod.py", ROOTS)
    return scan.touchpoints[-1]


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("import numpy", [(1, "import", "numpy")]),
        ("import numpy.linalg as la", [(1, "import", "numpy.linalg")]),
        ("from numpy import float_ as F", [(1, "from", "numpy.float_")]),
        ("from numpy.linalg import norm, inv",
         [(1, "from", "numpy.linalg.norm"), (1, "from", "numpy.linalg.inv")]),
        ("from numpy import *", [(1, "import", "numpy")]),
        ("import os\nfrom . import numpy\nfrom .numpy import x\nimport numpyro", []),
    ],
)  # fmt: skip
def test_imports_of_the_provider_and_only_those(
    code: str, expected: list[tuple[int, str, str]]
) -> None:
    assert points(code) == expected


def test_attribute_chains_follow_aliases_to_the_longest_chain() -> None:
    code = """
        import numpy as np
        import pandas
        import numpy.linalg
        x = np.float
        y = pandas.Series.iteritems
        z = numpy.linalg.norm
    """
    assert points(code)[3:] == [
        (5, "chain", "numpy.float"),
        (6, "chain", "pandas.Series.iteritems"),
        (7, "chain", "numpy.linalg.norm"),
    ]


def test_names_imported_from_the_provider_root_chains_and_calls() -> None:
    code = """
        from pandas import DataFrame
        from numpy.linalg import norm as n2
        DataFrame.append
        n2(1, ord=2)
    """
    assert points(code)[2:] == [
        (4, "chain", "pandas.DataFrame.append"),
        (5, "call", "numpy.linalg.norm"),
    ]


def test_calls_carry_their_shape() -> None:
    tp = last("import acme\ndef f(a, *xs, **kw):\n    acme.core.fetch(a, 2, *xs, retries=1, **kw)")
    assert tp.op == "call"
    assert tp.shape is not None
    assert tp.shape.as_dict() == {
        "positional": 2, "keywords": ["retries"], "star_args": True, "star_kwargs": True
    }  # fmt: skip
    assert tp.scope == "pkg.mod.f"
    assert (tp.line, tp.column) == (3, 5)


def test_a_class_named_directly_gives_an_instance_chain_a_function_call_does_not() -> None:
    code = """
        import pandas as pd
        import numpy as np
        pd.DataFrame(x).append(y, ignore_index=True)
        np.array(x).reshape(3)
    """
    assert points(code)[2:] == [
        (4, "call", "pandas.DataFrame"),
        (4, "call", "pandas.DataFrame().append"),
        (5, "call", "numpy.array"),
    ]


def test_what_needs_types_is_not_written_down() -> None:
    code = """
        import pandas as pd
        def f(df):
            df.append(1)
            frame = pd.DataFrame()
            frame.append(2)
    """
    assert points(code) == [(2, "import", "pandas"), (5, "call", "pandas.DataFrame")]


def test_a_name_shadowed_in_a_scope_is_not_the_provider_there() -> None:
    code = """
        import numpy as np
        def f(np):
            return np.float
        def g():
            np = None
            return np.int
        def h():
            return np.bool
        class C:
            np = 3
            def m(self):
                return np.complex
    """
    assert [p for p in points(code) if p[1] == "chain"] == [
        (9, "chain", "numpy.bool"),
        (13, "chain", "numpy.complex"),  # a class body's names are not seen from its methods
    ]


def test_a_name_bound_to_the_provider_and_to_something_else_is_ambiguous() -> None:
    code = """
        try:
            import numpy as np
        except ImportError:
            np = None
        np.float
    """
    assert points(code) == [(3, "import", "numpy")]


def test_imports_inside_functions_bind_there() -> None:
    code = """
        def f():
            import numpy as np
            return np.float
        def g():
            return np.float
    """
    assert points(code) == [(3, "import", "numpy"), (4, "chain", "numpy.float")]


def test_writes_are_not_reads_but_what_they_go_through_is() -> None:
    code = """
        import numpy as np
        np.float = float
        np.lib.thing = 1
    """
    assert points(code)[1:] == [(4, "chain", "numpy.lib")]


def test_decorators_bases_and_defaults_are_scanned() -> None:
    code = """
        import acme
        @acme.deco(1)
        class C(acme.Base):
            def m(self, x=acme.DEFAULT):
                pass
    """
    assert points(code)[1:] == [
        (3, "call", "acme.deco"),
        (4, "chain", "acme.Base"),
        (5, "chain", "acme.DEFAULT"),
    ]


def guards(code: str) -> dict[str, list[str]]:
    scan = scan_source(textwrap.dedent(code), "pkg/mod.py", ROOTS)
    return {t.symbol: [f"{g.kind}:{g.detail}" for g in t.guards] for t in scan.touchpoints}


def test_guards_are_recorded_innermost_last() -> None:
    code = """
        from typing import TYPE_CHECKING
        import sys
        import acme
        try:
            from acme import new
        except (ImportError, AttributeError):
            from acme import old
        try:
            acme.x
        except KeyboardInterrupt:
            pass
        if TYPE_CHECKING:
            from acme import typing_only
        else:
            acme.runs
        if hasattr(acme, "feature"):
            if acme.__version__ >= "2":
                acme.both
        if sys.version_info >= (3, 8):
            acme.python_only
        if ACME_GE_2:
            acme.flagged
        has = hasattr(acme, "y") and acme.y
    """
    got = guards(code)
    assert got["acme.new"] == ["try:ImportError, AttributeError"]
    assert got["acme.old"] == ["except:ImportError, AttributeError"]
    assert got["acme.x"] == []  # KeyboardInterrupt is not a guard of a name or a call
    assert got["acme.typing_only"] == ["type-checking:"]
    assert got["acme.runs"] == []
    assert got["acme.both"] == [
        'if:feature: hasattr(acme, "feature")',
        'if:version: acme.__version__ >= "2"',
    ]
    assert got["acme.python_only"] == []  # the judge's Python decides that test
    assert got["acme.flagged"] == ["if:flag: ACME_GE_2"]
    assert got["acme.y"] == ["if:feature: (a test before `and`/`or`)"]


def test_a_test_skipped_on_a_version_test_is_guarded_and_one_skipped_on_python_is_not() -> None:
    code = """
        import sys
        import pytest
        import numpy as np
        @pytest.mark.skipif(not NUMPY_LT_2_0, reason="gone in 2.0")
        def test_old():
            np.asfarray([1])
        @pytest.mark.skipif(sys.version_info < (3, 9), reason="old Python")
        def test_py():
            np.asarray([1])
    """
    got = guards(code)
    assert got["numpy.asfarray"] == ["if:flag: @skipif(not NUMPY_LT_2_0)"]
    assert got["numpy.asarray"] == []


def test_postponed_annotations_are_guarded_and_evaluated_ones_are_not() -> None:
    postponed = guards("from __future__ import annotations\nimport acme\ndef f(x: acme.A): ...")
    assert postponed["acme.A"] == ["annotation:"]
    evaluated = guards("import acme\ndef f(x: acme.A) -> acme.B: ...")
    assert evaluated == {"acme": [], "acme.A": [], "acme.B": []}


def test_guards_at_a_line_without_a_touchpoint() -> None:
    code = "import acme\ntry:\n    obj.method(1)\nexcept TypeError:\n    pass\n"
    scan = scan_source(code, "pkg/mod.py", ROOTS)
    assert [g.kind for g in scan.guards_at(3)] == ["try"]
    assert scan.guards_at(1) == ()


@pytest.mark.parametrize(
    ("test", "kind"),
    [
        ("hasattr(np, 'x')", "feature"),
        ("importlib.util.find_spec('x') is not None", "feature"),
        ("np.__version__ >= '2'", "version"),
        ("Version(pd.__version__) < Version('2')", "version"),
        ("IS_PANDAS_2", "flag"),
        ("HAS_SCIPY", "flag"),
        ("sys.version_info >= (3, 10)", None),
        ("PY3", None),
        ("x > 3", None),
        ("DEBUG", None),
    ],
)
def test_which_if_tests_are_guards(test: str, kind: str | None) -> None:
    assert guard_test(ast.parse(test, mode="eval").body) == kind


def test_a_file_that_does_not_parse_is_reported_not_scanned() -> None:
    scan = scan_source("print 'python 2'\n", "pkg/old.py", ROOTS)
    assert scan.error is not None
    assert scan.touchpoints == []


def test_the_scan_never_imports_drift_audit() -> None:
    tree = ast.parse((Path(__file__).parent / "touchpoints.py").read_text(encoding="utf-8"))
    imported = [
        name
        for node in ast.walk(tree)
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for name in ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""])
    ]  # fmt: skip
    assert not [n for n in imported if n.split(".")[0] in ("auditor", "tests")]


def test_the_text_kept_is_the_source_of_the_site_even_after_non_ascii_text() -> None:
    code = 'import acme\nx = "é"; acme.f(\n    x,\n    k=1,\n)\n'
    tp = scan_source(code, "pkg/mod.py", ROOTS).touchpoints[-1]
    assert (tp.line, tp.column, tp.text) == (2, 11, "acme.f( x, k=1, )")  # ast counts bytes
    assert scan_source(code, "pkg/mod.py", ROOTS).touchpoints[0].text == "import acme"
