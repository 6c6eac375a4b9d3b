# Maintainers: a folder on disk seen as a SourceTree, and the metadata read beside it.
#
# Owns: FolderTree (read_text / read_bytes / is_dir / walk, limited to the release's top-level
#       import names or to an explicit file list; only regular files no bigger than the
#       per-file limit are read, so a FIFO or /dev/zero named x.py is "no file", not a hang),
#       source decoding (PEP 263 cookies, BOM; `strict` for a consumer's tree: bytes Python
#       could not decode raise UnicodeDecodeError, which the scan reports as unparsable; the
#       encoding a fixed file is written back in, source_encoding),
#       finding top-level import names, and reading METADATA / PKG-INFO / pyproject.toml /
#       top_level.txt as text (a folder's own metadata: pyproject.toml's [project], then a
#       PKG-INFO, an *.egg-info's, or the METADATA of an unpacked wheel's one *.dist-info).
# Takes: paths. Gives: FolderTree, Metadata, import names. Never imports or runs what it reads.
"""Source trees on disk and the static metadata that describes them."""

from __future__ import annotations

import io
import logging
import os
import re
import tokenize
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from auditor.config import read_toml_file
from auditor.files import Refused, read_file, read_under

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Sequence

log = logging.getLogger("drift_audit")

PY_SUFFIXES = (".py", ".pyi")
# An extension module's file: `mod.so`, `mod.cpython-311-x86_64-linux-gnu.so`, `mod.abi3.so`,
# `mod.cp311-win_amd64.pyd`; and `mod.pyx`, the Cython source an sdist builds into one.
_EXTENSION = re.compile(
    r"(?P<module>[A-Za-z_][A-Za-z0-9_]*)(?:\.[^./]+)?\.(?:so|pyd)|(?P<pyx>[A-Za-z_][A-Za-z0-9_]*)\.pyx"
)


def extension_base(rel: str) -> str | None:
    """The module path (`pkg/mod`, no suffix) an extension module's file holds, or None when
    `rel` is no such file. A compiled module with no stub beside it is opaque: what it
    defines is unknown (provider/resolution.py), never missing."""
    folder, _, name = rel.rpartition("/")
    found = _EXTENSION.fullmatch(name)
    if found is None:
        return None
    module = found.group("module") or found.group("pyx")
    return f"{folder}/{module}" if folder else module


MAX_METADATA_BYTES = 16 << 20  # PKG-INFO, METADATA: text, never this big
SKIP_NAMES = frozenset(
    {"tests", "test", "testing", "docs", "doc", "examples", "benchmarks", "build", "dist",
     "node_modules", "__pycache__", "setup", "conftest", "noxfile", "venv"}
)  # fmt: skip


class FolderTree:
    """A SourceTree over `root`, limited to top-level `packages` or to a list of `files`.

    `strict`: decode as Python would, raising UnicodeDecodeError (a consumer's tree).
    Only regular files inside `confine` (default `root`) are read (files.read_under): a link
    is followed only when it resolves inside it (`links`; a subclass for the cache turns it
    off), and a file that leaves it, a FIFO or a device is skipped with a warning. A package
    folder the user named is its own confine, narrower than its import root (the parent):
    nothing beside it is read, through a link or otherwise. A file or folder that
    exists but cannot be read (permissions) is recorded in `unreadable` (walking) or raises
    OSError (reading), so that the audit never passes over it in silence.
    """

    links = True

    def __init__(
        self,
        root: Path,
        *,
        packages: Iterable[str] | None = None,
        files: Iterable[str] | None = None,
        strict: bool = False,
        confine: Path | None = None,
        extensions: Iterable[str] | None = None,
    ) -> None:
        self.root = root
        self.confine = confine or root
        self.packages = tuple(packages) if packages is not None else None
        self.files = frozenset(files) if files is not None else None
        # the extension modules of a tree read through a file list (a cached tree keeps no
        # binaries, only their module paths); None: look on disk
        self.extensions = frozenset(extensions) if extensions is not None else None
        self.strict = strict
        self.unreadable: list[tuple[str, str]] = []  # (posix path, why) met while walking

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self.root)!r}, packages={self.packages!r})"

    def read_text(self, path: str) -> str | None:
        data = self.read_bytes(path)
        return None if data is None else decode_source(data, strict=self.strict)

    def read_bytes(self, path: str) -> bytes | None:
        """The file's bytes; None when there is none, or it is refused (not a regular file,
        a link leaving the root, over the per-file limit: a warning).

        Raises:
            OSError: the file exists but cannot be read.
        """
        from auditor.sources import limits

        rel = safe_relative(path)
        if not rel or (self.files is not None and rel not in self.files):
            return None
        try:
            return read_under(
                self.root, rel, limit=limits.MAX_FILE_BYTES, links=self.links, inside=self.confine
            )
        except Refused as exc:
            log.warning("not reading %s: %s", self.root / rel, exc.strerror)
            return None

    def is_dir(self, path: str) -> bool:
        rel = safe_relative(path)
        if rel is None:
            return False
        if self.files is not None:
            return not rel or any(f.startswith(f"{rel}/") for f in self.files)
        return (self.root / rel).is_dir() and _inside_root(self.confine, self.root / rel)

    def has_extension(self, base: str) -> bool:
        """Whether the tree holds an extension module `base` (`pkg/mod`: `pkg/mod.*.so`...)."""
        rel = safe_relative(base)
        if not rel:
            return False
        if self.extensions is not None or self.files is not None:
            return rel in (self.extensions or ())
        folder, _, name = rel.rpartition("/")
        where = self.root / folder if folder else self.root
        if not (where.is_dir() and _inside_root(self.confine, where)):
            return False
        try:
            with os.scandir(where) as it:
                names = [e.name for e in it if e.name.startswith(f"{name}.")]
        except OSError:
            return False
        stem = f"{folder}/" if folder else ""
        return any(extension_base(stem + n) == rel for n in names)

    def entries(self, path: str) -> tuple[str, ...]:
        """sources.folder_entries(): the names in a folder that may be modules, from the
        file list, else from the folder (inside the confine); () when there is none."""
        from auditor.sources import module_entries

        rel = safe_relative(path)
        if not rel:
            return ()
        if self.files is not None:
            inside = [f[len(rel) + 1 :] for f in self.files if f.startswith(f"{rel}/")]
            return module_entries(f.split("/", 1)[0] for f in inside)
        folder = self.root / rel
        if not (folder.is_dir() and _inside_root(self.confine, folder)):
            return ()
        try:
            with os.scandir(folder) as it:
                return module_entries(e.name for e in it)
        except OSError:
            return ()

    def walk(self) -> Iterator[str]:
        if self.files is not None:
            tops = set(self.packages) if self.packages is not None else None
            yield from sorted(
                f
                for f in self.files
                if f.endswith(PY_SUFFIXES) and (tops is None or _top_of(f) in tops)
            )
            return
        found: list[str] = []
        for top in self._tops():
            found.extend(self._walk_top(top))
        yield from sorted(set(found))

    def _tops(self) -> tuple[str, ...]:
        if self.packages is not None:
            return self.packages
        return find_import_names(self.root, strict=False)

    def _walk_top(self, top: str) -> list[str]:
        """The .py/.pyi files of one top-level name: `top.py(i)` and everything under `top/`
        that stays inside the root (hidden folders and __pycache__ left out)."""
        found = [
            f"{top}{s}" for s in PY_SUFFIXES if self._kept(self.root / f"{top}{s}", f"{top}{s}")
        ]
        folder = self.root / top
        if folder.is_dir() and self._kept(folder, top):
            found.extend(self._walk_folder(folder, top))
        return found

    def _walk_folder(self, folder: Path, rel: str) -> list[str]:
        try:
            with os.scandir(folder) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            self.unreadable.append((rel, exc.strerror or str(exc)))
            return []
        found: list[str] = []
        for entry in entries:
            path = f"{rel}/{entry.name}"
            if not _valid_name(entry.name, path):
                continue
            if entry.is_symlink() and not self._kept(Path(entry.path), path):
                continue
            if entry.is_dir():
                if not entry.name.startswith(".") and entry.name != "__pycache__":
                    found.extend(self._walk_folder(Path(entry.path), path))
            elif entry.name.endswith(PY_SUFFIXES):
                found.append(path)
        return found

    def _kept(self, path: Path, rel: str) -> bool:
        """Whether a walked path is read: it exists inside the confine (not beside a package
        folder: `widget.py` next to `widget/`), and a link stays inside it."""
        if not path.is_symlink():
            return path.exists() and (self.confine == self.root or _inside_root(self.confine, path))
        if self.links and _inside_root(self.confine, path):
            return True
        log.warning("skipping %s: a link to outside the tree", rel)
        return False


def _top_of(path: str) -> str:
    first = path.split("/", 1)[0]
    return first.rsplit(".", 1)[0] if "/" not in path and first.endswith(PY_SUFFIXES) else first


def _inside_root(root: Path, path: Path) -> bool:
    real_root = os.path.realpath(root)
    real = os.path.realpath(path)
    return real == real_root or real.startswith(real_root.rstrip(os.sep) + os.sep)


def _valid_name(name: str, path: str) -> bool:
    """False (with a warning) for a file name that is not valid Unicode (Python cannot
    import it, and no report could print it)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        shown = path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
        log.warning("skipping %s: its name is not valid UTF-8", shown)
        return False
    return True


def _clean_path(end: str, also: str = "") -> str:
    """The pattern of a path safe_relative() leaves as it is: no empty, `.` or `..` part
    (a part ends at `/` or `end`), no `\\` or NUL, no drive (`:` in the first part); no
    part holds a character of `also`."""
    part = rf"(?!\.\.?(?:/|{end}))[^/\\\x00{also}]+"
    first = rf"(?!\.\.?(?:/|{end}))[^/\\\x00:{also}]+"
    return rf"{first}(?:/{part})*"


# Most paths are clean: one match at C speed (a release's listing names thousands), and for a
# whole list one match over the paths a line each.
CLEAN_RELATIVE = re.compile(_clean_path(r"\Z") + r"\Z")
_ONE_LINE = _clean_path(r"\n|\Z", r"\n")
_ALL_CLEAN = re.compile(rf"(?:{_ONE_LINE}\n)*{_ONE_LINE}")


def all_clean(paths: Sequence[str]) -> bool:
    """Whether safe_relative() leaves every one of these paths as it is, in one match (a
    False may still hold safe paths: ask each then)."""
    return not paths or _ALL_CLEAN.fullmatch("\n".join(paths)) is not None


def safe_relative(path: str) -> str | None:
    """A normalised relative posix path, or None for absolute paths, `..` and NULs."""
    if CLEAN_RELATIVE.match(path):
        return path
    if "\x00" in path or path.startswith(("/", "\\")):
        return None
    parts = [p for p in path.replace("\\", "/").split("/") if p not in ("", ".")]
    if ".." in parts or (parts and ":" in parts[0]):
        return None
    return "/".join(parts)


def _entries(folder: Path) -> list[Path]:
    try:
        return sorted(folder.iterdir())
    except OSError:
        return []


def _skipped(name: str, prefer: str | None = None) -> bool:
    """Hidden, not importable, or a well-known non-package name (unless it is the project's)."""
    stem = name.rsplit(".", 1)[0] if name.endswith(PY_SUFFIXES) else name
    if name.startswith(".") or not stem.isidentifier():
        return True
    return stem in SKIP_NAMES and stem != prefer


def decode_source(data: bytes, *, strict: bool = False) -> str:
    """Decode Python source as the interpreter would (BOM, coding cookie).

    Not `strict`: never failing (undecodable bytes become U+FFFD). `strict`: where Python
    would refuse the file (a bad or unknown coding line, bytes not in its encoding), raise
    UnicodeDecodeError whose reason names the line."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:
        if strict:
            raise UnicodeDecodeError("utf-8", data, 0, min(len(data), 1), exc.msg) from None
        encoding = "utf-8"
    try:
        return data.decode(encoding, errors="strict" if strict else "replace")
    except LookupError as exc:  # a codec that is not a text encoding (rot13, zlib)
        if strict:
            raise UnicodeDecodeError("utf-8", data, 0, min(len(data), 1), str(exc)) from None
        return data.decode("utf-8", errors="replace")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        why = f"{exc.reason} at line {line} (byte 0x{data[exc.start]:02x}, read as {encoding})"
        raise UnicodeDecodeError(exc.encoding, data, exc.start, exc.end, why) from None


def source_encoding(data: bytes) -> str:
    """The encoding decode_source reads `data` in: `utf-8-sig` after a BOM (encoding with it
    writes the BOM back), a coding cookie's, else `utf-8`."""
    try:
        return tokenize.detect_encoding(io.BytesIO(data).readline)[0]
    except SyntaxError:
        return "utf-8"


def find_import_names(
    root: Path, *, strict: bool = True, prefer: str | None = None
) -> tuple[str, ...]:
    """Top-level packages and modules under an import root.

    Strict (folders, sdists): a package needs `__init__.py(i)`, except a folder named `prefer`
    (the project's own name: a namespace package). Not strict (wheels, which hold only what
    installs): any folder with Python files counts.
    """
    names: list[str] = []
    for entry in _entries(root):
        if _skipped(entry.name, prefer):
            continue
        if entry.is_dir() and _is_package(entry, strict=strict and entry.name != prefer):
            names.append(entry.name)
        elif entry.is_file() and entry.suffix in PY_SUFFIXES:
            names.append(entry.stem)
    return tuple(dict.fromkeys(names))


def locate_import_root(
    project: Path, *, prefer: str, listed: Iterable[str] = ()
) -> tuple[str, tuple[str, ...]]:
    """("src" or "", import names) of a project folder: `src/` when it holds packages."""
    src = project / "src"
    if src.is_dir():
        names = existing_names(src, listed) or find_import_names(src, prefer=prefer)
        if names:
            return "src", names
    return "", existing_names(project, listed) or find_import_names(project, prefer=prefer)


def existing_names(root: Path, names: Iterable[str]) -> tuple[str, ...]:
    """The listed top-level names present under `root` (top_level.txt names C modules too)."""
    return tuple(
        n
        for n in dict.fromkeys(names)
        if (root / n).is_dir() or any((root / f"{n}{s}").is_file() for s in PY_SUFFIXES)
    )


def _is_package(folder: Path, *, strict: bool) -> bool:
    if any((folder / f"__init__{s}").is_file() for s in PY_SUFFIXES):
        return True
    return not strict and any(p.suffix in PY_SUFFIXES for p in folder.rglob("*"))


def import_form(name: str) -> str:
    """A distribution name as an import name would usually spell it."""
    return name.replace("-", "_").replace(".", "_").lower()


# --------------------------------------------------------------------------- metadata


@dataclass(frozen=True)
class Metadata:
    """What a release says about itself, statically."""

    name: str | None = None
    version: str | None = None
    requires: tuple[str, ...] = ()

    def or_else(self, other: Metadata) -> Metadata:
        """Fill the fields this one lacks from `other`."""
        return Metadata(
            name=self.name or other.name,
            version=self.version or other.version,
            requires=self.requires or other.requires,
        )


def read_core_metadata(text: str) -> Metadata:
    """METADATA (wheel) or PKG-INFO (sdist): Name, Version and every Requires-Dist line."""
    from email.parser import HeaderParser  # here: ~7 ms to import, and a cached release's
    # metadata is read from its record

    headers = HeaderParser().parsestr(text, headersonly=True)
    requires = tuple(str(r).strip() for r in headers.get_all("Requires-Dist") or ())
    name, version = headers.get("Name"), headers.get("Version")
    return Metadata(
        name=str(name).strip() if name else None,
        version=str(version).strip() if version else None,
        requires=requires,
    )


def read_pyproject(path: Path) -> Metadata:
    """[project] name, static version, dependencies and optional-dependencies (with extras).
    A file that cannot be read or parsed (or leaves its folder by a link) says nothing."""
    try:
        project = read_toml_file(path, path.parent).get("project")
    except (OSError, ValueError) as exc:
        log.warning(
            "ignoring unreadable %s: %s",
            path,
            exc.strerror if isinstance(exc, OSError) and exc.strerror else exc,
        )
        return Metadata()
    if not isinstance(project, dict):
        return Metadata()
    return Metadata(
        name=_str_or_none(project.get("name")),
        version=_str_or_none(project.get("version")),
        requires=tuple(_dependencies(project)),
    )


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _dependencies(project: dict[str, Any]) -> Iterator[str]:
    dependencies = project.get("dependencies")
    if isinstance(dependencies, list):
        yield from (str(d) for d in dependencies)
    optional = project.get("optional-dependencies")
    for extra, deps in sorted(optional.items() if isinstance(optional, dict) else ()):
        if isinstance(deps, list):
            yield from (with_extra(str(d), extra) for d in deps)


def with_extra(requirement: str, extra: str) -> str:
    """`requirement` restricted to `extra`, keeping any marker it already has."""
    base, _, marker = requirement.partition(";")
    condition = f'extra == "{extra}"'
    if marker.strip():
        return f"{base.strip()}; ({marker.strip()}) and {condition}"
    return f"{base.strip()}; {condition}"


def read_top_level(text: str) -> tuple[str, ...]:
    """Names in a top_level.txt (the first path component of each line)."""
    names = (line.strip().replace("\\", "/").split("/")[0] for line in text.splitlines())
    return tuple(dict.fromkeys(n for n in names if n))


def read_folder_metadata(project: Path) -> Metadata:
    """pyproject.toml [project], completed from a PKG-INFO (sdist or *.egg-info) or, for an
    unpacked wheel, its *.dist-info/METADATA, if present."""
    meta = (
        read_pyproject(project / "pyproject.toml")
        if (project / "pyproject.toml").is_file()
        else Metadata()
    )
    for candidate in _pkg_infos(project):
        try:
            data = read_file(candidate, limit=MAX_METADATA_BYTES, root=project)
        except OSError:
            continue
        return meta.or_else(read_core_metadata(data.decode("utf-8", errors="replace")))
    return meta


def has_folder_metadata(project: Path) -> bool:
    """Whether a folder describes a release of its own: pyproject.toml, PKG-INFO, or an
    unpacked wheel's *.dist-info/METADATA."""
    own = [project / "pyproject.toml", project / "PKG-INFO", *_wheel_metadata(project)]
    return any(p.is_file() for p in own)


def _pkg_infos(project: Path) -> list[Path]:
    found = [project / "PKG-INFO"]
    found += sorted(project.glob("*.egg-info/PKG-INFO")) + sorted(
        project.glob("src/*.egg-info/PKG-INFO")
    )
    found += _wheel_metadata(project)
    return [p for p in found if p.is_file()]


def _wheel_metadata(project: Path) -> list[Path]:
    """An unpacked wheel's `<name>-<version>.dist-info/METADATA` (its core metadata: name,
    version, Requires-Dist); none when the folder holds several dist-infos (a site-packages
    folder is many releases, not one)."""
    found = sorted(project.glob("*.dist-info/METADATA"))
    return found if len(found) == 1 else []
