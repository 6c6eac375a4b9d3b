"""fixtext.py proposes, without libcst, the very fixes fixes.py makes through libcst's tree:
on hand-written cases, and on every call and `from` import of real code (this package, its
tests, and the libraries the tests import), each keyword renamed, dropped, each run of
positional arguments given by keyword, each imported name moved. Where fixtext.py is not sure
it says so, and the file goes to libcst; it never answers differently."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from auditor import fixes, fixtext
from auditor.kinds import Kind
from auditor.model import Finding, FixHint, Location

ROOT = Path(__file__).resolve().parents[2]


def finding(
    line: int, column: int, end_line: int, end_column: int, hint: FixHint, symbol: str = "acme.f"
) -> Finding:
    where = Location("m.py", line, column, end_line, end_column)
    return Finding(
        Kind.UNEXPECTED_KEYWORD, where, "m", symbol, None, ("0.2",), None, None, hint=hint
    )


def hints_for(text: str) -> list[Finding]:
    """A finding for each repair one could ask of each call and `from` import in `text`,
    placed where libcst has the node."""
    wrapper = MetadataWrapper(cst.parse_module(text))
    positions = wrapper.resolve(PositionProvider)
    out: list[Finding] = []
    for node, where in positions.items():
        place = (where.start.line, where.start.column + 1, where.end.line, where.end.column + 1)
        if isinstance(node, cst.Call):
            names = [a.keyword.value for a in node.args if a.keyword is not None]
            for name in names:
                out.append(
                    finding(*place, FixHint("rename-keyword", True, old=name, new="renamed"))
                )
                if len(names) > 1:
                    other = names[-1] if name != names[-1] else names[0]
                    out.append(
                        finding(*place, FixHint("rename-keyword", True, old=name, new=other))
                    )
                out.append(
                    finding(*place, FixHint("drop-keyword", False, old=name, default="None"))
                )
                out.append(finding(*place, FixHint("drop-keyword", False, old=name, default="1")))
            count = sum(1 for a in node.args if a.keyword is None and not a.star)
            for start in range(max(count - 2, 0), count):  # bind asks for the last ones
                keywords = tuple(f"k{n}" for n in range(count - start))
                out.append(
                    finding(*place, FixHint("keywordize", True, names=keywords, start=start))
                )
        elif isinstance(node, cst.ImportFrom) and node.module is not None and not node.relative:
            module = cst.Module([]).code_for_node(node.module).replace(" ", "")
            if isinstance(node.names, cst.ImportStar):
                continue
            for alias in node.names:
                name = cst.Module([]).code_for_node(alias.name)
                hint = FixHint("move-import", True, old=module, new="new.place")
                out.append(finding(*place, hint, symbol=f"{module}.{name}"))
    return out


def compare(text: str) -> tuple[int, int, list[tuple[Finding, object, object]]]:
    """(same, unsure, differing) over every finding hints_for(text) makes, each alone
    through fixtext.propose and fixes.propose, the parse check included."""
    same, unsure, differ = 0, 0, []
    for one in hints_for(text):
        (slow,) = fixes.propose([one], lambda _: text)
        if fixtext.file_fixes("m.py", text, [one]) is None:
            unsure += 1
            continue
        (fast,) = fixtext.propose([one], lambda _: text, lambda *_: ())
        if fast == slow:
            same += 1
        else:
            differ.append((one, slow.fix, fast.fix))
    return same, unsure, differ


def compare_each(text: str) -> tuple[int, int, list[tuple[Finding, object, object]]]:
    """(same, unsure, differing): each finding's fix as the two make it (fix_for), without
    the parse check (the same code in both)."""
    source, plain = fixes._Source.parse(text), fixtext.file_fixes("m.py", text, [])
    if source is None or plain is None:
        return 0, 0, []
    tree = fixtext.parse_source("m.py", text)
    assert not isinstance(tree, fixtext.Unparsable)
    mine = fixtext._Text(text, tree)
    same, unsure, differ = 0, 0, []
    for one in hints_for(text):
        expected, fix = source.fix_for(one), mine.fix_for(one)
        if isinstance(fix, fixtext.Unsure):
            unsure += 1
        elif fix == expected:
            same += 1
        else:
            differ.append((one, expected, fix))
    return same, unsure, differ


CASES = [
    "f(a, b=1)\n",
    "f( a , b=1 )\n",
    "f(b=1)\n",
    "f( b=1 , )\n",
    "f(a, b=1,)\n",
    "f(a, b=1, c=2)\n",
    "f(\n    'm',\n    verbose=False,  # c\n)\n",
    "f(\n  a,  # x\n  b=1\n)\n",
    "x = g(\n    a,\n    # lone comment\n    b = (1),\n    c=2,\n)\n",
    "def h():\n    return acme.run('m', verbose=True)  # fix\n",
    "f(*args, key=1, **kw)\n",
    "f(x for x in y)\n",
    "f((a), (b), c=3)\n",
    "f(a)(b, c=1)\n",
    "f(g(a, b=1), b=2)\n",
    "from acme.utils import cdiv, clamp  # moved (a comment; with parentheses)\n",
    "def p():\n    from acme.utils import cdiv as ceil_div\n",
    "from acme.utils import a , b as c,d\n",
    "from acme import x; import y\n",
    "from acme import (\n    a,\n    b,\n)\n",
    "s = f'{f(a, b=1)}'\n",
    "f(a,\tb=1)\n",
    "f('é', b=1)\n",
    "f(a, \\\n  b=1)\n",
    "@deco(a, b=1)\ndef k():\n    pass\n",
]


@pytest.mark.parametrize("text", CASES)
def test_the_text_gives_what_libcst_gives(text: str) -> None:
    same, unsure, differ = compare(text)
    assert differ == []
    assert same + unsure > 0


def test_the_plain_cases_need_no_libcst() -> None:
    for text in CASES[:16]:
        _, unsure, _ = compare(text)
        assert unsure == 0, text


def _corpus() -> list[Path]:
    """Small files (libcst's fix_for rewrites the whole module per fix): this package's
    and some of libcst's own."""
    files = sorted((ROOT / "auditor").rglob("*.py")) + sorted(
        Path(cst.__file__).parent.rglob("*.py")
    )
    return [p for p in files if 800 < p.stat().st_size < 5000][:40]


def test_real_code_gives_what_libcst_gives() -> None:
    same = unsure = 0
    differ: list[tuple[str, tuple[Finding, object, object]]] = []
    for path in _corpus():
        text = path.read_text(encoding="utf-8")
        try:
            counts = compare_each(text)
        except cst.ParserSyntaxError:
            continue
        same, unsure = same + counts[0], unsure + counts[1]
        differ += [(str(path), d) for d in counts[2]]
    assert differ[:3] == []
    assert same > 10 * unsure  # the plain cases are most of real code
