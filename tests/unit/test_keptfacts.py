"""Each file's walk kept between runs (scan/keptfacts.py): read back to the same facts and
the same scan, keyed by the file's text, a damaged record only a miss, and an edited
consumer walks only the file that changed."""

from __future__ import annotations

import ast
import json
import random
from pathlib import Path
from typing import TYPE_CHECKING, Any

from auditor.model import Unparsable, text_digest
from auditor.scan import ScanStore, consumer, scan_cached
from auditor.scan.consumer import _walk_file
from auditor.scan.crossfile import assemble as _assemble
from auditor.scan.facts import FileFacts, Positions, parse_expr
from auditor.scan.keptfacts import FactsStore, decode_facts, encode_facts, facts_key
from auditor.scan.source import parse_source, split_lines
from auditor.scan.store import Mismatch
from tests.helpers import DictTree

if TYPE_CHECKING:
    import pytest

ROOT = Path(__file__).resolve().parents[1]
PROVIDERS = frozenset({"acme"})

# Every kind of fact the walker records, and the texts that make a source span awkward.
TRICKY = """\
from __future__ import annotations
import acme, acme.io as aio
from acme.io import (Reader,
    open_stream as opened)
from acme.star import *
from . import sibling
try:
    from acme.fast import speed
except ImportError:
    speed = None

ÉTAT: "acme.State" = acme.State()
flag = acme.VERSION >= (2, 0)

def décor(f): return f

@décor
@acme.mark(name="ü", level=2)
def f(a, /, b: acme.Reader = acme.DEFAULT, *rest: *acme.Ts, c: dict[
        str, acme.Thing  # a comment inside
    ] = {"é": 1}, **kw: "acme.Kw") -> acme.Result | None:
    global ÉTAT
    x = lambda y=acme.Y, *z: y
    total = [acme.item(i).value for i in rest if i]
    acme.run(*rest, key=b, **{"k": 1}, **kw)
    return acme.Result(a).done()

class Base(acme.Base[int], metaclass=acme.Meta):
    limit: acme.Limit
    def __init__(self, reader: acme.Reader, **kwargs) -> None:
        super().__init__(**kwargs)
        self.reader = reader
        self.other = acme.Other()
    @property
    def size(self) -> acme.Size: return self.reader.size()
    @staticmethod
    def make(n): return acme.make(n)

class Child(Base):
    def __init__(self, *args, **kwargs):
        super(Child, self).__init__(*args, **kwargs)
    def size(self):
        def inner():
            nonlocal self
            return self.reader.read()
        return inner()

if flag:
    acme.new_api()
else:
    acme.old_api()
try:
    acme.risky()
except (acme.Error, ValueError):
    pass
for item in acme.items():
    item.close()
"""


def _fixture_files() -> dict[str, str]:
    """Every consumer file of the fixture cases (each case's packages prefixed by its name,
    so that they do not clash), and TRICKY."""
    files = {"widget/tricky.py": TRICKY, "widget/__init__.py": "", "widget/empty.pyi": ""}
    for folder in sorted(ROOT.glob("cases*/*/consumer")):
        case = folder.parent.name.replace("-", "_")
        for path in sorted(folder.rglob("*.py")):
            files[f"{case}_{path.relative_to(folder).as_posix()}"] = path.read_text("utf-8")
    return files


def _walk(path: str, text: str) -> FileFacts | Unparsable:
    parsed = parse_source(path, text)
    if isinstance(parsed, Unparsable):
        return parsed
    return _walk_file(path, parsed, split_lines(text), PROVIDERS)


def _round_trip(path: str, text: str, facts: FileFacts | Unparsable) -> FileFacts | Unparsable:
    data = json.loads(json.dumps(encode_facts(facts)))
    return decode_facts(data, path, split_lines(text))


def test_facts_read_back_encode_the_same() -> None:
    files = _fixture_files()
    assert len(files) > 50
    for path, text in files.items():
        walked = _walk(path, text)
        back = _round_trip(path, text, walked)
        assert encode_facts(back) == encode_facts(walked), path


def test_facts_read_back_give_the_same_scan() -> None:
    """The whole cross-file stage over facts read back equals the one over fresh facts."""
    files = _fixture_files()
    walked = [_walk(p, t) for p, t in files.items()]
    back = [_round_trip(p, t, w) for (p, t), w in zip(files.items(), walked, strict=True)]
    lines = {p: split_lines(t) for p, t in files.items()}

    def scan(facts: list[FileFacts | Unparsable]) -> object:
        ok = [f for f in facts if isinstance(f, FileFacts)]
        bad = [f for f in facts if isinstance(f, Unparsable)]
        return _assemble(["widget"], list(files), ok, bad, lines, {}, PROVIDERS)

    fresh = scan(walked)
    assert fresh == scan(back)
    assert fresh.sites and fresh.edges  # type: ignore[attr-defined]


def test_an_expression_is_kept_as_text_that_parses_to_the_same_node() -> None:
    tree = ast.parse(TRICKY)
    positions = Positions("t.py", split_lines(TRICKY))
    checked = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            args = node.args
            exprs = [*node.decorator_list, *args.defaults, *args.kw_defaults]
            every = (*args.posonlyargs, *args.args, args.vararg, *args.kwonlyargs, args.kwarg)
            exprs += [a.annotation for a in every if a is not None and a.annotation is not None]
            exprs += [node.returns] if node.returns is not None else []
            for expr in exprs:
                if expr is not None:
                    kept = positions.expr(expr)
                    parsed = parse_expr(kept.text)
                    assert parsed is not None and ast.dump(parsed) == ast.dump(expr), kept.text
                    checked += 1
    assert checked >= 14
    assert parse_expr("1 +") is None and parse_expr(")") is None


def _mutations(value: Any, rng: random.Random) -> Any:
    """`value` with one element somewhere in it replaced by a value of another type."""
    if isinstance(value, list) and value and rng.random() < 0.8:
        i = rng.randrange(len(value))
        copy = list(value)
        copy[i] = _mutations(value[i], rng)
        return copy
    if isinstance(value, dict) and value and rng.random() < 0.8:
        key = rng.choice(list(value))
        return {**value, key: _mutations(value[key], rng)}
    return rng.choice([None, -1, 10**9, 1.5, "x", True, [], {}, [[]], ["x", 2]])


def test_a_damaged_record_is_only_a_miss() -> None:
    path, text = "widget/tricky.py", TRICKY
    encoded = json.loads(json.dumps(encode_facts(_walk(path, text))))
    rng = random.Random(7)
    refused = 0
    for _ in range(600):
        try:
            decode_facts(_mutations(encoded, rng), path, split_lines(text))
        except (Mismatch, KeyError, IndexError, TypeError, ValueError):
            refused += 1
    assert refused > 300  # most damage is seen; the rest is still facts of the right shape


def test_the_store_keeps_a_record_per_text_and_forgets_unused_ones(tmp_path: Path) -> None:
    path, text = "widget/tricky.py", TRICKY
    store = FactsStore(tmp_path, "consumer")
    key = facts_key(path, text_digest(text), PROVIDERS)
    assert facts_key(path, text_digest(text + "\n"), PROVIDERS) != key
    assert facts_key("widget/other.py", text_digest(text), PROVIDERS) != key
    assert facts_key(path, text_digest(text), {"other"}) != key
    assert store.load(key, path, split_lines(text)) is None
    walked = _walk(path, text)
    store.save(key, path, walked)
    store.save("0" * 40, path, walked)
    again = FactsStore(tmp_path, "consumer")
    back = again.load(key, path, split_lines(text))
    assert back is not None and encode_facts(back) == encode_facts(walked)
    assert again.load(key, "widget/elsewhere.py", split_lines(text)) is None  # not its path
    again.forget_unused()
    assert FactsStore(tmp_path, "consumer").load("0" * 40, path, split_lines(text)) is None
    assert FactsStore(tmp_path, "consumer").load(key, path, split_lines(text)) is not None
    record = next(tmp_path.glob(f"scan/*/facts/consumer/{key}.json"))
    record.write_text('{"format": 1, "path": "widget/tricky.py", "facts": ["facts", 1]}')
    assert FactsStore(tmp_path, "consumer").load(key, path, split_lines(text)) is None


def test_a_record_keeps_its_body_apart_and_the_interface_reads_without_it(
    tmp_path: Path,
) -> None:
    path, text = "widget/tricky.py", TRICKY
    key = facts_key(path, text_digest(text), PROVIDERS)
    walked = _walk(path, text)
    assert isinstance(walked, FileFacts) and walked.uses and walked.name_stores
    FactsStore(tmp_path, "consumer").save(key, path, walked)
    record = next(tmp_path.glob(f"scan/*/facts/consumer/{key}.json"))
    kept = json.loads(record.read_text())
    assert isinstance(kept["body"], str) and len(kept["interface"]) == 64
    store = FactsStore(tmp_path, "consumer")
    interface = store.load(key, path, split_lines(text), body=False)
    assert isinstance(interface, FileFacts) and not interface.uses
    assert encode_facts(interface)[8:11] == encode_facts(walked)[8:11]  # stores, functions
    assert store.interfaces[key] == kept["interface"]
    for body in ("[", "[]", '"x"', json.dumps([[]] * 7), None):
        record.write_text(json.dumps({**kept, "body": body}))
        assert FactsStore(tmp_path, "consumer").load(key, path, split_lines(text)) is None
    record.write_text(json.dumps({**kept, "facts": kept["facts"][:16]}))
    assert FactsStore(tmp_path, "consumer").load(key, path, split_lines(text)) is None


def test_an_edited_consumer_walks_only_the_file_that_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("DRIFT_AUDIT_NO_FACTS_KEEP", raising=False)
    files = {p: t for p, t in _fixture_files().items() if p.startswith("widget/")}
    files["widget/more.py"] = "import acme\nacme.more(1)\n"
    walked: list[str] = []
    real = consumer._walk_file

    def counting(path: str, *args: Any) -> FileFacts | Unparsable:
        walked.append(path)
        return real(path, *args)

    monkeypatch.setattr(consumer, "_walk_file", counting)
    store = ScanStore(tmp_path)

    def scan(tree: DictTree) -> Any:
        return scan_cached(tree, ["widget"], ["acme"], store=store)[1]()  # the whole scan

    first = scan(DictTree(files))
    assert sorted(walked) == sorted(p for p in files if p.endswith((".py", ".pyi")))
    walked.clear()
    edited = {**files, "widget/more.py": "import acme\nacme.more(1)\nacme.added(2)\n"}
    second = scan(DictTree(edited))
    assert walked == ["widget/more.py"]
    assert {s.target for s in second.sites} - {s.target for s in first.sites} == {"acme.added"}
    monkeypatch.setenv("DRIFT_AUDIT_NO_FACTS_KEEP", "1")
    walked.clear()
    fresh = scan_cached(DictTree(edited), ["widget"], ["acme"], store=ScanStore(tmp_path / "b"))
    assert len(walked) == len(files)
    assert fresh[1]() == second
