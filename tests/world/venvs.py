"""Scratch venvs for the judge: one provider release each, made with the manifest's Python.

`provider_venv(work, python, provider, version)` makes (once, then reuses)
`venvs/<provider>-<version>-py<python>/` with `python<X.Y> -m venv` and
`pip install <provider>==<version>`: the release with its own dependencies, resolved by pip
from the index pip's configuration names. Never drift-audit's environment, never a consumer.
A venv whose install failed is not reused: the next run tries again. `freeze.txt` beside the
interpreter records what was installed (the judge's evidence cites it).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

INSTALL_TIMEOUT = 1800


class VenvError(Exception):
    """The venv could not be made; the message says why (the tail of pip's output)."""


@dataclass(frozen=True)
class Venv:
    path: Path
    requirement: str

    @property
    def python(self) -> Path:
        return self.path / "bin" / "python"

    @property
    def freeze(self) -> str:
        marker = self.path / "freeze.txt"
        return marker.read_text(encoding="utf-8") if marker.is_file() else ""


def interpreter(python: str) -> str:
    """`python3.11` for "3.11", from PATH; VenvError when it is not there."""
    found = shutil.which(f"python{python}")
    if found is None:
        raise VenvError(f"python{python} is not on PATH: the manifest's judge needs it")
    return found


def _pip_env() -> dict[str, str]:
    env = dict(os.environ)
    for key in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PIP_REQUIRE_VIRTUALENV"):
        env.pop(key, None)
    return env


def make_venv(path: Path, python: str, args: list[str]) -> Venv:
    """A venv at `path` with `pip install ARGS` done; reused when `freeze.txt` says it is."""
    requirement = " ".join(args)
    venv = Venv(path, requirement)
    stamp = path / "requirement.txt"
    ready = (path / "freeze.txt").is_file() and stamp.is_file()
    if ready and stamp.read_text(encoding="utf-8") == requirement:
        return venv
    shutil.rmtree(path, ignore_errors=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    steps = [
        [interpreter(python), "-m", "venv", str(path)],
        [str(venv.python), "-m", "pip", "install", "--quiet", *args],
    ]
    for step in steps:
        try:
            done = subprocess.run(
                step, capture_output=True, text=True, timeout=INSTALL_TIMEOUT, env=_pip_env()
            )
        except subprocess.TimeoutExpired as exc:
            shutil.rmtree(path, ignore_errors=True)
            raise VenvError(f"{' '.join(step[-2:])}: timed out") from exc
        if done.returncode != 0:
            shutil.rmtree(path, ignore_errors=True)
            tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
            raise VenvError(f"{' '.join(step[3:])} failed: {' | '.join(tail)}")
    freeze = subprocess.run(
        [str(venv.python), "-m", "pip", "freeze", "--all"],
        capture_output=True,
        text=True,
        timeout=120,
        env=_pip_env(),
        check=True,
    ).stdout
    stamp.write_text(requirement, encoding="utf-8")
    (path / "freeze.txt").write_text(freeze, encoding="utf-8")
    return venv


def provider_venv(work: Path, python: str, provider: str, version: str) -> Venv:
    name = f"{provider.lower()}-{version}-py{python}"
    return make_venv(work / "venvs" / name, python, [f"{provider}=={version}"])
