"""Rule 2 of docs/world.md (select_named.py): the names the release notes give, matched to the
judge's touchpoint scan of a candidate's sources, and the walk that adds dependents until the
expected breaks reach TARGET. Literal sources and callables; no index, no network."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from tests.world import select_named as rule2
from tests.world import simple_index
from tests.world.touchpoints import scan_source

sys.path.insert(0, str(Path(__file__).parent))
import select_dependents as sd

ROOTS = ("acme",)


def touched(entry: str, source: str) -> list[str]:
    (named,) = rule2.parse_named([entry])
    return [tp.text for tp in scan_source(source, "m.py", ROOTS).touchpoints
            if named.touched_by(tp)]  # fmt: skip


def test_a_named_name_touches_itself_and_what_is_reached_through_it() -> None:
    source = "import acme\nacme.cm.get_cmap\nacme.cm.get_cmap_x\nacme.cm.get_cmap.y\nacme.cm\n"
    assert touched("acme.cm.get_cmap", source) == ["acme.cm.get_cmap", "acme.cm.get_cmap.y"]


def test_a_name_written_alone_touches_nothing_reached_through_it() -> None:
    source = "import acme\nacme.orm.mapper(C, t)\nfrom acme.orm.mapper import Mapper\n"
    assert touched("acme.orm.mapper$", source) == ["acme.orm.mapper(C, t)"]
    assert len(touched("acme.orm.mapper", source)) == 2
    with pytest.raises(rule2.NamedError):
        rule2.parse_named(["acme.read(squeeze)$"])


def test_an_instance_of_a_class_named_directly_is_the_class() -> None:
    source = "import acme\nacme.Frame(x).append(y)\nacme.Frame.append\nacme.Frame(x).extend(y)\n"
    assert touched("acme.Frame.append", source) == ["acme.Frame(x).append(y)", "acme.Frame.append"]


def test_a_named_keyword_touches_only_calls_that_pass_it() -> None:
    source = (
        "import acme\nacme.read(f, squeeze=1)\nacme.read(f)\nacme.read\nacme.reader(squeeze=1)\n"
    )
    assert touched("acme.read(squeeze)", source) == ["acme.read(f, squeeze=1)"]


def test_a_pattern_matches_part_by_part() -> None:
    source = "from acme import TFModel, Trainer, TFx\nimport acme\nacme.get(u, proxies=1)\n"
    assert touched("acme.TF[A-Z]*", source) == ["from acme import TFModel"]
    assert touched("acme.*(proxies)", source) == ["acme.get(u, proxies=1)"]
    assert touched("acme.models.*.modeling_tf_*", "import acme.models.bert.modeling_tf_bert\n") == [
        "import acme.models.bert.modeling_tf_bert"]  # fmt: skip


def test_an_entry_that_is_no_name_is_refused() -> None:
    with pytest.raises(rule2.NamedError, match=r"'acme\.read\(a, b\)'"):
        rule2.parse_named(["acme.read(a, b)"])
    with pytest.raises(rule2.NamedError):
        rule2.parse_named(["not a name"])
    (entry,) = rule2.parse_named(["acme.read(squeeze)"])
    assert (entry.path, entry.keyword, entry.text) == ("acme.read", "squeeze", "acme.read(squeeze)")


GUARDED = """\
import acme
try:
    from acme import old
except ImportError:
    old = None
try:
    acme.old
except AttributeError:
    pass
try:
    acme.old
except ImportError:
    pass
if hasattr(acme, "old"):
    acme.old
acme.old
"""


def test_only_unguarded_touchpoints_count_as_the_judge_would_count_them() -> None:
    named = rule2.parse_named(["acme.old"])
    hits = rule2.named_hits({"m.py": GUARDED}, ROOTS, named)
    # the except ImportError around an attribute catches nothing the target raises (line 11)
    assert [h.line for h in hits] == [11, 16]
    assert rule2.evidence(hits) == "2 named: m.py:11 `acme.old` (acme.old) (+1 more)"


def _walk(kept: list[str], rest: list[str], files: dict[str, Any]) -> tuple[Any, list[str]]:
    """Rule 2 over `rest` after rule 1's `kept`, with `files` by name: a {path: source}, or a
    string (why the files cannot be read); names starting with "x" fail clause (a)."""
    asked: list[str] = []

    def examine(name: str) -> tuple[str, str | None]:
        asked.append(name)
        if name.startswith("x"):
            return f"(a) {name} 1 does not require acme", None
        return "", f"{name}==1"

    named = rule2.parse_named(["acme.old"])

    def hits_of(spec: str) -> list[rule2.Hit] | str:
        got = files[spec.partition("==")[0]]
        return got if isinstance(got, str) else rule2.named_hits(got, ROOTS, named)

    return rule2.extend(kept, rest, examine, hits_of), asked


def breaks(n: int) -> dict[str, str]:
    return {"m.py": "import acme\n" + "acme.old\n" * n}


def test_rule_2_adds_dependents_until_the_expected_breaks_reach_the_target() -> None:
    files = {"k": breaks(3), "a": {"m.py": "import acme\nacme.new\n"}, "b": breaks(4),
             "c": "too big", "d": breaks(5), "e": breaks(1)}  # fmt: skip
    out, asked = _walk(["k==1"], ["a", "b", "x", "c", "d", "e"], files)
    assert out.expected == 12  # 3 of rule 1's, then 4 and 5
    assert [spec for spec, _ in out.added] == ["b==1", "d==1"]
    assert out.skipped == {
        "a": "(2) a==1: no unguarded touchpoint of a named name",
        "x": "(a) x 1 does not require acme",
        "c": "(2) c==1: its files could not be read (too big)",
    }
    assert asked == ["a", "b", "x", "c", "d"]  # e is never examined: 12 >= TARGET
    assert out.unread == []


def test_a_pool_with_too_few_breaks_is_walked_to_its_end() -> None:
    out, asked = _walk(["k==1"], ["a", "b"], {"k": "gone", "a": breaks(1), "b": {}})
    assert (out.expected, asked) == (1, ["a", "b"])
    assert out.added == [["a==1", "1 named: m.py:2 `acme.old` (acme.old)"]]
    assert out.unread == ["k==1: gone"]


def test_select_writes_rule_2_after_rule_1_and_says_why_the_rest_was_not_examined(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    when = simple_index.parse_time("2024-01-01T00:00:00Z")
    monkeypatch.setattr(sd, "N", 2)
    monkeypatch.setattr(sd, "target_cutoff", lambda index, upgrade: (when, []))
    monkeypatch.setattr(sd, "examine", lambda index, name, provider, cutoff: ("", f"{name}==1"))
    hits = rule2.named_hits(breaks(3), ("acme",), rule2.parse_named(["acme.old"]))
    monkeypatch.setattr(sd, "release_hits", lambda index, spec, cutoff, rule: hits)
    upgrade = {"id": "acme-2", "provider": "acme", "candidates": ["a", "b", "c", "d", "e"],
               "import_names": ["acme"], "named": ["acme.old"]}  # fmt: skip
    got = sd.select(None, upgrade)  # type: ignore[arg-type]
    assert got.dependents == ["a==1", "b==1", "c==1", "d==1"]
    assert [spec for spec, _ in got.named_dependents] == ["c==1", "d==1"]
    assert got.expected_breaks == 12
    assert got.skipped == [
        ["e", "(n) not examined: 2 dependents were kept, and 12 breaks expected, before it"]
    ]
    quiet = sd.select(None, {**upgrade, "named": []})  # type: ignore[arg-type]
    assert (quiet.dependents, quiet.expected_breaks) == (["a==1", "b==1"], 0)
    assert quiet.skipped[0] == ["c", "(n) not examined: 2 dependents were kept before it"]


def test_hits_survive_their_cache() -> None:
    hits = rule2.named_hits(breaks(2), ROOTS, rule2.parse_named(["acme.old"]))
    assert rule2.from_json(rule2.to_json(hits)) == hits
    one = rule2.digest(ROOTS, rule2.parse_named(["acme.old"]))
    assert one == rule2.digest(ROOTS, rule2.parse_named(["acme.old"]))
    assert one != rule2.digest(ROOTS, rule2.parse_named(["acme.old", "acme.new"]))
    assert one != rule2.digest(("other",), rule2.parse_named(["acme.old"]))
