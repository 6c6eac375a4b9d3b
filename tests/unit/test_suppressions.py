"""suppressions.py: what is said of a comment's kinds that are no kind."""

from __future__ import annotations

from auditor.suppressions import unknown_kinds, unknown_note, unused_warnings


def test_kinds_of_the_catalogue_are_known_and_others_unknown_in_order() -> None:
    assert unknown_kinds(("unexpected-keyword", "zz", "removed-symbl")) == ("zz", "removed-symbl")
    assert unknown_note(("unexpected-keyword", "removed-symbol")) is None


def test_the_note_names_the_closest_kind_and_counts_past_three() -> None:
    assert unknown_note(("qqqqqq",)) == (
        "unknown kind 'qqqqqq'; `drift-audit --list-kinds` lists them"  # nothing is like it
    )
    many = tuple(f"unexpected-keywor{c}" for c in "abcefg")
    note = unknown_note(many) or ""
    assert note.startswith("unknown kinds 'unexpected-keywora' (did you mean ")
    assert note.endswith(" and 3 more; `drift-audit --list-kinds` lists them")
    assert note.count("did you mean") == 3


def test_one_warning_for_the_unknown_kinds_and_one_for_the_unused_ones() -> None:
    lines = unused_warnings([("w.py", 3, ("removed-symbol", "removed-symbl")), ("w.py", 4, ())])
    assert lines == [
        "w.py:3: unused suppression: unknown kind 'removed-symbl' (did you mean "
        "'removed-symbol'?); `drift-audit --list-kinds` lists them",
        "w.py:3: unused suppression `# drift-audit: ignore[removed-symbol]`: no such finding "
        "on this line",
        "w.py:4: unused suppression `# drift-audit: ignore`: no such finding on this line",
    ]
