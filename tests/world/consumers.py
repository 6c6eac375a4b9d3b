"""Consumer sources for the judge: each release downloaded and extracted, never run.

`consumer_sources(work, pip_python, name, version)` returns a `Sources`: the import root of
the release's Python files and the files under it (posix, relative to that root, the way
drift-audit's reports give `module_path`). A wheel for this Python is preferred (pip
download --no-deps --only-binary :all:, which never builds anything), then any wheel of the
release (another platform's holds the same .py files), then its sdist; those two are fetched
from the indexes pip's configuration names, without pip (whose download of an sdist
prepares its metadata, running its build code). Only `.py` members are extracted, and never
one whose name leaves the folder or that is a link.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import tarfile
import urllib.parse
import urllib.request
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from packaging.utils import InvalidWheelFilename, canonicalize_name, parse_wheel_filename
from packaging.version import InvalidVersion, Version

from tests.world.index import candidates, index_urls, read

DOWNLOAD_TIMEOUT = 300
MAX_MEMBER = 16 * 1024 * 1024
MAX_ARCHIVE = 512 * 1024 * 1024
SKIPPED_TOP = frozenset(
    {"tests", "test", "testing", "docs", "doc", "examples", "example", "benchmarks", "bench",
     "setup", "conftest", "build", "dist", "scripts", "tools"}
)  # fmt: skip


TEST_PACKAGE = re.compile(r"^(tests?_.+|.+_tests?|testing_.+)$")  # an sdist's test package


def _judged_top(name: str) -> bool:
    """Whether a top-level name of an sdist is one the judge reads: not the project's tests,
    docs or tools, by name (`tests`, `test_haystack`, `haystack_tests`), which its wheel
    does not install and no dependent of it imports."""
    stem = name.lower()
    return stem not in SKIPPED_TOP and not TEST_PACKAGE.match(stem)


class ConsumerError(Exception):
    """The release's sources could not be had; the message says why."""


@dataclass(frozen=True)
class Sources:
    name: str
    version: str
    kind: str  # wheel | sdist
    archive: str  # the file name
    root: Path  # the import root
    files: tuple[str, ...]  # .py files under root, posix, sorted

    def read(self, path: str) -> str | None:
        """A file's text by its path relative to the import root, or a path ending in it."""
        found = self.locate(path)
        if found is None:
            return None
        return (self.root / found).read_text(encoding="utf-8", errors="replace")

    def locate(self, path: str) -> str | None:
        if path in self.files:
            return path
        tails = [f for f in self.files if f.endswith("/" + path) or path.endswith("/" + f)]
        return tails[0] if len(tails) == 1 else None


def _safe(name: str) -> PurePosixPath | None:
    path = PurePosixPath(name)
    if path.is_absolute() or ".." in path.parts or not name.endswith(".py"):
        return None
    return path


def _extract_zip(archive: Path, dest: Path) -> None:
    with zipfile.ZipFile(archive) as zf:
        for info in zf.infolist():
            path = _safe(info.filename)
            link = (info.external_attr >> 16) & 0o170000 == 0o120000
            if path is None or info.is_dir() or link or info.file_size > MAX_MEMBER:
                continue
            out = dest / path
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(zf.read(info))


def _extract_tar(archive: Path, dest: Path) -> None:
    with tarfile.open(archive) as tf:
        for member in tf.getmembers():
            path = _safe(member.name)
            if path is None or not member.isfile() or member.size > MAX_MEMBER:
                continue
            source = tf.extractfile(member)
            if source is None:
                continue
            out = dest / path
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(source.read())


def _py_files(root: Path, tops: list[Path]) -> tuple[str, ...]:
    files = []
    for top in tops:
        found = [top] if top.is_file() else sorted(top.rglob("*.py"))
        files += [f.relative_to(root).as_posix() for f in found if f.is_file()]
    return tuple(sorted(set(files)))


def _wheel_layout(dest: Path) -> tuple[Path, tuple[str, ...]]:
    tops = [
        p
        for p in sorted(dest.iterdir())
        if not p.name.endswith((".dist-info", ".data")) and (p.is_dir() or p.suffix == ".py")
    ]
    return dest, _py_files(dest, tops)


def _sdist_layout(dest: Path) -> tuple[Path, tuple[str, ...]]:
    dirs = [p for p in dest.iterdir() if p.is_dir()]
    project = dirs[0] if len(dirs) == 1 else dest
    src = project / "src"
    root = src if src.is_dir() and any(src.rglob("*.py")) else project
    tops = [
        p
        for p in sorted(root.iterdir())
        if _judged_top(p.stem)
        and ((p.is_dir() and (p / "__init__.py").is_file()) or p.suffix == ".py")
    ]
    return root, _py_files(root, tops)


def extract(archive: Path, dest: Path, kind: str) -> tuple[Path, tuple[str, ...]]:
    """The `.py` members of a wheel or an sdist (`kind`) extracted under `dest`: the import
    root and the files under it that the judge reads (an sdist's top-level packages only)."""
    try:
        if archive.suffix in (".whl", ".zip"):
            _extract_zip(archive, dest)
        else:
            _extract_tar(archive, dest)
    except (OSError, zipfile.BadZipFile, tarfile.TarError, EOFError) as exc:
        raise ConsumerError(f"{archive.name}: {exc}") from exc
    dest.mkdir(parents=True, exist_ok=True)
    return _wheel_layout(dest) if kind == "wheel" else _sdist_layout(dest)


# --------------------------------------------------------------------------- downloads


def _pip(pip_python: Path, args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(pip_python), "-m", "pip", *args],
        capture_output=True,
        text=True,
        timeout=DOWNLOAD_TIMEOUT,
        check=False,
    )


def download_wheel(pip_python: Path, name: str, version: str, dest: Path) -> Path | None:
    dest.mkdir(parents=True, exist_ok=True)
    done = _pip(
        pip_python,
        ["download", "--quiet", "--no-deps", "--only-binary", ":all:", "--dest", str(dest),
         f"{name}=={version}"],
    )  # fmt: skip
    wheels = sorted(dest.glob("*.whl"))
    return wheels[0] if done.returncode == 0 and wheels else None


def release_file(filename: str, name: str, version: str) -> str | None:
    """ "wheel" or "sdist" when the file is one of name==version's, else None."""
    if filename.endswith(".whl"):
        try:
            project, found, _, _ = parse_wheel_filename(filename)
        except InvalidWheelFilename:
            return None
        same = found == Version(version) and project == canonicalize_name(name)
        return "wheel" if same else None
    for suffix in (".tar.gz", ".zip", ".tar.bz2", ".tgz"):
        if filename.lower().endswith(suffix):
            stem = filename[: -len(suffix)]
            break
    else:
        return None
    project, _, found = stem.rpartition("-")
    try:
        same = Version(found) == Version(version)
    except InvalidVersion:
        same = found == version
    return "sdist" if same and canonicalize_name(project) == canonicalize_name(name) else None


def download_from_index(
    pip_python: Path, name: str, version: str, dest: Path, kind: str
) -> Path | None:
    """A `kind` ("wheel": any platform's, the sources are the same; "sdist") file of the
    release, fetched from the indexes pip is configured with, without pip."""
    dest.mkdir(parents=True, exist_ok=True)
    for index in index_urls(pip_python):
        for url in sorted(candidates(index, name)):
            clean, _, fragment = url.partition("#")
            filename = urllib.parse.unquote(clean.rsplit("/", 1)[-1])
            if release_file(filename, name, version) != kind or "/" in filename:
                continue
            data = read(clean, MAX_ARCHIVE)
            digest = fragment.split("=", 1)[1] if fragment.startswith("sha256=") else None
            if digest and hashlib.sha256(data).hexdigest() != digest:
                raise ConsumerError(f"{filename}: sha256 does not match the index")
            out = dest / filename
            out.write_bytes(data)
            return out
    return None


def consumer_sources(work: Path, pip_python: Path, name: str, version: str) -> Sources:
    """The release's sources, fetched once and kept under `consumers/<name>-<version>/`."""
    folder = work / "consumers" / f"{canonicalize_name(name)}-{version}"
    record = folder / "sources.json"
    if record.is_file():
        kept = json.loads(record.read_text(encoding="utf-8"))
        return Sources(name, version, kept["kind"], kept["archive"], folder / kept["root"],
                       tuple(kept["files"]))  # fmt: skip
    shutil.rmtree(folder, ignore_errors=True)
    kind, archive = "wheel", download_wheel(pip_python, name, version, folder / "download")
    for kind in ("wheel", "sdist") if archive is None else ():
        archive = download_from_index(pip_python, name, version, folder / "download", kind)
        if archive is not None:
            break
    if archive is None:
        raise ConsumerError(f"{name}=={version}: no wheel or sdist found on the index")
    root, files = extract(archive, folder / "src", kind)
    kept = {"kind": kind, "archive": archive.name, "root": root.relative_to(folder).as_posix(),
            "files": list(files)}  # fmt: skip
    record.write_text(json.dumps(kept, indent=1, sort_keys=True), encoding="utf-8")
    return Sources(name, version, kind, archive.name, root, files)
