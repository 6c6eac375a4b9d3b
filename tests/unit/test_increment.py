"""An edited consumer scanned again only where the edit can change something (scan/increment.py)
gives the very scan a whole scan gives: every site, edge, definition, handler and gate."""

from __future__ import annotations

import json
import logging
import random
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from auditor.scan import ScanStore, scan_cached
from auditor.scan.consumer import scan_consumer
from tests.helpers import DictTree

if TYPE_CHECKING:
    from auditor.model import ConsumerScan

ROOT = Path(__file__).resolve().parents[1]
FIELDS = ("files", "definitions", "edges", "sites", "unparsable", "handlers", "gates")
MADE_AGAIN = "only their results made again"


class Tree(DictTree):
    """DictTree without its dedent: the texts as given."""

    def __init__(self, files: dict[str, str]) -> None:
        self.files = dict(files)
        self.reads = []


def _consumers() -> list[Path]:
    found = [*ROOT.glob("cases*/*/consumer"), *ROOT.glob("idioms/*/consumer")]
    return sorted(p for p in found if (p / "widget").is_dir())


def _files(folder: Path) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): p.read_text("utf-8") for p in sorted(folder.rglob("*.py"))
    }


def _edit(text: str, rng: random.Random) -> str:
    """One small edit: a line appended, a blank line put in (every later position moves),
    a line repeated or removed (it may no longer parse), a call given one more argument, an
    attribute of `self` renamed, an import of the provider added."""
    lines = text.split("\n")
    i = rng.randrange(len(lines))
    match rng.randrange(7):
        case 0:
            lines.append("# appended")
        case 1:
            lines.insert(i, "")
        case 2:
            lines.insert(i, lines[i])
        case 3:
            del lines[i]
        case 4:
            lines[i] = lines[i].replace("(", "(1, ", 1)
        case 5:
            lines[i] = lines[i].replace("self.", "self.x_", 1)
        case _:
            lines.insert(0, "import acme.extra")
    return "\n".join(lines)


def _same(found: ConsumerScan, whole: ConsumerScan) -> None:
    for name in FIELDS:
        assert getattr(found, name) == getattr(whole, name), name


@pytest.fixture
def debug(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    caplog.set_level(logging.DEBUG, logger="drift_audit")
    return caplog


@pytest.fixture(autouse=True)
def _on(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("FACTS_KEEP", "INCREMENT", "SCAN_CACHE"):
        monkeypatch.delenv(f"DRIFT_AUDIT_NO_{name}", raising=False)


def test_random_edits_give_what_a_whole_scan_gives(
    tmp_path: Path, debug: pytest.LogCaptureFixture
) -> None:
    """Every fixture consumer, edited at random again and again: each scan read back or made
    again by file equals a whole scan of the same files."""
    made_again = 0
    for n, folder in enumerate(_consumers()):
        rng = random.Random(n)
        files = _files(folder)
        store = ScanStore(tmp_path / folder.parent.name)
        scan_cached(Tree(files), ["widget"], ["acme"], store=store)
        for _ in range(6):
            for _ in range(rng.choice((1, 1, 2))):
                path = rng.choice(sorted(files))
                files[path] = _edit(files[path], rng)
            debug.clear()
            kept, whole = scan_cached(Tree(files), ["widget"], ["acme"], store=store)
            made_again += MADE_AGAIN in debug.text
            fresh = scan_consumer(Tree(files), ["widget"], ["acme"])
            _same(whole(), fresh)
            assert (kept.sites, kept.gates, kept.handlers) == (
                fresh.sites,
                fresh.gates,
                fresh.handlers,
            )
    assert made_again >= 20  # the edits that keep every interface are scanned by file


WIDGET = {
    "widget/__init__.py": "from widget.core import Engine, make\n",
    "widget/core.py": (
        "import acme\n"
        "class Engine(acme.Base):\n"
        "    def __init__(self):\n"
        "        self.client = acme.Client()\n"
        "    def run(self, x):\n"
        "        return self.client.send(x)\n"
        "def make():\n"
        "    return acme.make(1)\n"
    ),
    "widget/use.py": (
        "from widget import Engine, make\n"
        "def go():\n"
        "    e = Engine()\n"
        "    e.client.send(1, 2)\n"
        "    make().start()\n"
        "    return make()\n"
    ),
    "widget/other.py": "import acme\nacme.other()\n",
}


def _scan(files: dict[str, str], store: ScanStore) -> ConsumerScan:
    return scan_cached(Tree(files), ["widget"], ["acme"], store=store)[1]()


def test_an_edit_of_a_body_is_made_again_alone(
    tmp_path: Path, debug: pytest.LogCaptureFixture
) -> None:
    store = ScanStore(tmp_path)
    _scan(WIDGET, store)
    edited = {**WIDGET, "widget/use.py": WIDGET["widget/use.py"].replace("(1, 2)", "(3)")}
    edited["widget/use.py"] = "\n\n" + edited["widget/use.py"] + "    make()\n"
    debug.clear()
    found = _scan(edited, store)
    assert "1 of 4 files changed" in debug.text and MADE_AGAIN in debug.text
    _same(found, scan_consumer(Tree(edited), ["widget"], ["acme"]))
    sends = [s for s in found.sites if s.target.endswith(".send")]
    assert {(s.location.path, s.location.line) for s in sends} == {
        ("widget/core.py", 6),
        ("widget/use.py", 6),  # two lines down, as the edit moved it
    }


# What an edited file's uses reach only through other files: a family of classes across
# files (a base's stores into `self`, a subclass elsewhere), a store on another object
# (`c.client = ...`), a function's return annotation, a re-export, a provider base.
FAMILY = {
    "widget/__init__.py": "from widget.factory import build\n",
    "widget/base.py": (
        "import acme\n"
        "class Base(acme.Engine):\n"
        "    def __init__(self):\n"
        "        self.pool = acme.Pool()\n"
    ),
    "widget/child.py": (
        "from widget.base import Base\n"
        "class Child(Base):\n"
        "    def run(self):\n"
        "        return self.pool.take(1)\n"
    ),
    "widget/setup.py": (
        "import acme\n"
        "from widget.child import Child\n"
        "def configure(c: Child):\n"
        "    c.client = acme.Client()\n"
    ),
    "widget/factory.py": "import acme\ndef build() -> acme.Conn:\n    return acme.connect()\n",
    "widget/use.py": (
        "from widget import build\n"
        "from widget.base import Base\n"
        "def go(b: Base):\n"
        "    b.client.send(1)\n"
        "    b.pool.take(2)\n"
        "    b.start()\n"
        "    build().close()\n"
    ),
}
REACHED = {"acme.Client().send", "acme.Pool().take", "acme.Engine().start", "acme.Conn().close"}


def test_an_edited_file_reaches_the_same_through_files_read_in_as_needed(
    tmp_path: Path, debug: pytest.LogCaptureFixture
) -> None:
    store = ScanStore(tmp_path)
    whole = _scan(FAMILY, store)
    reached = {s.target for s in whole.sites if s.location.path == "widget/use.py"}
    assert reached >= REACHED
    text = FAMILY["widget/use.py"]
    for edit in ("\n" + text, text.replace("(1)", "(1, 2)"), text + "    go(b)\n"):
        files = {**FAMILY, "widget/use.py": edit}
        debug.clear()
        found = _scan(files, store)
        assert MADE_AGAIN in debug.text
        _same(found, scan_consumer(Tree(files), ["widget"], ["acme"]))
        assert {s.target for s in found.sites if s.location.path == "widget/use.py"} >= REACHED


@pytest.mark.parametrize(
    ("path", "old", "new"),
    [
        ("widget/core.py", "def make():", "def make(n=1):"),  # a signature
        ("widget/core.py", "def make():", "def make() -> acme.Thing:"),  # what it returns
        ("widget/core.py", "(acme.Base)", "(acme.Other)"),  # a base
        ("widget/core.py", "self.client = acme.Client()", "self.client = acme.Pool()"),
        ("widget/__init__.py", "Engine, make", "Engine"),  # a re-export
        ("widget/other.py", "acme.other()", "acme.other(\n"),  # no longer parses
    ],
)
def test_an_edit_other_files_can_see_is_a_whole_scan(
    tmp_path: Path, debug: pytest.LogCaptureFixture, path: str, old: str, new: str
) -> None:
    store = ScanStore(tmp_path)
    _scan(WIDGET, store)
    edited = {**WIDGET, path: WIDGET[path].replace(old, new)}
    assert edited[path] != WIDGET[path]
    debug.clear()
    found = _scan(edited, store)
    assert MADE_AGAIN not in debug.text
    _same(found, scan_consumer(Tree(edited), ["widget"], ["acme"]))


def test_a_file_added_or_removed_is_a_whole_scan(
    tmp_path: Path, debug: pytest.LogCaptureFixture
) -> None:
    store = ScanStore(tmp_path)
    _scan(WIDGET, store)
    for files in ({**WIDGET, "widget/new.py": "import acme\nacme.new()\n"}, WIDGET):
        debug.clear()
        _same(_scan(files, store), scan_consumer(Tree(files), ["widget"], ["acme"]))
        assert MADE_AGAIN not in debug.text


def _damage(record: Path, change: Any) -> None:
    data = json.loads(record.read_text())
    change(data)
    record.write_text(json.dumps(data))


def _set(key: str, value: Any) -> Any:
    return lambda data: data.__setitem__(key, value)


@pytest.mark.parametrize(
    "change",
    [
        _set("files", []),
        _set("files", {"widget/use.py": "k"}),
        _set("files", {"widget/use.py": [1, 2]}),
        _set("edges", {"widget/core.py": [10**6]}),
        _set("edges", {"widget/core.py": [-1]}),
        _set("edges", {"widget/core.py": "0"}),
        _set("edges", []),
        lambda data: data.pop("files"),
        lambda data: data["files"].pop("widget/core.py"),
    ],
)
def test_a_record_that_does_not_fit_is_a_whole_scan(
    tmp_path: Path, debug: pytest.LogCaptureFixture, change: Any
) -> None:
    store = ScanStore(tmp_path)
    _scan(WIDGET, store)
    (record,) = tmp_path.glob("scan/*/*.files.json")
    _damage(record, change)
    edited = {**WIDGET, "widget/use.py": WIDGET["widget/use.py"] + "# edited\n"}
    debug.clear()
    _same(_scan(edited, store), scan_consumer(Tree(edited), ["widget"], ["acme"]))
    assert MADE_AGAIN not in debug.text


def test_a_kept_site_of_a_file_the_record_lacks_is_a_whole_scan(
    tmp_path: Path, debug: pytest.LogCaptureFixture
) -> None:
    store = ScanStore(tmp_path)
    _scan(WIDGET, store)
    (sites,) = (p for p in tmp_path.glob("scan/*/*.json") if p.name.count(".") == 1)
    _damage(sites, lambda data: data["sites"][0][3].__setitem__(0, "elsewhere.py"))
    edited = {**WIDGET, "widget/use.py": WIDGET["widget/use.py"] + "# edited\n"}
    debug.clear()
    _same(_scan(edited, store), scan_consumer(Tree(edited), ["widget"], ["acme"]))
    assert MADE_AGAIN not in debug.text


def test_switched_off_it_is_a_whole_scan(
    tmp_path: Path, debug: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = ScanStore(tmp_path)
    _scan(WIDGET, store)
    monkeypatch.setenv("DRIFT_AUDIT_NO_INCREMENT", "1")
    edited = {**WIDGET, "widget/use.py": WIDGET["widget/use.py"] + "# edited\n"}
    debug.clear()
    _same(_scan(edited, store), scan_consumer(Tree(edited), ["widget"], ["acme"]))
    assert MADE_AGAIN not in debug.text and "1 of 4 files walked" in debug.text


def test_a_kept_definition_misshapen_gives_the_whole_scan_when_asked(
    tmp_path: Path, debug: pytest.LogCaptureFixture
) -> None:
    """The last scan's definitions go on as kept, read back only when a call graph needs
    them: one that does not read back then is a whole scan, never an error."""
    store = ScanStore(tmp_path)
    _scan(WIDGET, store)
    (graph,) = tmp_path.glob("scan/*/*.graph.json")

    def misshape(data: Any) -> None:
        (row,) = (r for r in data["definitions"] if r[0] == "widget.core.make")
        row[2][1] = "one"  # a line that is not a number, in a file not edited

    _damage(graph, misshape)
    edited = {**WIDGET, "widget/use.py": WIDGET["widget/use.py"] + "# edited\n"}
    debug.clear()
    kept, whole = scan_cached(Tree(edited), ["widget"], ["acme"], store=store)
    assert MADE_AGAIN in debug.text and kept.definitions == ()
    fresh = scan_consumer(Tree(edited), ["widget"], ["acme"])
    assert (kept.sites, kept.gates) == (fresh.sites, fresh.gates)
    _same(whole(), fresh)
