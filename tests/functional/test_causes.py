"""Undecided reasons filed under causes (auditor/causes.py), and the causes through the CLI:
`--statistics` counts them with their share of the sites, the JSON report lists each site's."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest
from click.testing import CliRunner

from auditor.causes import CAUSES, OTHER, cause_of
from auditor.cli import cli, main

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from pathlib import Path


@pytest.mark.parametrize(
    ("reason", "cause"),
    [
        ("numpy._core._multiarray_umath is compiled and has no stub; arange may be in it",
         "compiled"),
        ("acme._core.Tensor is compiled; its stub may not list secret", "compiled"),
        ("torch.Tensor.size is an @overload set in a stub; a call must fit one variant",
         "overload"),
        ("numpy.all is decorated with numpy.array_function_dispatch; its signature is unknown",
         "decorated"),
        ("numpy._core.numerictypes writes names into its namespace that are not known",
         "namespace-writer"),
        ("acme.filled.__getattr__: the condition `name in _TABLE` cannot be decided",
         "module-getattr"),
        ("unless it holds a data key named 'mad': pandas.NDFrame.__getattr__ serves data keys",
         "data-keys"),
        ("django.forms.Form has a base that cannot be resolved statically", "unresolved-base"),
        ("django.forms.Form's metaclass django.forms.M may add attributes", "metaclass"),
        ("sklearn.Est has decorators or __init_subclass__ that may add fit", "metaclass"),
        ("sklearn.Est.coef_ is assigned outside __init__", "instance-attribute"),
        ("re-exported from outside the provider: typing", "external"),
        ("mpl_toolkits is a namespace package; another distribution may add basemap",
         "external"),
        ("acme.__file__ is set by the import system", "import-system"),
        ("unittest.case.TestCase is the standard library's; its typeshed stub does not list x",
         "stdlib"),
        ("the type of acme.helpers is not a provider class", "untyped"),
        ("the signature of acme.thing is not known", "signature"),
        ("something nobody wrote yet", OTHER),
    ],
)  # fmt: skip
def test_a_reason_is_filed_under_its_cause(reason: str, cause: str) -> None:
    assert cause_of(reason) == cause


def test_causes_have_distinct_slugs() -> None:
    slugs = [c.slug for c in CAUSES]
    assert len(slugs) == len(set(slugs)) and OTHER not in slugs


OPAQUE = "from external_registry import table\n\nglobals().update(table())\n"


def test_statistics_count_undecided_sites_by_cause(
    tmp_path: Path, make_tree: Callable[[Path, Mapping[str, str]], Path]
) -> None:
    for version in ("0.1", "0.2"):
        make_tree(tmp_path / version, {"acme/__init__.py": OPAQUE})
    make_tree(tmp_path / "c", {"widget/__init__.py": "import acme\n\nacme.thing(1)\nacme.other\n"})
    args = [
        str(tmp_path / "c" / "widget"),
        "--against", f"acme @ {(tmp_path / '0.2').as_uri()}",
        "--baseline", f"acme @ {(tmp_path / '0.1').as_uri()}",
        "--offline", "--cache-dir", str(tmp_path / "cache"),
    ]  # fmt: skip
    stats = CliRunner().invoke(cli, [*args, "--statistics"])
    assert stats.exit_code == 0, stats.output
    assert stats.stdout.splitlines()[1:] == [
        "undecided: 2 of 3 sites (67%), by cause (--show-unknown lists them)",
        "    2  namespace-writer   67%",
    ]
    report = CliRunner().invoke(cli, [*args, "--format", "json", "--show-unknown"])
    data = json.loads(report.stdout)
    assert [u["cause"] for u in data["undecided"]] == ["namespace-writer", "namespace-writer"]
    assert data["stats"]["sites"] == 3 and data["stats"]["undecided"] == 2


def test_an_ecosystem_row_carries_its_sites_and_undecided_sites(
    tmp_path: Path, make_tree: Callable[[Path, Mapping[str, str]], Path]
) -> None:
    for version in ("0.1", "0.2"):
        make_tree(tmp_path / version, {"acme/__init__.py": OPAQUE})
    make_tree(tmp_path / "c", {"widget/__init__.py": "import acme\n\nacme.thing(1)\nacme.other\n"})
    (tmp_path / "consumers.txt").write_text(f"{tmp_path / 'c' / 'widget'}\n", encoding="utf-8")
    with pytest.raises(SystemExit) as done:
        main(
            [
                "ecosystem", "--against", f"acme @ {(tmp_path / '0.2').as_uri()}",
                "--baseline", f"acme @ {(tmp_path / '0.1').as_uri()}",
                "--consumers", str(tmp_path / "consumers.txt"), "--format", "json",
                "-o", str(tmp_path / "eco.json"),
                "--offline", "--cache-dir", str(tmp_path / "cache"),
            ]
        )  # fmt: skip
    assert done.value.code == 0
    (row,) = json.loads((tmp_path / "eco.json").read_text(encoding="utf-8"))["consumers"]
    assert (row["sites"], row["undecided"]) == (3, 2)
    assert [(u["line"], u["target"], u["cause"]) for u in row["undecided_sites"]] == [
        (3, "acme.thing", "namespace-writer"),
        (4, "acme.other", "namespace-writer"),
    ]
