"""A top-level name a release does not ship (trust, round four, item 1): a removed module
when another release of the provider ships it, else unknown; never memoized (it rests on
the run, not on a file); its definitions searched for from the packages the release ships.
What the pipeline gives each release, `releases.absent_names`, is checked here too."""

from __future__ import annotations

from auditor.model import Lookup
from auditor.provider import Absent, MemoizedProvider, ResolutionMemo
from auditor.releases import absent_names
from auditor.sources import Release
from tests.helpers import DictTree

TARGET = {
    "acme/__init__.py": "from acme import legacy\n\ndef ok(): ...\n",
    "acme/legacy.py": "def run(a): ...\n",
}
DROPPED = {"pkg_legacy": Absent(True, "no top-level module pkg_legacy")}


def _release(memo: ResolutionMemo, absent: dict[str, Absent]) -> MemoizedProvider:
    return MemoizedProvider(DictTree(TARGET), ("acme",), "0.2", memo, absent)


def test_a_top_level_name_the_release_drops_is_a_removed_module() -> None:
    api = _release(ResolutionMemo(None), DROPPED)
    for path, module_only in (("pkg_legacy", True), ("pkg_legacy.run", False)):
        found = api.resolve(path, module_only=module_only)
        assert found.status is Lookup.MISSING_MODULE
        assert (found.missing, found.detail) == ("pkg_legacy", "no top-level module pkg_legacy")
    assert api.moved("pkg_legacy.run") == "acme.legacy.run"  # searched from what it ships
    assert api.moved("pkg_legacy.nowhere") is None


def test_what_lies_outside_the_release_is_never_memoized() -> None:
    """Whether a name outside the release is removed rests on the run (which releases it
    audits), not on a file: the memo keeps no answer a later run could misread."""
    memo = ResolutionMemo(None)
    _release(memo, DROPPED).resolve("pkg_legacy.run")
    _release(memo, {}).resolve("numpy.sum")
    assert memo.hits == memo.misses == 0
    unknown = _release(memo, {"pkg_legacy": Absent(False, "its requirement may provide it")})
    found = unknown.resolve("pkg_legacy.run")
    assert (found.status, found.detail) == (Lookup.UNKNOWN, "its requirement may provide it")
    assert _release(memo, {}).resolve("pkg_legacy.run").status is Lookup.UNKNOWN


def _named(version: str, names: tuple[str, ...], requires: tuple[str, ...] = ()) -> Release:
    return Release("acme", version, DictTree({}), "index", names, requires)


def test_what_each_release_lacks_of_the_providers_names() -> None:
    """Removed where nothing else may provide it, in the same words in every release that
    lacks it; unknown where a requirement is named like it or another provider ships it."""
    old = _named("0.1", ("acme", "pkg_legacy", "pkg_b"))
    new = _named("0.2", ("acme2",), requires=("pkg-b>=1; python_version >= '3'",))
    later = _named("0.3", ("acme2",))
    every = [old, new, later]
    absent = absent_names(new, every, {"pkg_x": "other"})
    assert set(absent) == {"acme", "pkg_legacy", "pkg_b"}
    assert absent["acme"].removed and absent["pkg_legacy"].removed
    assert absent["acme"].why.endswith("ship no top-level module acme; they ship acme2")
    assert absent_names(later, every, {})["acme"] == absent["acme"]  # one finding in a range
    assert not absent["pkg_b"].removed and "pkg-b may provide it" in absent["pkg_b"].why
    moved = absent_names(new, every, {"pkg_legacy": "pkg-legacy"})["pkg_legacy"]
    assert moved == Absent(False, "pkg_legacy is not in acme; pkg-legacy ships it")
    assert absent_names(old, every, {}) == {
        "acme2": Absent(True, "the releases of acme it breaks in ship no top-level module acme2"
                        "; they ship acme, pkg_b, pkg_legacy"),
    }  # fmt: skip


def test_a_module_the_consumer_requires_is_unknown_but_never_the_provider_itself() -> None:
    every = [_named("0.1", ("acme", "six")), _named("0.2", ("acme2",))]
    consumer = Release("widget", "1", DictTree({}), "folder /w", ("widget",), ("six", "acme"))
    absent = absent_names(every[1], every, {}, consumer)
    assert not absent["six"].removed and "the consumer's requirement six" in absent["six"].why
    assert absent["acme"].removed  # the consumer requires acme: the very provider that dropped it
