"""Scratch venvs for the judge: one provider release each, made with the manifest's Python.

`provider_venv(work, python, provider, version, import_names)` makes (once, then reuses)
`venvs/<provider>-<version>-py<python>/` with `python<X.Y> -m venv` and
`pip install <provider>==<version>`: the release with its own dependencies, resolved by pip
from the index pip's configuration names. Never drift-audit's environment, never a consumer.

The release must then import (`import <name>` for each import name, in a subprocess with a
timeout). When it does not (pandas 1.5.3 beside today's numpy 2: "numpy.dtype size
changed"), the venv is made again with its dependencies as of the release: pip's dry run
(`--report`) lists what it would install, and each dependency whose chosen version was
uploaded after the provider release gets a constraint `name<=V`, V the newest release
uploaded before it (upload times from the index's JSON pages). `constraints.txt` keeps them.
A venv whose release still does not import is an error (the judge then decides nothing for
that upgrade, and says why). `freeze.txt` records what was installed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from typing import TYPE_CHECKING

from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from tests.world.index import release_dates

if TYPE_CHECKING:
    import datetime as dt
    from collections.abc import Sequence
    from pathlib import Path

INSTALL_TIMEOUT = 1800
IMPORT_TIMEOUT = 300


class VenvError(Exception):
    """The venv could not be made; the message says why (the tail of pip's output)."""


@dataclass(frozen=True)
class Venv:
    path: Path
    requirement: str

    @property
    def python(self) -> Path:
        return self.path / "bin" / "python"

    def _text(self, name: str) -> str:
        file = self.path / name
        return file.read_text(encoding="utf-8") if file.is_file() else ""

    @property
    def freeze(self) -> str:
        return self._text("freeze.txt")

    @property
    def constraints(self) -> str:
        return self._text("constraints.txt")


def interpreter(python: str) -> str:
    """`python3.11` for "3.11", from PATH; VenvError when it is not there."""
    found = shutil.which(f"python{python}")
    if found is None:
        raise VenvError(f"python{python} is not on PATH: the manifest's judge needs it")
    return found


def isolation() -> list[str]:
    """`unshare -n` (no network) when this machine allows it, else nothing."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return []
    done = subprocess.run([unshare, "-n", "true"], capture_output=True, timeout=30, check=False)
    return [unshare, "-n"] if done.returncode == 0 else []


def _pip_env() -> dict[str, str]:
    env = dict(os.environ)
    for key in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PIP_REQUIRE_VIRTUALENV"):
        env.pop(key, None)
    return env


def _run(step: list[str], timeout: float = INSTALL_TIMEOUT) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(step, capture_output=True, text=True, timeout=timeout,
                              env=_pip_env(), check=False)  # fmt: skip
    except subprocess.TimeoutExpired as exc:
        raise VenvError(f"{' '.join(step[-2:])}: timed out after {timeout:.0f} s") from exc


def _tail(done: subprocess.CompletedProcess[str]) -> str:
    return " | ".join((done.stderr or done.stdout).strip().splitlines()[-3:])


def _create(venv: Venv, python: str, args: list[str], constraints: Path | None = None) -> None:
    shutil.rmtree(venv.path, ignore_errors=True)
    venv.path.parent.mkdir(parents=True, exist_ok=True)
    pinned = ["-c", str(constraints)] if constraints is not None else []
    for step in (
        [interpreter(python), "-m", "venv", str(venv.path)],
        [str(venv.python), "-m", "pip", "install", "--quiet", *pinned, *args],
    ):
        done = _run(step)
        if done.returncode != 0:
            shutil.rmtree(venv.path, ignore_errors=True)
            raise VenvError(f"{' '.join(step[3:])} failed: {_tail(done)}")


def import_error(venv: Venv, names: Sequence[str]) -> str | None:
    """Why the release does not import in the venv, or None when it does."""
    if not names:
        return None
    code = "; ".join(f"import {n}" for n in names)
    home = venv.path / "home"
    home.mkdir(exist_ok=True)
    env = {"PATH": f"{venv.path / 'bin'}:/usr/bin:/bin", "HOME": str(home), "MPLBACKEND": "Agg",
           "LANG": "C.UTF-8"}  # fmt: skip
    try:
        done = subprocess.run([*isolation(), str(venv.python), "-I", "-c", code], env=env,
                              cwd=home, capture_output=True, text=True, timeout=IMPORT_TIMEOUT,
                              check=False)  # fmt: skip
    except subprocess.TimeoutExpired:
        return f"`{code}` took more than {IMPORT_TIMEOUT} s"
    return None if done.returncode == 0 else f"`{code}` fails: {_tail(done)}"


def dated_constraints(venv: Venv, requirement: str, provider: str, version: str) -> list[str]:
    """`name<=V` for each dependency pip would install newer than the provider release."""
    cutoff = release_dates(venv.python, provider).get(str(Version(version)))
    if cutoff is None:
        return []
    report = venv.path / "report.json"
    step = [str(venv.python), "-m", "pip", "install", "--quiet", "--dry-run", "--ignore-installed",
            "--report", str(report), requirement]  # fmt: skip
    if _run(step).returncode != 0 or not report.is_file():
        return []
    planned = json.loads(report.read_text(encoding="utf-8")).get("install", [])
    chosen = [(i["metadata"]["name"], i["metadata"]["version"]) for i in planned]
    out = []
    for name, picked in chosen:
        if canonicalize_name(name) == canonicalize_name(provider):
            continue
        older = _newest_before(release_dates(venv.python, name), cutoff)
        if older is not None and Version(picked) > older:
            out.append(f"{canonicalize_name(name)}<={older}")
    return sorted(out)


def _newest_before(dates: dict[str, dt.datetime], cutoff: dt.datetime) -> Version | None:
    versions = []
    for text, when in dates.items():
        try:
            parsed = Version(text)
        except InvalidVersion:
            continue
        if when <= cutoff and not parsed.is_prerelease and not parsed.is_devrelease:
            versions.append(parsed)
    return max(versions, default=None)


def make_venv(
    path: Path, python: str, args: list[str], imports: Sequence[str] = (),
    dated: tuple[str, str] | None = None,
) -> Venv:  # fmt: skip
    """A venv at `path` with `pip install ARGS` done and `imports` importing; reused when
    it was made, and its imports checked, for the same arguments. `dated` (provider, version): when
    the imports fail, make it again with the dependencies as of that release."""
    requirement = " ".join(args)
    venv = Venv(path, requirement)
    stamp, checked = path / "requirement.txt", path / "imports.txt"
    made = {stamp: requirement, checked: " ".join(imports)}
    if (path / "freeze.txt").is_file() and all(
        f.is_file() and f.read_text(encoding="utf-8") == text for f, text in made.items()
    ):
        return venv
    _create(venv, python, args)
    failure = import_error(venv, imports)
    if failure and dated is not None:
        pins = dated_constraints(venv, args[-1], *dated)
        if pins:
            text = "\n".join(pins) + "\n"
            kept = path.parent / f".{path.name}.constraints.txt"
            kept.write_text(text, encoding="utf-8")
            _create(venv, python, args, kept)
            kept.replace(path / "constraints.txt")
            again = import_error(venv, imports)
            failure = None if again is None else f"{failure}; with {', '.join(pins)}: {again}"
    if failure:
        shutil.rmtree(path, ignore_errors=True)
        raise VenvError(f"{requirement}: the release does not import: {failure}")
    freeze = _run([str(venv.python), "-m", "pip", "freeze", "--all"], 120).stdout
    for file, text in made.items():
        file.write_text(text, encoding="utf-8")
    (path / "freeze.txt").write_text(freeze, encoding="utf-8")
    return venv


def provider_venv(
    work: Path, python: str, provider: str, version: str, imports: Sequence[str] = ()
) -> Venv:
    name = f"{provider.lower()}-{version}-py{python}"
    spec = f"{provider}=={version}"
    return make_venv(work / "venvs" / name, python, [spec], imports, (provider, version))
