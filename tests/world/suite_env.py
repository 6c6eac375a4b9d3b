"""The test-suite judge's two scratch venvs per dependent: the dependent at its pinned release
with its test requirements, beside the provider at the baseline, then at the target.

- **baseline**: `python<X.Y> -m venv`, then `pip install P==baseline D==V pytest` and the test
  requirements (testsource.py), constrained by the provider venv's `constraints.txt` (venvs.py's,
  as the judge made it) and by caps as of the upgrade's cut-off (the target's first upload, the
  rule's): pip's dry run (`--report`) lists what it would install, and each package picked at a
  release uploaded after the cut-off gets `name<=V`, V its newest final release uploaded before
  it (again with the caps, up to three rounds: an older release may pull other packages). So
  the old code still imports. The test requirements are installed with the rest, else each on
  its own (one that does not build costs only the tests that need it); when the dependent
  itself does not install with the caps (an old release of a dependency with no wheel for this
  Python, that does not build here), it is installed without them, and the outcome says so.
- **target**: the baseline's `pip freeze --all` without the provider, installed `--no-deps`,
  then `pip install P==target` with the same caps: the two venvs differ only in the provider
  and in what its target release needs, and the dependent's own bound on the provider is
  overridden (as crater does: the question is whether its code still runs).

pip runs with HOME and TMPDIR in the work folder (`suites/home`, `suites/tmp`), its cache in
`pip-cache/` and the user's pip configuration passed on by `PIP_CONFIG_FILE`; building a
dependent from its sdist runs that dependent's build code, with the network on.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from tests.world.common import write_text
from tests.world.index import index_urls, release_dates_at
from tests.world.venvs import INSTALL_TIMEOUT, Venv, VenvError, _newest_before, interpreter

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

ROUNDS = 3


def _user_pip_config() -> str | None:
    home = Path.home()
    xdg = os.environ.get("XDG_CONFIG_HOME")
    for path in ([Path(xdg) / "pip" / "pip.conf"] if xdg else []) + [
        home / ".config" / "pip" / "pip.conf",
        home / ".pip" / "pip.conf",
    ]:
        if path.is_file():
            return str(path)
    return os.environ.get("PIP_CONFIG_FILE")


def install_env(work: Path) -> dict[str, str]:
    """pip's environment: this one's, with HOME, TMPDIR and pip's cache in the work folder."""
    env = dict(os.environ)
    for key in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PIP_REQUIRE_VIRTUALENV"):
        env.pop(key, None)
    config = _user_pip_config()
    home, tmp = work / "suites" / "home" / "install", work / "suites" / "tmp"
    for folder in (home, tmp):
        folder.mkdir(parents=True, exist_ok=True)
    env.update(HOME=str(home), TMPDIR=str(tmp), PIP_CACHE_DIR=str(work / "pip-cache"))
    if config:
        env["PIP_CONFIG_FILE"] = config
    return env


class Dates:
    """Release upload times per package, read once from the index and kept on disk."""

    def __init__(self, work: Path, pip_python: Path) -> None:
        self.folder = work / "suites" / "dates"
        self.pip_python = pip_python
        self._indexes: list[str] | None = None

    def of(self, name: str) -> dict[str, dt.datetime]:
        path = self.folder / f"{canonicalize_name(name)}.json"
        if path.is_file():
            kept = json.loads(path.read_text(encoding="utf-8"))
            return {v: dt.datetime.fromisoformat(t) for v, t in kept.items()}
        if self._indexes is None:
            self._indexes = index_urls(self.pip_python)
        dates = release_dates_at(self._indexes, name)
        if dates:
            write_text(path, json.dumps({v: t.isoformat() for v, t in dates.items()}))
        return dates


@dataclass
class Install:
    """What one venv holds and how it was made (kept in the suite's outcome)."""

    requirements: list[str]
    caps: list[str] = field(default_factory=list)
    freeze: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        return {"requirements": self.requirements, "caps": self.caps, "freeze": self.freeze,
                "notes": self.notes}  # fmt: skip


class Installer:
    def __init__(self, work: Path, python: str, dates: Dates, cutoff: dt.datetime) -> None:
        self.work = work
        self.python = python
        self.dates = dates
        self.cutoff = cutoff
        self.env = install_env(work)

    def _run(self, step: list[str]) -> subprocess.CompletedProcess[str]:
        try:
            return subprocess.run(step, capture_output=True, text=True, env=self.env,
                                  timeout=INSTALL_TIMEOUT, check=False)  # fmt: skip
        except subprocess.TimeoutExpired as exc:
            raise VenvError(f"{' '.join(step[3:6])}: timed out after {INSTALL_TIMEOUT} s") from exc

    def _pip(self, venv: Venv, args: list[str]) -> subprocess.CompletedProcess[str]:
        return self._run([str(venv.python), "-m", "pip", *args])

    def create(self, path: Path) -> Venv:
        shutil.rmtree(path, ignore_errors=True)
        path.parent.mkdir(parents=True, exist_ok=True)
        done = self._run([interpreter(self.python), "-m", "venv", str(path)])
        if done.returncode != 0:
            raise VenvError(f"venv failed: {_tail(done)}")
        return Venv(path, "")

    def _planned(
        self, venv: Venv, reqs: Sequence[str], constraints: list[Path]
    ) -> list[tuple[str, str]] | None:
        report = venv.path / "report.json"
        report.unlink(missing_ok=True)
        args = ["install", "--quiet", "--dry-run", "--ignore-installed", "--report", str(report),
                *_constrained(constraints), *reqs]  # fmt: skip
        if self._pip(venv, args).returncode != 0 or not report.is_file():
            return None
        planned = json.loads(report.read_text(encoding="utf-8")).get("install", [])
        return [(i["metadata"]["name"], i["metadata"]["version"]) for i in planned]

    def caps(
        self, venv: Venv, reqs: Sequence[str], constraints: list[Path], skip: set[str]
    ) -> list[str] | None:
        """`name<=V` for every package pip would pick newer than the cut-off allows (written
        to caps.txt); None when pip cannot resolve the requirements at all."""
        caps: dict[str, str] = {}
        kept: dict[str, str] = {}
        file = venv.path / "caps.txt"
        for round_ in range(ROUNDS + 1):
            _write_lines(file, caps.values())
            planned = self._planned(venv, reqs, [*constraints, file])
            if planned is None:
                if round_ == 0:
                    return None
                caps = kept  # the last round's caps made it unresolvable: the ones before
                break
            kept = dict(caps)
            new = self._new_caps(planned, caps, skip)
            if not new or round_ == ROUNDS:
                break
            caps.update(new)
        _write_lines(file, caps.values())
        return sorted(caps.values())

    def _new_caps(
        self, planned: list[tuple[str, str]], caps: dict[str, str], skip: set[str]
    ) -> dict[str, str]:
        new = {}
        for name, picked in planned:
            key = canonicalize_name(name)
            if key in skip or key in caps:
                continue
            newest = _newest_before(self.dates.of(name), self.cutoff)
            if newest is not None and _version(picked) > newest:
                new[key] = f"{key}<={newest}"
        return new

    def install(self, venv: Venv, args: list[str], constraints: list[Path]) -> str | None:
        """pip install; None when it worked, else the tail of pip's output."""
        done = self._pip(venv, ["install", "--quiet", *_constrained(constraints), *args])
        return None if done.returncode == 0 else _tail(done)

    def freeze(self, venv: Venv) -> list[str]:
        done = self._pip(venv, ["freeze", "--all"])
        return sorted(line for line in done.stdout.splitlines() if line.strip())


def _write_lines(path: Path, lines: Iterable[str]) -> None:
    path.write_text("".join(f"{line}\n" for line in sorted(lines)), encoding="utf-8")


def _version(text: str) -> Version:
    try:
        return Version(text)
    except InvalidVersion:
        return Version("0")


def _constrained(files: list[Path]) -> list[str]:
    out: list[str] = []
    for file in files:
        if file.is_file() and file.read_text(encoding="utf-8").strip():
            out += ["-c", str(file)]
    return out


def _tail(done: subprocess.CompletedProcess[str]) -> str:
    return " | ".join((done.stderr or done.stdout).strip().splitlines()[-3:])


def _freeze_name(line: str) -> str:
    return canonicalize_name(line.split("==")[0].split(" @ ")[0].strip())


def baseline_venv(
    installer: Installer, path: Path, provider: str, spec: str, pinned: str, core: list[str],
    extra: list[str], provider_constraints: Path,
) -> tuple[Venv, Install]:  # fmt: skip
    """`core` (the dependent, pytest) with the provider at `spec`, then each of `extra` (the
    test requirements) on its own, kept when it installs: a test requirement that does not
    build here (a database driver) costs only the tests that need it."""
    venv = installer.create(path)
    pins = path / "pins.txt"
    pins.write_text(f"{spec}\n{pinned}\n", encoding="utf-8")
    skip = {canonicalize_name(provider)}
    caps = installer.caps(venv, [spec, *core, *extra], [provider_constraints], skip)
    if caps is None:  # the whole set does not resolve: the caps of the core
        caps = installer.caps(venv, [spec, *core], [provider_constraints], skip) or []
    constraints = [provider_constraints, path / "caps.txt", pins]
    notes: list[str] = []
    if extra and installer.install(venv, [spec, *core, *extra], constraints) is None:
        return venv, Install([spec, *core, *extra], caps, installer.freeze(venv), notes)
    failure = installer.install(venv, [spec, *core], constraints)
    if failure is not None:  # an old release with no wheel for this Python that does not build
        notes.append(f"not installable with the caps ({failure[-300:]}): installed without them")
        caps, constraints = [], [provider_constraints, pins]
        _write_lines(path / "caps.txt", [])
        failure = installer.install(venv, [spec, *core], constraints)
    if failure is not None:
        raise VenvError(f"{' '.join([spec, *core])}: {failure}")
    for req in extra:  # together they did not install: each on its own
        failure = installer.install(venv, [req], constraints)
        if failure is not None:
            notes.append(f"{req} not installed: {failure[-300:]}")
    return venv, Install([spec, *core, *extra], caps, installer.freeze(venv), notes)


def target_venv(
    installer: Installer, path: Path, provider: str, spec: str, base: Install,
    provider_constraints: Path,
) -> tuple[Venv, Install]:  # fmt: skip
    """The baseline's packages, the provider at the target in place of its baseline."""
    venv = installer.create(path)
    kept = [
        line
        for line in base.freeze
        if _freeze_name(line) not in {canonicalize_name(provider), "pip"}
    ]
    frozen, caps = path / "frozen.txt", path / "caps.txt"
    frozen.write_text("".join(f"{line}\n" for line in kept), encoding="utf-8")
    caps.write_text("".join(f"{c}\n" for c in base.caps), encoding="utf-8")
    failure = installer.install(venv, ["--no-deps", "-r", str(frozen)], [])
    if failure is not None:
        raise VenvError(f"the baseline's packages --no-deps: {failure}")
    notes = []
    failure = installer.install(venv, [spec], [provider_constraints, caps])
    if failure is not None:
        notes.append(f"{spec} with the caps: {failure}; installed without them")
        failure = installer.install(venv, [spec], [provider_constraints])
    if failure is not None:
        raise VenvError(f"{spec}: {failure}")
    return venv, Install([spec], base.caps, installer.freeze(venv), notes)


def freeze_diff(base: list[str], target: list[str]) -> list[str]:
    """What differs between two freezes: `name old -> new`, `name (new) V`, `name (gone) V`."""

    def pins(lines: list[str]) -> dict[str, str]:
        return {_freeze_name(line): line.partition("==")[2] or line for line in lines}

    old, new = pins(base), pins(target)
    out = []
    for name in sorted(set(old) | set(new)):
        if name not in old:
            out.append(f"{name} (new) {new[name]}")
        elif name not in new:
            out.append(f"{name} (gone) {old[name]}")
        elif old[name] != new[name]:
            out.append(f"{name} {old[name]} -> {new[name]}")
    return out
