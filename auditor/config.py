# Maintainers: `[tool.drift-audit]` in a consumer project's pyproject.toml -> Settings.
#
# Owns: the set of valid keys, their types, and finding the settings: `--config FILE`, else
# the nearest pyproject.toml with the table at or above the consumer folder (or the current
# folder), as ruff and mypy search; and the project root of a CONSUMER folder. Takes a
# folder or a file; gives a frozen Settings (empty when there is no pyproject.toml or
# no table). An unknown key or a wrong type is a ConfigError naming the key (and, for a
# typo, the closest valid key). Paths (`output`, `baseline-file`) are resolved against the
# project folder, so they mean the same wherever drift-audit is run from; the file is
# untrusted (it comes with the pull request), so `Settings.root` names the project folder and
# those paths must stay inside it when they are used (files.py checks). Precedence
# (defaults < this file < command line) is the CLI's job. tomli is used only below 3.11.
# Also reads the consumer's declared entry points (console scripts, gui scripts, plugin
# entry points) from pyproject.toml text or a dist-info's entry_points.txt: the graph starts
# its call chains there. Unreadable metadata yields no entry points, never an error.
"""Read `[tool.drift-audit]` from pyproject.toml into Settings; read declared entry points."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeGuard

from auditor.errors import ConfigError
from auditor.files import read_file
from auditor.kinds import Kind
from auditor.model import LeftOut

PYPROJECT = "pyproject.toml"
TABLE = "drift-audit"
FAIL_ON_CHOICES = ("error", "warning", "info", "never")


@dataclass(frozen=True, slots=True)
class Settings:
    """Settings from `[tool.drift-audit]`; None or () where the file says nothing."""

    against: tuple[str, ...] = ()
    baseline: tuple[str, ...] = ()
    fail_on: str | None = None
    format: str | None = None
    output: str | None = None
    exclude: tuple[str, ...] = ()
    baseline_file: str | None = None
    select: tuple[str, ...] | None = None  # kind slugs ("ALL" for every kind); None: all
    ignore: tuple[str, ...] = ()
    severity: tuple[tuple[str, str], ...] = ()  # (slug, error|warning|info) overrides
    gate_tests: bool | None = None  # false: findings in test files never fail the run
    source: Path | None = None  # the pyproject.toml they came from, for messages
    root: Path | None = None  # the project folder: paths from this file must stay inside it


KEYS = (
    "against",
    "baseline",
    "fail-on",
    "format",
    "output",
    "exclude",
    "baseline-file",
    "select",
    "ignore",
    "severity",
    "gate-tests",
)
SEVERITIES = ("error", "warning", "info")
ALL = "ALL"
_STR = "a string"
_STR_OR_LIST = "a string or a list of strings"
_LIST = "a list of strings"


def load_settings(project_dir: Path) -> Settings:
    """Settings from `project_dir/pyproject.toml`; empty Settings when there is none.

    Raises:
        ConfigError: the file cannot be read or parsed, or the table has an unknown key, a
            value of the wrong type, or a `fail-on` outside error/warning/info/never.
    """
    path = project_dir / PYPROJECT
    table = _read_table(path) if path.is_file() else None
    return Settings() if table is None else _settings(table, path, f"[tool.{TABLE}] of {path}")


def load_config_file(path: Path) -> Settings:
    """`--config FILE`: a pyproject.toml (its `[tool.drift-audit]` table) or a drift-audit
    TOML file whose top level is the table; paths in it are relative to its folder.

    Raises:
        ConfigError: the file is missing or unreadable, not TOML, has no such table, or the
            table is wrong as for load_settings.
    """
    if not path.is_file():
        raise ConfigError(
            f"--config {path}: no such file", hint="name a pyproject.toml or a TOML file"
        )
    if path.name == PYPROJECT:
        table = _read_table(path)
        if table is None:
            raise ConfigError(f"--config {path} has no [tool.{TABLE}] table")
        return _settings(table, path, f"[tool.{TABLE}] of {path}")
    return _settings(_read_document(path), path, str(path))


def find_settings(start: Path) -> Settings:
    """The nearest pyproject.toml at or above `start` that has a `[tool.drift-audit]` table
    (as ruff and mypy look for theirs); empty Settings when none has."""
    for candidate in (start, *start.resolve().parents):
        path = candidate / PYPROJECT
        if path.is_file() and (table := _read_table(path)) is not None:
            return _settings(table, path, f"[tool.{TABLE}] of {path}")
    return Settings()


def _settings(table: dict[str, Any], path: Path, where: str) -> Settings:
    _check_keys(table, path)
    project_dir = path.parent
    select = _strings(table, "select", where, allow_str=True) if "select" in table else None
    if select == ():
        raise no_kind_selected(f"select = [] in {where}")
    return Settings(
        against=_strings(table, "against", where, allow_str=True),
        baseline=_strings(table, "baseline", where, allow_str=True),
        fail_on=_choice(table, "fail-on", FAIL_ON_CHOICES, where),
        format=_string(table, "format", where),
        output=_path(table, "output", where, project_dir),
        exclude=_strings(table, "exclude", where, allow_str=False),
        baseline_file=_path(table, "baseline-file", where, project_dir),
        select=check_kinds(select, f"select in {where}") if select is not None else None,
        ignore=check_kinds(_strings(table, "ignore", where, allow_str=True), f"ignore in {where}"),
        severity=_severity(table, where),
        gate_tests=_bool(table, "gate-tests", where),
        source=path,
        root=project_dir,
    )


def check_kinds(slugs: tuple[str, ...], where: str) -> tuple[str, ...]:
    """The slugs, checked against the catalogue (`ALL` allowed); ConfigError naming an unknown
    one and the closest kind."""
    known = [k.slug for k in Kind]
    for slug in slugs:
        if slug != ALL and slug not in known:
            raise ConfigError(f"{where}: unknown kind {slug!r}", hint=unknown_kind_hint(slug))
    return slugs


def unknown_kind_hint(slug: str) -> str:
    """What to say of a kind that is not one: the closest kind, and where they are listed."""
    import difflib  # here, as configparser and tomllib: a run with no mistake and no
    # pyproject.toml imports none of them

    close = difflib.get_close_matches(slug, [k.slug for k in Kind], n=1)
    mistyped = f"did you mean {close[0]!r}? " if close else ""
    return f"{mistyped}`drift-audit --list-kinds` lists them"


def no_kind_selected(what: str) -> ConfigError:
    """`select = []`: a gate that reports nothing is a settings error, not a pass."""
    return ConfigError(
        f"{what} selects no kind: the audit would report nothing",
        hint="name the kinds to report (`drift-audit --list-kinds`), or leave select out for all",
    )


def left_out(setting: str, slugs: tuple[str, ...], source: str, file: str | None) -> LeftOut | None:
    """What a `select` (the kinds it does not name) or an `ignore` (the kinds it names) of
    checked slugs leaves out, from `source` ("config", with its `file`, or "command-line");
    None when it leaves out nothing."""
    named = {k for k in Kind if ALL in slugs or k.slug in slugs}
    kinds = tuple(k for k in Kind if (k not in named) == (setting == "select"))
    return LeftOut(setting, source, file, kinds) if kinds else None


def _severity(table: dict[str, Any], where: str) -> tuple[tuple[str, str], ...]:
    """`[tool.drift-audit.severity]`: kind slug -> error, warning or info."""
    value = table.get("severity", {})
    if not isinstance(value, dict):
        raise _wrong_type("severity", "a table of kind = severity", value, where)
    check_kinds(tuple(value), f"[tool.{TABLE}.severity] of {where}")
    out = []
    for slug, level in sorted(value.items()):
        if level not in SEVERITIES:
            raise ConfigError(
                f"severity.{slug} = {level!r} in {where} is not one of {', '.join(SEVERITIES)}"
            )
        out.append((slug, level))
    return tuple(out)


MAX_TOML_BYTES = 16 << 20  # a pyproject.toml; anything bigger is not one


def load_toml(text: str) -> dict[str, Any]:
    """Parse TOML; ValueError (with the parser's reason) for invalid or absurdly nested
    documents (tomllib recurses: 500 nested arrays exhaust the stack)."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on 3.10 only
        import tomli as tomllib

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(str(exc)) from exc
    except RecursionError as exc:
        raise ValueError("nested too deeply") from exc


def read_toml_file(path: Path, root: Path) -> dict[str, Any]:
    """A TOML file inside `root` (links leaving it refused).

    Raises:
        OSError: it cannot be read, or is not a regular file inside `root` (files.Refused).
        ValueError: it is not UTF-8 or not valid TOML.
    """
    data = read_file(path, limit=MAX_TOML_BYTES, root=root)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 ({exc.reason} at byte {exc.start})") from exc
    return load_toml(text)


def _read_document(path: Path) -> dict[str, Any]:
    try:
        return read_toml_file(path, path.parent)
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}") from exc
    except ValueError as exc:
        raise ConfigError(f"{path} is not valid TOML: {exc}") from exc


def _read_table(path: Path) -> dict[str, Any] | None:
    document = _read_document(path)
    tool = document.get("tool")
    table = tool.get(TABLE) if isinstance(tool, dict) else None
    if table is None:
        return None
    if not isinstance(table, dict):
        raise ConfigError(f"[tool.{TABLE}] in {path} must be a table, not {_toml_type(table)}")
    return table


def _check_keys(table: dict[str, Any], path: Path) -> None:
    for key in sorted(table):
        if key not in KEYS:
            raise ConfigError(
                f"unknown key {key!r} in [tool.{TABLE}] of {path}", hint=_key_hint(key)
            )


def _key_hint(key: str) -> str:
    import difflib

    close = difflib.get_close_matches(key.replace("_", "-"), KEYS, n=1)
    valid = ", ".join(KEYS)
    return f"did you mean {close[0]!r}? valid keys: {valid}" if close else f"valid keys: {valid}"


def _wrong_type(key: str, expected: str, value: object, where: str) -> ConfigError:
    return ConfigError(f"{key} in {where} must be {expected}, not {_toml_type(value)}")


def _strings(table: dict[str, Any], key: str, where: str, *, allow_str: bool) -> tuple[str, ...]:
    value = table.get(key, [])
    if allow_str and isinstance(value, str):
        return (value,)
    if _is_string_list(value):
        return tuple(value)
    raise _wrong_type(key, _STR_OR_LIST if allow_str else _LIST, value, where)


def _string(table: dict[str, Any], key: str, where: str) -> str | None:
    value = table.get(key)
    if value is None or isinstance(value, str):
        return value
    raise _wrong_type(key, _STR, value, where)


def _bool(table: dict[str, Any], key: str, where: str) -> bool | None:
    value = table.get(key)
    if value is None or isinstance(value, bool):
        return value
    raise _wrong_type(key, "true or false", value, where)


def _choice(table: dict[str, Any], key: str, choices: tuple[str, ...], where: str) -> str | None:
    value = _string(table, key, where)
    if value is not None and value not in choices:
        raise ConfigError(f"{key} = {value!r} in {where} is not one of {', '.join(choices)}")
    return value


def _path(table: dict[str, Any], key: str, where: str, project_dir: Path) -> str | None:
    value = _string(table, key, where)
    return None if value is None else str(project_dir / value)


def _is_string_list(value: object) -> TypeGuard[list[str]]:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _toml_type(value: object) -> str:
    names = {bool: "a boolean", int: "an integer", float: "a float", str: "a string"}
    names.update({list: "an array", dict: "a table"})
    return names.get(type(value), type(value).__name__)


def find_project_root(consumer: str) -> Path | None:
    """The folder whose pyproject.toml holds CONSUMER's settings, if CONSUMER is a folder.

    That is CONSUMER itself when it has a pyproject.toml; else, for a package folder (one with
    `__init__.py`), its parent, or its grandparent in a `src/` layout, when that has one.
    None for anything else (an installed distribution, a requirement, a missing path).
    """
    folder = Path(consumer)
    if not folder.is_dir():
        return None
    if (folder / PYPROJECT).is_file():
        return folder
    if not (folder / "__init__.py").is_file():
        return None
    parent = folder.resolve().parent
    candidates = [parent, parent.parent] if parent.name == "src" else [parent]
    return next((c for c in candidates if (c / PYPROJECT).is_file()), None)


def consumer_project_root(consumer: str) -> Path | None:
    """The folder report paths are relative to, for a folder CONSUMER: the project holding
    it (pyproject.toml), else the folder itself when it is not a package folder; None for a
    package folder with no project, an installed distribution or a release from the index
    (paths stay relative to the import root)."""
    folder = Path(consumer).expanduser()
    if not folder.is_dir():
        return None
    root = find_project_root(consumer)
    if root is not None:
        return root.resolve()
    return None if (folder / "__init__.py").is_file() else folder.resolve()


# --------------------------------------------------------------------------- entry points


def entry_points_from_pyproject(text: str) -> tuple[str, ...]:
    """Object references (`pkg.cli:main`) in `[project.scripts]`, `[project.gui-scripts]` and
    `[project.entry-points.<group>]`, sorted; () when the text is not TOML or says nothing."""
    try:
        project = load_toml(text).get("project")
    except ValueError:
        return ()
    if not isinstance(project, dict):
        return ()
    tables = [project.get("scripts"), project.get("gui-scripts")]
    groups = project.get("entry-points")
    if isinstance(groups, dict):
        tables += list(groups.values())
    refs = {v for t in tables if isinstance(t, dict) for v in t.values() if isinstance(v, str)}
    return tuple(sorted(refs))


def entry_points_from_txt(text: str) -> tuple[str, ...]:
    """Object references in a dist-info's `entry_points.txt` (every group), sorted."""
    import configparser

    parser = configparser.ConfigParser(interpolation=None, delimiters=("=",))
    parser.optionxform = str  # type: ignore[assignment, method-assign]
    try:
        parser.read_string(text)
    except configparser.Error:
        return ()
    return tuple(sorted({v.strip() for s in parser.sections() for v in parser[s].values()}))
