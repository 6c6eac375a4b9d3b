# Maintainers: where the package index is, read the way pip reads it.
#
# Owns: the precedence --index-url > PIP_INDEX_URL > pip config files > pip's own default, the
#       extra indexes (PIP_EXTRA_INDEX_URL / extra-index-url), and the CA bundle (PIP_CERT /
#       cert). Config files in pip's order, later files winning: $XDG_CONFIG_DIRS/pip/pip.conf and
#       /etc/pip.conf; ~/.pip/pip.conf and ~/.config/pip/pip.conf (skipped when PIP_CONFIG_FILE
#       names an existing file); sys.prefix/pip.conf and $VIRTUAL_ENV/pip.conf; PIP_CONFIG_FILE
#       (os.devnull turns all files off). Sections [global] < [install] < [download].
# Takes: the --index-url argument and the environment. Gives: IndexSettings, each URL with
# where it came from (`--index-url`, `PIP_INDEX_URL`, `index-url in /etc/pip.conf`), so that
# the check of the URL where the index is opened (index.open_index) can say which to fix.
# pip's default index URL is read from the installed pip at run time, never written here.
"""The user's pip configuration: index URL, extra index URLs and CA bundle."""

from __future__ import annotations

import importlib
import logging
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from auditor.errors import FetchError
from auditor.files import read_file

if TYPE_CHECKING:
    from collections.abc import Mapping

log = logging.getLogger("drift_audit")

_SECTIONS = ("global", "install", "download")  # later sections override earlier ones
_KEYS = ("index-url", "extra-index-url", "cert")


@dataclass(frozen=True)
class IndexSettings:
    """The configured index; `index_url` None means pip's default index."""

    index_url: str | None
    extra_index_urls: tuple[str, ...] = ()
    cert: str | None = None
    index_origin: str | None = None  # where index_url came from, for messages
    extra_origin: str | None = None  # where extra_index_urls came from


def read_index_settings(
    index_url: str | None = None, environ: Mapping[str, str] | None = None
) -> IndexSettings:
    """Combine the argument, the environment and pip's config files, as pip would."""
    env = os.environ if environ is None else environ
    found = _read_config(config_files(env))
    values = {key: value for key, (value, _) in found.items()}
    primary, origin = _first(
        ("--index-url", index_url),
        ("PIP_INDEX_URL", env.get("PIP_INDEX_URL")),
        *_configured(found, "index-url"),
    )
    extras, extra_origin = _first(
        ("PIP_EXTRA_INDEX_URL", env.get("PIP_EXTRA_INDEX_URL")),
        *_configured(found, "extra-index-url"),
    )
    cert = env.get("PIP_CERT") or values.get("cert")
    return IndexSettings(
        index_url=primary.strip() if primary else None,
        extra_index_urls=tuple((extras or "").split()),
        cert=cert or None,
        index_origin=origin,
        extra_origin=extra_origin,
    )


def _first(*candidates: tuple[str, str | None]) -> tuple[str | None, str | None]:
    """(value, origin) of the first candidate with a value; (None, None) when none has."""
    return next(((value, origin) for origin, value in candidates if value), (None, None))


def _configured(found: dict[str, tuple[str, Path]], key: str) -> list[tuple[str, str | None]]:
    if key not in found:
        return []
    value, path = found[key]
    return [(f"{key} in {path}", value)]


def config_files(environ: Mapping[str, str]) -> list[Path]:
    """pip's configuration files in load order (a later file overrides an earlier one)."""
    env_file = environ.get("PIP_CONFIG_FILE")
    if env_file == os.devnull:
        return []
    xdg_dirs = environ.get("XDG_CONFIG_DIRS") or "/etc/xdg"
    files = [Path(d) / "pip" / "pip.conf" for d in xdg_dirs.split(os.pathsep) if d]
    files.append(Path("/etc/pip.conf"))
    if not (env_file and Path(env_file).exists()):
        files.extend(_user_files(environ))
    files.append(Path(sys.prefix) / "pip.conf")
    venv = environ.get("VIRTUAL_ENV")
    if venv and Path(venv) != Path(sys.prefix):
        files.append(Path(venv) / "pip.conf")
    if env_file:
        files.append(Path(env_file))
    return files


def _user_files(environ: Mapping[str, str]) -> list[Path]:
    home = Path(environ.get("HOME") or Path.home())
    config_home = Path(environ.get("XDG_CONFIG_HOME") or home / ".config")
    return [home / ".pip" / "pip.conf", config_home / "pip" / "pip.conf"]


def read_config_values(files: list[Path]) -> dict[str, str]:
    """The keys we use, merged per section across files, then [global] < [install] < [download]."""
    return {key: value for key, (value, _) in _read_config(files).items()}


def _read_config(files: list[Path]) -> dict[str, tuple[str, Path]]:
    """read_config_values, each value with the file it came from."""
    merged: dict[tuple[str, str], tuple[str, Path]] = {}
    for path in files:
        merged.update({where: (value, path) for where, value in _read_one(path).items()})
    values: dict[str, tuple[str, Path]] = {}
    for section in _SECTIONS:
        for key in _KEYS:
            if (section, key) in merged:
                values[key] = merged[section, key]
    return values


MAX_CONFIG_BYTES = 1 << 20  # a pip.conf (PIP_CONFIG_FILE=/dev/zero is not one)


def _read_one(path: Path) -> dict[tuple[str, str], str]:
    import configparser

    parser = configparser.RawConfigParser()
    try:
        if not path.exists():
            return {}
        parser.read_string(read_file(path, limit=MAX_CONFIG_BYTES).decode("utf-8"), str(path))
    except (configparser.Error, OSError, UnicodeDecodeError) as exc:
        log.warning("ignoring unreadable pip config %s: %s", path, exc)
        return {}
    found: dict[tuple[str, str], str] = {}
    for section in parser.sections():
        for name, value in parser.items(section):
            key = name.lower().replace("_", "-")
            if section.lower() in _SECTIONS and key in _KEYS:
                found[section.lower(), key] = value.strip()
    return found


def default_index_url() -> str:
    """The index the installed pip uses by default, read from pip itself at run time."""
    try:  # lazily, and only when no index is configured: pip is not our dependency
        module = importlib.import_module("pip._internal.models.index")
        return str(module.PyPI.simple_url)
    except (ImportError, AttributeError) as exc:
        raise FetchError(
            "no package index is configured and pip is not available to supply its default",
            hint="pass --index-url URL (a PEP 503 simple index) or set PIP_INDEX_URL",
        ) from exc
