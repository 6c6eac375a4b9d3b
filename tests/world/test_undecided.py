"""The tool's undecided sites beside the judge's touchpoints (undecided.py, judge.py): matched
by file and line, counted per consumer, carried on each break; no venv, literal answers."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tests.world import undecided, verdicts
from tests.world.consumers import Sources
from tests.world.judge import ConsumerJudge
from tests.world.touchpoints import Touchpoint

if TYPE_CHECKING:
    from pathlib import Path

WORKS = {"status": "works", "step": "attribute"}
GONE = {
    "status": "fails",
    "step": "attribute",
    "exc": "AttributeError",
    "name": "old",
    "mro": ["AttributeError", "Exception", "BaseException"],
    "detail": "no attribute 'old'",
}
SOURCE = "import acme\n\nacme.old\nacme.new\nx = (1,\n     acme.old)\n"


def site(path: str, line: int, cause: str = "decorated") -> dict[str, Any]:
    return {"path": path, "line": line, "column": 1, "target": "acme.old", "reason": "r",
            "cause": cause}  # fmt: skip


def test_undecided_sites_are_matched_to_touchpoints_by_file_and_line() -> None:
    sites = [site("src/pkg/mod.py", 3), site("pkg/mod.py", 7, "compiled-no-stub"),
             site("pkg/other.py", 5), site("elsewhere.py", 5)]  # fmt: skip
    files = {"pkg/mod.py", "pkg/other.py"}

    def locate(path: str) -> str | None:
        return next((f for f in files if path == f or path.endswith("/" + f)), None)

    index = undecided.site_index(sites, locate)
    assert sorted(index) == [("pkg/mod.py", 3), ("pkg/mod.py", 7), ("pkg/other.py", 5)]
    on_line = Touchpoint("pkg/mod.py", 3, 5, 3, "chain", "acme.m", "pkg.mod")
    on_statement = Touchpoint("pkg/mod.py", 8, 5, 7, "chain", "acme.m", "pkg.mod")
    other_line = Touchpoint("pkg/mod.py", 5, 5, 5, "chain", "acme.m", "pkg.mod")
    other_file = Touchpoint("pkg/third.py", 3, 5, 3, "chain", "acme.m", "pkg.third")
    assert undecided.causes(undecided.sites_at(on_line, index)) == ["decorated"]
    assert undecided.causes(undecided.sites_at(on_statement, index)) == ["compiled-no-stub"]
    assert undecided.sites_at(other_line, index) == []
    assert undecided.sites_at(other_file, index) == []
    assert undecided.measured({"call_sites": 3, "undecided_sites": []})
    assert not undecided.measured({"call_sites": 3})
    assert not undecided.measured({"undecided_sites": [], "call_sites": None})


def _judge(tmp_path: Path, row: dict[str, Any]) -> dict[str, Any]:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mod.py").write_text(SOURCE, encoding="utf-8")
    sources = Sources("pkg", "1", "wheel", "pkg-1.whl", tmp_path, ("pkg/mod.py",))
    judge = ConsumerJudge({"spec": "pkg==1", "findings": [], **row}, ("acme",), sources)
    answers = {}
    for query in judge.queries():
        gone = "old" in str(query.get("chain", ""))
        answers[query["key"]] = {"baseline": WORKS, "target": GONE if gone else WORKS}
    return judge.judge(answers)


def test_the_judge_counts_undecided_touchpoints_and_marks_undecided_breaks(tmp_path: Path) -> None:
    # line 3: acme.old (a break, undecided); line 4: acme.new (undecided, works);
    # line 6: acme.old inside the statement of line 5 (a break, the site on line 5)
    row = {"call_sites": 9, "undecided_sites": [site("pkg/mod.py", 3), site("pkg/mod.py", 4),
           site("pkg/mod.py", 5, "unresolved-base"), site("gone/file.py", 1)]}  # fmt: skip
    judged = _judge(tmp_path, row)
    assert judged["touchpoints"]["total"] == 4  # import acme, the three chains
    assert judged["undecided"] == {"touchpoints": 3, "sites": 4, "located": 3}
    assert [(b["line"], b["undecided"]) for b in judged["breaks"]] == [
        (3, ["decorated"]), (6, ["unresolved-base"])]  # fmt: skip
    assert all(verdicts.bare(b["symbol"]) == "acme.old" for b in judged["breaks"])


def test_a_report_row_without_undecided_sites_is_not_measured(tmp_path: Path) -> None:
    judged = _judge(tmp_path, {})
    assert judged["undecided"] is None
    assert [b["undecided"] for b in judged["breaks"]] == [None, None]
