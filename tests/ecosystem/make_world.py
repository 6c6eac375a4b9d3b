"""A synthetic ecosystem: the provider `acme` at 1.0 and 2.0, and N consumers of it.

`make_world(folder, consumers=200, seed=0)` writes, deterministically from the seed:

- `acme` 1.0 and 2.0 as wheels. 2.0 removes the keyword `retries` from `acme.core.fetch`,
  adds a required parameter `port` to `acme.core.connect`, moves `slugify` from `acme.util`
  to the new `acme.text` (still re-exported as `acme.slugify`), and adds `acme.core.shutdown`.
  Everything else (`stable`, `total`, `clamp`) is unchanged. Plain functions only.
- `consumer-0000` ... as wheels at 1.0, each `Requires-Dist: acme>=1.0` (some `acme==1.0`),
  with an expected outcome against `acme==2.0` (baseline 1.0, what the requirement infers):
    regressed     calls a changed function the way 2.0 breaks (about a third)
    clean         calls only what did not change (about a third)
    fixed         calls what 1.0 lacks and 2.0 adds (`shutdown`, `acme.text`)
    still-broken  calls an unchanged function wrongly, so both releases break it
    error         cannot be audited: its wheel is not a zip (its page still advertises a
                  `.metadata` saying it requires acme, so it is found), or its RECORD lies
                  about a module's sha256
  and a few whose wheel holds a module that is not valid Python beside clean ones: an audit
  reports that file as `unparsable` and goes on, and their outcome is UNPARSABLE_OUTCOME
  (error: not fully checked, never clean; `uses` names "unparsable-module").
  Some consumers' pages advertise `<wheel>.metadata` (PEP 658), the others not.
- a handful of projects that do NOT depend on acme (`World.non_dependents`): no requirement,
  a requirement on another project, one whose older release required acme but whose newest
  does not, and an sdist-only project.

`World.load(fake)` puts every file into a tests.trust.fakeindex.FakeIndex (and its .metadata
switches); `write_static_index(world)` lays the same files out as a PEP 503 folder index.

    python -m tests.ecosystem.make_world FOLDER [--consumers N] [--seed S]

writes the world into FOLDER (wheels in files/, a folder index in simple/, the expected
outcomes in world.json) and prints the index's file URL.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from tests.trust.archives import metadata, sdist, wheel

if TYPE_CHECKING:
    from tests.trust.fakeindex import FakeIndex

PROVIDER = "acme"
BASELINE = "1.0"
TARGET = "2.0"
CONSUMER_VERSION = "1.0"

REGRESSED = "regressed"
STILL_BROKEN = "still-broken"
FIXED = "fixed"
CLEAN = "clean"
ERROR = "error"
OUTCOMES = (REGRESSED, STILL_BROKEN, FIXED, CLEAN, ERROR)  # auditor.model.Outcome's values
UNPARSABLE = "unparsable"  # a plan slot, not an outcome: a consumer with a broken module
UNPARSABLE_OUTCOME = ERROR  # an unparsable file was not checked: never a clean consumer

ACME_1 = {
    "acme/__init__.py": (
        '"""acme 1.0."""\n\n'
        "from acme.core import connect, fetch, stable, total\n"
        "from acme.util import clamp, slugify\n\n"
        '__all__ = ["clamp", "connect", "fetch", "slugify", "stable", "total"]\n'
    ),
    "acme/core.py": (
        "def connect(host, *, secure=True):\n    return (host, secure)\n\n\n"
        "def fetch(url, *, timeout=10, retries=3):\n    return (url, timeout, retries)\n\n\n"
        "def stable(x, y=1):\n    return x + y\n\n\n"
        "def total(*values):\n    return sum(values)\n"
    ),
    "acme/util.py": (
        "def slugify(text):\n    return text.lower().replace(' ', '-')\n\n\n"
        "def clamp(value, low, high):\n    return max(low, min(value, high))\n"
    ),
}
ACME_2 = {
    "acme/__init__.py": (
        '"""acme 2.0."""\n\n'
        "from acme.core import connect, fetch, shutdown, stable, total\n"
        "from acme.text import slugify\n"
        "from acme.util import clamp\n\n"
        '__all__ = ["clamp", "connect", "fetch", "shutdown", "slugify", "stable", "total"]\n'
    ),
    "acme/core.py": (
        "def connect(host, port, *, secure=True):\n    return (host, port, secure)\n\n\n"
        "def fetch(url, *, timeout=10):\n    return (url, timeout)\n\n\n"
        "def stable(x, y=1):\n    return x + y\n\n\n"
        "def total(*values):\n    return sum(values)\n\n\n"
        "def shutdown(grace=0):\n    return grace\n"
    ),
    "acme/text.py": "def slugify(text):\n    return text.lower().replace(' ', '-')\n",
    "acme/util.py": "def clamp(value, low, high):\n    return max(low, min(value, high))\n",
}


@dataclass(frozen=True)
class Usage:
    """One way a consumer uses acme: its import line and one call."""

    key: str
    imports: str
    call: str


def _usages(*rows: tuple[str, str, str]) -> tuple[Usage, ...]:
    return tuple(Usage(*row) for row in rows)


# Imported names never clash across pools: a consumer may mix a pool with CLEAN_USES.
BREAKING_USES = _usages(
    ("fetch-retries", "from acme import fetch", 'fetch("data/items", retries=2)'),
    ("connect-port", "from acme.core import connect", 'connect("db")'),
    ("util-slugify", "from acme.util import slugify", 'slugify("Hello World")'),
    ("attr-fetch", "import acme", 'acme.fetch("data", timeout=1, retries=5)'),
)
CLEAN_USES = _usages(
    ("stable", "from acme import stable", "stable(1, y=2)"),
    ("total", "from acme.core import total", "total(1, 2, 3)"),
    ("top-slugify", "import acme", 'acme.slugify("Hello")'),
    ("clamp", "from acme.util import clamp", "clamp(5, 0, 3)"),
    ("fetch-timeout", "import acme.core", 'acme.core.fetch("data", timeout=3)'),
)
FIXED_USES = _usages(
    ("shutdown", "from acme.core import shutdown", "shutdown()"),
    ("text-slugify", "from acme.text import slugify as text_slugify", 'text_slugify("x")'),
    ("attr-shutdown", "import acme", "acme.shutdown(grace=1)"),
)
STILL_BROKEN_USES = _usages(
    ("stable-extra", "from acme import stable", "stable(1, 2, 3)"),
    ("total-keyword", "from acme.core import total", "total(1, strict=True)"),
)
POOLS = {REGRESSED: BREAKING_USES, FIXED: FIXED_USES, STILL_BROKEN: STILL_BROKEN_USES}


@dataclass(frozen=True)
class Consumer:
    """One synthetic consumer and what an ecosystem run must say about it."""

    name: str  # canonical project name, consumer-0000
    version: str
    outcome: str  # one of OUTCOMES, against acme==2.0 with baseline 1.0
    requirement: str  # its Requires-Dist on acme
    wheel: Path
    advertises_metadata: bool  # its page lists <wheel>.metadata (PEP 658)
    uses: tuple[str, ...]  # Usage keys; for an error, why it cannot be audited

    @property
    def spec(self) -> str:
        return f"{self.name}=={self.version}"


@dataclass(frozen=True)
class World:
    """Everything make_world wrote, and the outcome expected for each consumer."""

    folder: Path
    provider_wheels: tuple[Path, ...]
    consumers: tuple[Consumer, ...]  # sorted by name
    others: tuple[Path, ...]  # the files of the projects that do not depend on acme
    non_dependents: tuple[str, ...]  # their names, sorted
    metadata: dict[str, bytes] = field(repr=False)  # wheel filename -> its .metadata
    provider: str = PROVIDER
    baseline: str = BASELINE
    target: str = TARGET

    @property
    def expected(self) -> dict[str, str]:
        """Consumer name -> expected outcome."""
        return {c.name: c.outcome for c in self.consumers}

    @property
    def dependents(self) -> list[str]:
        """What find_dependents must answer: every consumer (unreadable ones too), sorted."""
        return [c.name for c in self.consumers]

    @property
    def files(self) -> tuple[Path, ...]:
        return (*self.provider_wheels, *(c.wheel for c in self.consumers), *self.others)

    def by_outcome(self, outcome: str) -> list[Consumer]:
        return [c for c in self.consumers if c.outcome == outcome]

    def load(self, fake: FakeIndex) -> FakeIndex:
        """Every file of the world into `fake`, each .metadata served where it advertises one."""
        fake.add(*self.files)
        fake.metadata.update(self.metadata)
        fake.metadata_files.update(self.metadata)
        return fake

    def to_json(self) -> dict[str, object]:
        return {
            "provider": self.provider,
            "baseline": self.baseline,
            "target": self.target,
            "consumers": {
                c.name: {
                    "version": c.version,
                    "outcome": c.outcome,
                    "requirement": c.requirement,
                    "metadata": c.advertises_metadata,
                    "uses": list(c.uses),
                }
                for c in self.consumers
            },
            "non_dependents": list(self.non_dependents),
        }


def make_world(folder: Path, consumers: int = 200, seed: int = 0) -> World:
    """Write the provider, `consumers` consumers and the non-dependents into `folder/files`."""
    if consumers < 0:
        raise ValueError("consumers must be at least 0")
    files = folder / "files"
    files.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    provider = (
        wheel(files, PROVIDER, BASELINE, ACME_1),
        wheel(files, PROVIDER, TARGET, ACME_2),
    )
    served: dict[str, bytes] = {}
    made = [
        _consumer(files, i, outcome, rng, served) for i, outcome in enumerate(_plan(consumers, rng))
    ]
    others, names = _non_dependents(files)
    return World(folder, provider, tuple(made), others, names, served)


def _plan(n: int, rng: random.Random) -> list[str]:
    """The outcome of each consumer, shuffled: a few fixed, still-broken, error and
    unparsable ones, the rest split evenly between regressed and clean."""
    if n < 10:
        cycle = (REGRESSED, CLEAN, FIXED, STILL_BROKEN, ERROR, UNPARSABLE)
        return [cycle[i % len(cycle)] for i in range(n)]
    errors, fixed, still = max(2, n // 20), max(1, n // 10), max(1, n // 10)
    unparsable = max(1, n // 40)
    few = errors + fixed + still + unparsable
    regressed = (n - few + 1) // 2
    plan = [ERROR] * errors + [FIXED] * fixed + [STILL_BROKEN] * still
    plan += [UNPARSABLE] * unparsable + [REGRESSED] * regressed + [CLEAN] * (n - few - regressed)
    rng.shuffle(plan)
    return plan


def _consumer(
    files: Path, i: int, outcome: str, rng: random.Random, served: dict[str, bytes]
) -> Consumer:
    name, module = f"consumer-{i:04d}", f"consumer_{i:04d}"
    requirement = f"{PROVIDER}=={BASELINE}" if rng.random() < 0.2 else f"{PROVIDER}>={BASELINE}"
    requires = [requirement] + (["zeta>=1.0"] if rng.random() < 0.1 else [])
    advertises = rng.random() < 0.4
    if outcome == ERROR:
        return _unreadable(files, i, requirement, requires, rng, served)
    uses = _pick(CLEAN if outcome == UNPARSABLE else outcome, rng)
    sources = _sources(module, uses)
    keys = tuple(u.key for u in uses)
    if outcome == UNPARSABLE:
        sources[f"{module}/broken.py"] = "def broken(:\n    return acme.stable(1)\n"
        outcome, keys = UNPARSABLE_OUTCOME, (*keys, "unparsable-module")
    path = wheel(files, module, CONSUMER_VERSION, sources, requires=requires)
    if advertises:
        served[path.name] = metadata(module, CONSUMER_VERSION, requires).encode()
    return Consumer(name, CONSUMER_VERSION, outcome, requirement, path, advertises, keys)


def _pick(outcome: str, rng: random.Random) -> list[Usage]:
    """The usages of one consumer: 1-2 from its outcome's pool, 0-2 clean ones beside."""
    clean = rng.sample(CLEAN_USES, rng.randint(1 if outcome == CLEAN else 0, 3))
    if outcome == CLEAN:
        return clean
    return rng.sample(POOLS[outcome], rng.randint(1, 2)) + clean[:2]


def _sources(module: str, uses: list[Usage]) -> dict[str, str]:
    imports = sorted(dict.fromkeys(u.imports for u in uses))
    body = "".join(f"\n\ndef use_{n}():\n    return {u.call}\n" for n, u in enumerate(uses))
    main = f'"""{module}: a synthetic consumer of acme."""\n\n' + "\n".join(imports) + "\n" + body
    return {
        f"{module}/__init__.py": f'"""{module}."""\n',
        f"{module}/app.py": main,
        f"{module}/helpers.py": "def double(x):\n    return 2 * x\n",
    }


def _unreadable(
    files: Path,
    i: int,
    requirement: str,
    requires: list[str],
    rng: random.Random,
    served: dict[str, bytes],
) -> Consumer:
    """A consumer that cannot be audited: a wheel that is not a zip (found through the
    .metadata its page advertises), or a zip whose RECORD lies about a module."""
    name, module = f"consumer-{i:04d}", f"consumer_{i:04d}"
    info = metadata(module, CONSUMER_VERSION, requires).encode()
    if i % 2 == 0:
        path = files / f"{module}-{CONSUMER_VERSION}-py3-none-any.whl"
        path.write_bytes(b"this is not a zip archive\n" * rng.randint(2, 40))
        served[path.name] = info
        return Consumer(name, CONSUMER_VERSION, ERROR, requirement, path, True, ("not-a-zip",))
    uses = _pick(CLEAN, rng)
    sources = _sources(module, uses)
    path = wheel(
        files, module, CONSUMER_VERSION, sources, requires=requires, tamper=f"{module}/app.py"
    )
    advertises = rng.random() < 0.5
    if advertises:
        served[path.name] = info
    return Consumer(name, CONSUMER_VERSION, ERROR, requirement, path, advertises, ("bad-record",))


def _non_dependents(files: Path) -> tuple[tuple[Path, ...], tuple[str, ...]]:
    """Projects on the index that must not be found as dependents of acme."""
    module = {"pkg/__init__.py": "def hello():\n    return 1\n"}
    made = (
        wheel(files, "acme_extras", "1.0", {"acme_extras/__init__.py": "X = 1\n"}),
        wheel(files, "acmex", "0.3", {"acmex/__init__.py": "Y = 2\n"}, requires=["acmex-core"]),
        wheel(files, "plain_lib", "0.1", module, requires=["zeta>=1.0"]),
        wheel(files, "plain_lib", "0.2", module, requires=["zeta>=1.1", "acme-extras"]),
        wheel(files, "left_acme", "1.0", module, requires=[f"{PROVIDER}>=1.0"]),
        wheel(files, "left_acme", "2.0", module),  # the newest release no longer needs acme
        sdist(files, "tool_sdist", "1.0", {"tool_sdist/__init__.py": "Z = 3\n"}),
    )
    names = ("acme-extras", "acmex", "left-acme", "plain-lib", "tool-sdist")
    return made, names


# --------------------------------------------------------------------------- a folder index


def write_static_index(world: World) -> Path:
    """`world.folder/simple/`: a PEP 503 folder index of the world's files (root page, one
    page per project with sha256 fragments and data-core-metadata), the .metadata files
    beside the wheels. Pass the folder as --index-url."""
    simple = world.folder / "simple"
    by_project: dict[str, list[Path]] = {}
    for path in world.files:
        project = path.name.split("-", 1)[0].replace("_", "-").lower()
        by_project.setdefault(project, []).append(path)
    for filename, data in world.metadata.items():
        (world.folder / "files" / f"{filename}.metadata").write_bytes(data)
    for project, paths in by_project.items():
        (simple / project).mkdir(parents=True, exist_ok=True)
        links = "".join(_anchor(p, world.metadata.get(p.name)) for p in sorted(paths))
        (simple / project / "index.html").write_text(_html(links))
    root = "".join(f'<a href="{p}/">{p}</a>\n' for p in sorted(by_project))
    (simple / "index.html").write_text(_html(root))
    return simple


def _anchor(path: Path, info: bytes | None) -> str:
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    served = f' data-core-metadata="sha256={hashlib.sha256(info).hexdigest()}"' if info else ""
    return f'<a href="../../files/{path.name}#sha256={digest}"{served}>{path.name}</a>\n'


def _html(body: str) -> str:
    return f"<!DOCTYPE html>\n<html><body>\n{body}</body></html>\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--consumers", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    world = make_world(args.folder, args.consumers, args.seed)
    simple = write_static_index(world)
    (args.folder / "world.json").write_text(json.dumps(world.to_json(), indent=1) + "\n")
    print(simple.resolve().as_uri())


if __name__ == "__main__":
    main()
