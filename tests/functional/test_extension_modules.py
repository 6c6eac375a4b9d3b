"""An extension module with no stub beside it is opaque: what it defines is unknown.

SQLAlchemy 2.0 ships `sqlalchemy/cyextension/immutabledict.cpython-311-...so` (and a `.pyx`),
no `.py`, no `.pyi`; drift-audit said "no longer exists" for it and for every name in it.
Python imports such a module (tests/idioms/compiled `probe_a_module_compiled_with_no_stub_*`
run a real one, built by the oracle); here the same rule is proven on each way a release
reaches the tool: a wheel read by byte ranges from an index, a wheel file extracted into the
cache, each cold and warm (the cache keeps only that the binary is there, never the binary).

acme 0.1: `acme/speed.py` defines `fast` and `old`; acme 0.2 ships `acme/speed` compiled
only, and drops the plain module `acme/gone.py`. The consumer imports and calls both names:
no finding (they may be in the compiled module), four undecided sites; `import acme.gone`
stays a new removed-module.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING

import pytest

from auditor.sources.archive import extract_sources
from auditor.sources.trees import extension_base
from tests.trust import acme, machine
from tests.trust.archives import Member, sdist, wheel
from tests.trust.cli import invoke
from tests.trust.fakeindex import FakeIndex, indexes_closed_after, serving

if TYPE_CHECKING:
    from pathlib import Path

OLD = {
    "acme/__init__.py": "",
    "acme/gone.py": "",
    "acme/speed.py": "def fast(x):\n    return x\n\n\ndef old(x):\n    return x\n",
}
NEW = {"acme/__init__.py": ""}
BINARY = Member("acme/speed.cpython-311-x86_64-linux-gnu.so", os.urandom(4096))
CONSUMER = """\
from acme.speed import fast, old


def go():
    import acme.gone
    return fast(1), old(2)
"""


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch) -> None:
    machine.isolate(monkeypatch)


def _project(tmp_path: Path) -> Path:
    package = tmp_path / "project" / "widget"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(CONSUMER, encoding="utf-8")
    return package.parent


def _report(*args: str) -> dict:  # type: ignore[type-arg]
    result = invoke(*args, "--format", "json")
    assert result.exit_code == 1, (result.exit_code, result.output, result.exception)
    return json.loads(result.stdout)


def _verdict(report: dict) -> tuple[set[tuple[str, int]], int]:  # type: ignore[type-arg]
    new = {(f["kind"], f["line"]) for f in report["findings"] if f["status"] == "new"}
    return new, report["stats"]["undecided"]


EXPECTED = ({("removed-module", 5)}, 4)  # the two imports and the two calls are undecided


def test_a_wheel_read_by_ranges(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    dist = tmp_path / "dist"
    dist.mkdir()
    fake = FakeIndex()
    fake.add(
        wheel(dist, "acme", "0.1", OLD, extra=[acme.PADDING]),
        wheel(dist, "acme", "0.2", NEW, extra=[acme.PADDING, BINARY]),
    )
    project, cache = _project(tmp_path), tmp_path / "cache"
    args = (str(project), "--against", "acme==0.2", "--baseline", "0.1", "--index-url")
    with serving(fake), indexes_closed_after(monkeypatch):
        cold = _report(*args, fake.url, "--cache-dir", str(cache))
        warm = _report(*args, fake.url, "--cache-dir", str(cache))
    assert _verdict(cold) == _verdict(warm) == EXPECTED
    assert cold["stats"]["requests"] > 0  # the wheel was read by ranges, not downloaded
    assert not list(cache.rglob("*.so")), "the binary is never fetched or kept"


def test_a_wheel_file_extracted_into_the_cache(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    dist.mkdir()
    old = wheel(dist, "acme", "0.1", OLD)
    new = wheel(dist, "acme", "0.2", NEW, extra=[BINARY])
    project, cache = _project(tmp_path), tmp_path / "cache"
    args = (str(project), "--against", f"acme @ {new.as_uri()}", "--baseline")
    cold = _report(*args, f"acme @ {old.as_uri()}", "--cache-dir", str(cache))
    warm = _report(*args, f"acme @ {old.as_uri()}", "--cache-dir", str(cache))
    assert _verdict(cold) == _verdict(warm) == EXPECTED
    assert not list(cache.rglob("*.so")), "the binary is never kept"


def test_what_extraction_notes_of_extension_modules(tmp_path: Path) -> None:
    """Wheels (platlib included) and sdists (a Cython `.pyx`, under `src/`): each extension
    module by its module path, from the import root; none is written out."""
    dist = tmp_path / "dist"
    dist.mkdir()
    built = wheel(
        dist, "acme", "0.2", NEW,
        extra=[BINARY, Member("acme-0.2.data/platlib/acme/other.abi3.so", b"\0"),
               Member("acme-0.2.data/scripts/tool.so", b"\0")],
    )  # fmt: skip
    layout = extract_sources(built, built.name, tmp_path / "w", project="acme")
    assert layout.extensions == ("acme/other", "acme/speed")
    assert not list((tmp_path / "w").rglob("*.so"))
    source = sdist(dist, "acme", "0.2", {"src/acme/__init__.py": "", "src/acme/fast.pyx": "x"})
    layout = extract_sources(source, source.name, tmp_path / "s", project="acme")
    assert (layout.root, layout.extensions) == ("src", ("acme/fast",))


@pytest.mark.parametrize(
    ("path", "base"),
    [
        ("pkg/mod.cpython-311-x86_64-linux-gnu.so", "pkg/mod"),
        ("pkg/mod.abi3.so", "pkg/mod"),
        ("mod.so", "mod"),
        ("pkg/mod.cp311-win_amd64.pyd", "pkg/mod"),
        ("pkg/mod.pyx", "pkg/mod"),
        ("pkg/mod.py", None),
        ("pkg/libfoo.so.1", None),
        ("pkg/2fast.so", None),
    ],
)
def test_extension_file_names(path: str, base: str | None) -> None:
    assert extension_base(path) == base
