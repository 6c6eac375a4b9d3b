"""The common fixture of the trust tests (issue: trust, round two).

Provider `acme` 0.1 has `def run(a, b=1, old=2)`; 0.2 the same with `new=3` instead of `old`.
Consumer `widget/__init__.py` does `import acme` and `acme.run(1, old=5)`, which binds against
0.1 and raises TypeError against 0.2: one `unexpected-keyword` at line 3, new.
`test_the_fixture_breaks_as_the_interpreter_says` runs it, so the verdict is Python's.
"""

from __future__ import annotations

import contextlib
import os
from typing import TYPE_CHECKING

from tests.trust.archives import Member, wheel
from tests.trust.fakeindex import FakeIndex, indexes_closed_after, serving

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator
    from pathlib import Path

    import pytest

OLD = {"acme/__init__.py": "def run(a, b=1, old=2):\n    return a + b + old\n"}
NEW = {"acme/__init__.py": "def run(a, b=1, new=3):\n    return a + b + new\n"}
CONSUMER = "import acme\n\n\ndef go():\n    return acme.run(1, old=5)\n"
BREAK = ("unexpected-keyword", 5)  # (kind, line) of the one finding
PADDING = Member("acme/_native.so", os.urandom(600 * 1024))  # makes a wheel read by ranges


def consumer(root: Path, *, extra: dict[str, str] | None = None) -> Path:
    """A project folder `root` holding widget/ (and `extra` files, relative to root)."""
    package = root / "widget"
    package.mkdir(parents=True, exist_ok=True)
    (package / "__init__.py").write_text(CONSUMER, encoding="utf-8")
    for rel, text in (extra or {}).items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def provider_folders(root: Path) -> tuple[Path, Path]:
    """acme 0.1 and 0.2 as import roots on disk."""
    folders = []
    for version, files in (("0.1", OLD), ("0.2", NEW)):
        folder = root / f"acme-{version}"
        for rel, text in files.items():
            (folder / rel).parent.mkdir(parents=True, exist_ok=True)
            (folder / rel).write_text(text, encoding="utf-8")
        folders.append(folder)
    return folders[0], folders[1]


def wheels(dist: Path, *, ranged: bool = False, extra: Iterable[Member] = ()) -> list[Path]:
    """acme 0.1 and 0.2 as wheels (`ranged`: big enough to be read by byte ranges)."""
    more = [PADDING, *extra] if ranged else list(extra)
    return [
        wheel(dist, "acme", "0.1", OLD, extra=more),
        wheel(dist, "acme", "0.2", NEW, extra=more),
    ]


def folder_args(root: Path) -> list[str]:
    """--against 0.2 with --baseline 0.1, both as direct references to folders."""
    old, new = provider_folders(root)
    return ["--against", f"acme @ {new.as_uri()}", "--baseline", f"acme @ {old.as_uri()}"]


@contextlib.contextmanager
def ranged_index(
    folder: Path,
    monkeypatch: pytest.MonkeyPatch,
    more: Callable[[Path], Iterable[Path]] = lambda dist: (),
) -> Iterator[FakeIndex]:
    """A fake index on loopback serving acme 0.1 and 0.2 as wheels read by byte ranges (and
    the wheels `more` builds in the same dist folder), every Index closed at the end."""
    dist = folder / "dist"
    dist.mkdir()
    fake = FakeIndex()
    fake.add(*wheels(dist, ranged=True), *more(dist))
    with serving(fake), indexes_closed_after(monkeypatch):
        yield fake
