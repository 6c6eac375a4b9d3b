"""The world manifest's shape, offline: what the harness codes against, and the rule's bookkeeping.

That the selection is the rule's own is checked with the index (or its cache) by
`python tests/world/select_dependents.py --check`; these tests need neither.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

sys.path.insert(0, str(Path(__file__).parent))
import select_dependents as sd

from tests.world import select_named as rule2_module
from tests.world import simple_index as si

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

TEXT = sd.MANIFEST.read_text(encoding="utf-8")
MANIFEST = tomllib.loads(TEXT)
UPGRADES = MANIFEST["upgrade"]
IDS = [u["id"] for u in UPGRADES]


def test_the_manifest_is_in_the_scripts_layout() -> None:
    assert sd.render(tomllib.loads(TEXT)) == TEXT


def test_the_size_issue_23_asks_for() -> None:
    assert MANIFEST["schema"] == 1
    assert MANIFEST["python"] == "3.11"
    assert len(UPGRADES) >= 30
    assert len({u["family"] for u in UPGRADES}) >= 15
    assert sum(len(u["dependents"]) for u in UPGRADES) >= 300
    assert len(set(IDS)) == len(IDS)


@pytest.mark.parametrize("upgrade", UPGRADES, ids=IDS)
def test_an_upgrade(upgrade: dict) -> None:
    assert set(upgrade) >= set(sd.KNOWN_KEYS)
    assert upgrade["id"] == upgrade["id"].lower() and " " not in upgrade["id"]
    assert Version(upgrade["baseline"]) < Version(upgrade["target"])
    assert upgrade["why"] and upgrade["pool"] and upgrade["import_names"]
    assert upgrade["judge"] in ("full", "static-only")
    if upgrade["judge"] == "static-only":
        assert upgrade["judge_note"]
    candidates = upgrade["candidates"]
    assert candidates == sorted(set(candidates))
    assert all(c == canonicalize_name(c) for c in candidates)
    # every candidate is kept or left out with a clause, once, in name order
    kept = [Requirement(d) for d in upgrade["dependents"]]
    assert all(len(r.specifier) == 1 and next(iter(r.specifier)).operator == "==" for r in kept)
    names = [r.name for r in kept]
    skipped = [name for name, _ in upgrade["skipped"]]
    assert sorted(names + skipped) == candidates
    assert skipped == sorted(skipped)
    clauses = ("(0)", "(a)", "(b)", "(c)", "(n)", "(2)")
    assert all(why[:3] in clauses for _, why in upgrade["skipped"])
    # rule 1's dependents first, then rule 2's (each in name order), rule 2's after the N-th
    rule2 = [spec for spec, _ in upgrade["named_dependents"]]
    rule1 = upgrade["dependents"][: len(names) - len(rule2)]
    assert upgrade["dependents"][len(rule1) :] == rule2
    names1, names2 = names[: len(rule1)], names[len(rule1) :]
    assert names1 == sorted(names1) and names2 == sorted(names2)
    assert len(names1) <= sd.N
    if names2:
        assert len(names1) == sd.N
        assert candidates.index(names2[0]) > candidates.index(names1[-1])
    # the walk stops after the N-th kept (rule 1) and at the expected breaks (rule 2): every
    # candidate after the stop is "(n)", none before
    unexamined = [name for name, why in upgrade["skipped"] if why.startswith("(n)")]
    if unexamined:
        first = candidates.index(unexamined[0])
        assert candidates[first:] == unexamined
        assert len([n for n in names1 if candidates.index(n) < first]) == sd.N
        if upgrade["named"]:
            assert upgrade["expected_breaks"] >= rule2_module.TARGET
    assert canonicalize_name(upgrade["provider"]) not in names


@pytest.mark.parametrize("upgrade", UPGRADES, ids=IDS)
def test_rule_2s_bookkeeping(upgrade: dict) -> None:
    named = rule2_module.parse_named(upgrade["named"])  # each entry is a name, call or pattern
    assert len(set(named)) == len(named)
    assert upgrade["named_from"]
    assert isinstance(upgrade["expected_breaks"], int) and upgrade["expected_breaks"] >= 0
    if not named:  # no rule 2: nothing added, nothing left out by it, nothing expected
        assert upgrade["named_dependents"] == [] and upgrade["expected_breaks"] == 0
        assert not [why for _, why in upgrade["skipped"] if why.startswith("(2)")]
    for spec, evidence in upgrade["named_dependents"]:
        assert spec in upgrade["dependents"]
        count = int(evidence.split(" named: ", 1)[0])
        assert count >= 1
    added = sum(int(e.split(" ", 1)[0]) for _, e in upgrade["named_dependents"])
    assert added <= upgrade["expected_breaks"]


def test_a_file_named_for_another_project_is_not_a_release() -> None:
    page = {
        "name": "django-allauth",
        "files": [
            {"filename": name, "url": f"https://index.invalid/{name}", "upload-time": t}
            for name, t in (
                ("django-allauth-0.26.0-1.tar.gz", "2016-07-24T00:00:00Z"),
                ("django-allauth-0.46.0.tar.gz", "2021-10-29T00:00:00Z"),
                ("django_allauth-0.47.0-py3-none-any.whl", "2021-12-22T00:00:00Z"),
            )
        ],
    }
    assert sorted(str(f.version) for f in si.dist_files(page)) == ["0.46.0", "0.47.0"]


def test_the_file_drift_audit_reads_comes_first() -> None:
    when = si.parse_time("2024-01-01T00:00:00Z")

    def wheel(name: str) -> si.DistFile:
        tags = frozenset(si.parse_wheel_filename(name)[3])
        return si.DistFile(name, "", Version("1.0"), when, 0, "", None, "wheel", tags)

    sdist = si.DistFile("a-1.0.tar.gz", "", Version("1.0"), when, 0, "", None, "sdist", frozenset())
    pure = wheel("a-1.0-py3-none-any.whl")
    linux = wheel("a-1.0-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl")
    mac = wheel("a-1.0-cp311-cp311-macosx_11_0_arm64.whl")
    assert min([sdist, mac, linux, pure], key=si.rank) is pure
    assert min([sdist, mac, linux], key=si.rank) is linux
    assert min([sdist, mac], key=si.rank) is mac
    assert si.installable([linux]) and not si.installable([mac, sdist])


def test_requirements_under_extras_and_markers_count() -> None:
    lines = [
        'numpy>=1.20; extra == "array"',
        "Pillow (>=8)",
        "not a requirement ((",
        "scikit_learn",
    ]
    assert sd.requirement_names(lines) == {"numpy", "pillow", "scikit-learn"}
    egg = "dask\n\n[array]\nnumpy>=1.21\n[:python_version < '3.8']\nimportlib-metadata\n"
    assert sd.requirement_names(sd.egg_requires(egg)) == {"dask", "numpy", "importlib-metadata"}


def test_the_table_of_docs_world_md_is_the_manifests() -> None:
    docs = (sd.ROOT / "docs" / "world.md").read_text(encoding="utf-8")
    assert sd.table(MANIFEST) in docs
