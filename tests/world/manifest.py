"""The world manifest: which provider upgrades, against which dependents, judged how.

`load(path)` reads and checks a manifest (schema 1; the format is fixed, see README.md):
every upgrade has an id, a family, a provider with a baseline and a target release, the
import names its modules go by, its dependents as `name==version`, and `judge = "full"` or
`"static-only"` (then `judge_note` says why the interpreter does not judge it).
`default_manifest()` is `manifest.toml` when it exists, else `manifest-dev.toml`.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

HERE = Path(__file__).resolve().parent
REAL = HERE / "manifest.toml"
DEV = HERE / "manifest-dev.toml"
JUDGES = ("full", "static-only")
_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([A-Za-z0-9][A-Za-z0-9.+!_-]*)$")
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


class ManifestError(Exception):
    """The manifest does not have the fixed shape; the message says where."""


@dataclass(frozen=True)
class Upgrade:
    id: str
    family: str
    provider: str
    baseline: str
    target: str
    import_names: tuple[str, ...]
    dependents: tuple[str, ...]
    judge: str
    judge_note: str = ""
    why: str = ""
    pool: str = ""
    candidates: tuple[str, ...] = ()
    skipped: tuple[tuple[str, str], ...] = ()

    @property
    def baseline_spec(self) -> str:
        return f"{self.provider}=={self.baseline}"

    @property
    def target_spec(self) -> str:
        return f"{self.provider}=={self.target}"

    @property
    def judged(self) -> bool:
        return self.judge == "full"


@dataclass(frozen=True)
class Manifest:
    path: Path
    python: str
    upgrades: tuple[Upgrade, ...]

    def select(self, only: list[str] | None) -> list[Upgrade]:
        """The upgrades named by `--only` (all when none), in manifest order."""
        if not only:
            return list(self.upgrades)
        known = {u.id for u in self.upgrades}
        unknown = [o for o in only if o not in known]
        if unknown:
            raise ManifestError(f"--only: no upgrade {', '.join(unknown)} in {self.path.name}")
        return [u for u in self.upgrades if u.id in only]


def default_manifest() -> tuple[Path, str | None]:
    """The real manifest, else the dev one with a message saying so."""
    if REAL.is_file():
        return REAL, None
    return DEV, f"{REAL.name} is absent: using {DEV.name} (a small development manifest)"


def pin(text: str) -> tuple[str, str]:
    """`name==version` -> (name, version); ManifestError otherwise."""
    match = _PIN.match(text.strip())
    if match is None:
        raise ManifestError(f"{text!r} is not name==version")
    return match.group(1), match.group(2)


def _text(table: dict[str, Any], key: str, where: str, *, required: bool = True) -> str:
    value = table.get(key, None if required else "")
    if not isinstance(value, str) or (required and not value.strip()):
        raise ManifestError(f"{where}: {key} must be a non-empty string")
    return value


def _texts(table: dict[str, Any], key: str, where: str) -> tuple[str, ...]:
    value = table.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ManifestError(f"{where}: {key} must be a list of strings")
    return tuple(value)


def _skipped(table: dict[str, Any], where: str) -> tuple[tuple[str, str], ...]:
    value = table.get("skipped", [])
    ok = isinstance(value, list) and all(
        isinstance(v, list) and len(v) == 2 and all(isinstance(s, str) for s in v) for v in value
    )
    if not ok:
        raise ManifestError(f"{where}: skipped must be a list of [name, why] pairs")
    return tuple((v[0], v[1]) for v in value)


def _upgrade(table: dict[str, Any], index: int) -> Upgrade:
    where = f"upgrade #{index + 1}"
    uid = _text(table, "id", where)
    if not _ID.match(uid):
        raise ManifestError(f"{where}: id {uid!r} must be a plain word (letters, digits, .-_)")
    where = f"upgrade {uid}"
    judge = table.get("judge", "full")
    if judge not in JUDGES:
        raise ManifestError(f"{where}: judge must be one of {', '.join(JUDGES)}")
    note = _text(table, "judge_note", where, required=judge != "full")
    dependents = _texts(table, "dependents", where)
    for dependent in dependents:
        pin(dependent)
    if len(set(dependents)) != len(dependents):
        raise ManifestError(f"{where}: a dependent is listed twice")
    names = _texts(table, "import_names", where)
    if not names:
        raise ManifestError(f"{where}: import_names must name the provider's modules")
    return Upgrade(
        id=uid,
        family=_text(table, "family", where),
        provider=_text(table, "provider", where),
        baseline=_text(table, "baseline", where),
        target=_text(table, "target", where),
        import_names=names,
        dependents=dependents,
        judge=judge,
        judge_note=note,
        why=_text(table, "why", where, required=False),
        pool=_text(table, "pool", where, required=False),
        candidates=_texts(table, "candidates", where),
        skipped=_skipped(table, where),
    )


def load(path: Path) -> Manifest:
    """Read and check a manifest; ManifestError names the first problem."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ManifestError(f"{path}: {exc}") from exc
    if data.get("schema") != 1:
        raise ManifestError(f"{path.name}: schema must be 1")
    python = data.get("python")
    if not isinstance(python, str) or not re.fullmatch(r"3\.\d+", python):
        raise ManifestError(f'{path.name}: python must be a version such as "3.11"')
    tables = data.get("upgrade", [])
    if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
        raise ManifestError(f"{path.name}: [[upgrade]] tables expected")
    upgrades = tuple(_upgrade(t, i) for i, t in enumerate(tables))
    ids = [u.id for u in upgrades]
    if len(set(ids)) != len(ids):
        raise ManifestError(f"{path.name}: two upgrades share an id")
    return Manifest(path, python, upgrades)
