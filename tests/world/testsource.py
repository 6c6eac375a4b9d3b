"""A dependent's own tests, for the test-suite judge: its release's sdist, extracted whole.

`sdist_tree(work, pip_python, name, version)` downloads the release's sdist from the indexes
pip is configured with (consumers.py's `download_from_index`, without pip: nothing is built)
and extracts every regular file (never a link, a name that leaves the folder, or a member over
16 MiB; at most 512 MiB in all) into `suites/sdists/<name>-<version>/`, once. It returns a
`Tree`, or the reason there are no tests ("no tests" is counted, not an error): no sdist on
the index, or no test file in it.

A test file is one pytest collects by default (`test_*.py`, `*_test.py`) or a Django app's
`tests.py`. `roots_of(files)` gives each test file's outermost folder named test/tests/testing,
else the file. `Tree.test_requirements(provider)` reads what the sdist says its tests need:
the test/tests/testing extras (PKG-INFO, `*.egg-info/requires.txt`, pyproject, setup.cfg;
the dependent's own extras they name followed), every extra's pytest plugins, setup.py's
`tests_require` (read with `ast`, never run), and by name only (their pins are for other
setups) the requirement files named for tests, PEP 735 groups, tox's `deps` without factors
and the pytest plugins of the dev requirement files; only plain requirements (no options,
paths or URLs), the dependent, the provider and pytest left out.
"""

from __future__ import annotations

import ast
import configparser
import json
import re
import shutil
import sys
import tarfile
import zipfile
from dataclasses import dataclass
from email.parser import HeaderParser
from pathlib import Path, PurePosixPath

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from tests.world.consumers import ConsumerError, download_from_index

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

MAX_MEMBER = 16 * 1024 * 1024
MAX_TOTAL = 512 * 1024 * 1024
TEST_DIRS = frozenset({"test", "tests", "testing"})
TEST_EXTRAS = ("test", "tests", "testing")
SKIPPED_DIRS = frozenset({".git", ".tox", ".nox", ".eggs", "__pycache__", "build", "dist",
                          "node_modules", ".venv", "venv"})  # fmt: skip
REQUIREMENT_FILES = (
    "requirements-test.txt", "requirements_test.txt", "test-requirements.txt",
    "test_requirements.txt", "requirements-tests.txt", "requirements_tests.txt",
    "tests-requirements.txt", "requirements-testing.txt", "requirements/test.txt",
    "requirements/tests.txt", "requirements/testing.txt", "tests/requirements.txt",
    "test/requirements.txt",
)  # fmt: skip
DEV_FILES = (
    "requirements-dev.txt",
    "requirements_dev.txt",
    "dev-requirements.txt",
    "dev_requirements.txt",
    "requirements/dev.txt",
    "requirements/development.txt",
    "requirements-ci.txt",
    "requirements/ci.txt",
)  # fmt: skip  (only their pytest plugins are read: the rest is linters and docs)
CONFIGS = (("pytest.ini", "pytest"), ("pyproject.toml", "tool.pytest.ini_options"),
           ("tox.ini", "pytest"), ("setup.cfg", "tool:pytest"))  # fmt: skip
_MAX_REQUIREMENTS = 40


class NoTests(Exception):
    """The release has no tests to run here; the message says why."""


def is_test_file(path: PurePosixPath) -> bool:
    name = path.name
    if not name.endswith(".py"):
        return False
    return name.startswith("test_") or name.endswith("_test.py") or name == "tests.py"


def find_test_files(root: Path) -> list[PurePosixPath]:
    """Test files under `root`, relative to it, sorted."""
    out = []
    for path in sorted(root.rglob("*.py")):
        rel = PurePosixPath(path.relative_to(root).as_posix())
        if SKIPPED_DIRS & set(rel.parts[:-1]) or any(p.startswith(".") for p in rel.parts):
            continue
        if is_test_file(rel) and path.is_file() and not path.is_symlink():
            out.append(rel)
    return out


def roots_of(files: list[PurePosixPath]) -> list[PurePosixPath]:
    """Each file's outermost folder named test/tests/testing, else the file; nested ones dropped."""
    roots = set()
    for rel in files:
        named = [i for i, part in enumerate(rel.parts[:-1]) if part in TEST_DIRS]
        roots.add(PurePosixPath(*rel.parts[: named[0] + 1]) if named else rel)
    kept = sorted(roots, key=lambda p: (len(p.parts), p.as_posix()))
    out: list[PurePosixPath] = []
    for root in kept:
        if not any(root.is_relative_to(k) for k in out):
            out.append(root)
    return sorted(out)


@dataclass(frozen=True)
class Tree:
    name: str
    version: str
    archive: str
    project: Path  # the sdist's single top folder (or the extraction folder)
    import_root: Path  # project/src when it holds Python files, else project
    tests: tuple[str, ...]  # test files, relative to project

    def config(self) -> str | None:
        """The file of the project's pytest configuration, relative to project, if any."""
        for name, section in CONFIGS:
            path = self.project / name
            if path.is_file() and _has_section(path, section):
                return name
        return None

    def test_requirements(self, provider: str) -> list[str]:
        """What the sdist says its tests need; the dependent, the provider and pytest (the
        harness installs those) left out. Requirement files, tox's deps and dependency groups
        are read for names only: their pins are for other setups (a lowest-versions run)."""
        skip = {canonicalize_name(self.name), canonicalize_name(provider), "pytest"}
        lines = self._extra_requirements() + _setup_tests_require(self.project / "setup.py")
        loose: list[str] = []
        for rel in REQUIREMENT_FILES:
            loose += _lines(self.project / rel)
        loose += _groups(self.project / "pyproject.toml") + _tox_deps(self.project / "tox.ini")
        for rel in DEV_FILES:
            loose += [line for line in _lines(self.project / rel) if _is_plugin(line)]
        lines += [_name_only(line) for line in loose]
        out: dict[str, str] = {}
        for line in lines:
            req = _requirement(line)
            if req is not None and canonicalize_name(req.name) not in skip:
                out.setdefault(canonicalize_name(req.name), str(req))
        return [out[k] for k in sorted(out)][:_MAX_REQUIREMENTS]

    def _extra_requirements(self) -> list[str]:
        """The test extras' requirements (the dependent's own extras they name expanded), and
        the pytest plugins of any extra (`dev`'s pytest-django), from every place an sdist
        writes its extras."""
        extras = self.extras()
        todo = [e for e in TEST_EXTRAS if e in extras]
        seen, out = set(todo), []
        while todo:
            for text in extras.get(todo.pop(0), []):
                req = _requirement(text)
                if req is None:
                    continue
                if canonicalize_name(req.name) == canonicalize_name(self.name):
                    more = [
                        canonicalize_name(e) for e in req.extras if canonicalize_name(e) not in seen
                    ]
                    seen.update(more)
                    todo += more
                else:
                    out.append(text)
        for reqs in extras.values():
            out += [r for r in reqs if _is_plugin(r)]
        return out

    def extras(self) -> dict[str, list[str]]:
        """extra -> its requirements (markers evaluated here, then dropped): PKG-INFO's
        Requires-Dist, `*.egg-info/requires.txt`, pyproject's optional-dependencies and
        setup.cfg's extras_require, together."""
        found: dict[str, list[str]] = {}
        for extra, text in [*_pkg_info_extras(self.project / "PKG-INFO"),
                            *_egg_info_extras(self.project),
                            *_pyproject_extras(self.project / "pyproject.toml"),
                            *_setup_cfg_extras(self.project / "setup.cfg")]:  # fmt: skip
            req = _requirement(text)
            if req is None:
                continue
            if req.marker is not None and not req.marker.evaluate({"extra": extra}):
                continue
            req.marker = None
            found.setdefault(canonicalize_name(extra), []).append(str(req))
        return found


def _pkg_info_extras(path: Path) -> list[tuple[str, str]]:
    if not path.is_file():
        return []
    headers = HeaderParser().parsestr(path.read_text(encoding="utf-8", errors="replace"))
    out = []
    for line in headers.get_all("Requires-Dist") or []:
        req = _requirement(line)
        if req is None or req.marker is None:
            continue
        for extra in re.findall(r"extra\s*==\s*['\"]([^'\"]+)['\"]", str(req.marker)):
            out.append((extra, line))
    return out


def _egg_info_extras(project: Path) -> list[tuple[str, str]]:
    out = []
    for requires in sorted(project.glob("*.egg-info/requires.txt"))[:1]:
        extra, marker = "", ""
        for line in _lines(requires):
            head = re.fullmatch(r"\[([^:\]]*)(?::(.*))?\]", line.strip())
            if head:
                extra, marker = head.group(1), head.group(2) or ""
            elif extra and line.strip():
                out.append((extra, f"{line.strip()}; {marker}" if marker else line.strip()))
    return out


def _pyproject_extras(path: Path) -> list[tuple[str, str]]:
    if not path.is_file():
        return []
    try:
        project = tomllib.loads(path.read_text(encoding="utf-8")).get("project", {})
    except (tomllib.TOMLDecodeError, UnicodeDecodeError):
        return []
    extras = project.get("optional-dependencies", {}) if isinstance(project, dict) else {}
    if not isinstance(extras, dict):
        return []
    return [(e, r) for e, reqs in extras.items() if isinstance(reqs, list)
            for r in reqs if isinstance(r, str)]  # fmt: skip


def _setup_cfg_extras(path: Path) -> list[tuple[str, str]]:
    if not path.is_file():
        return []
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(path.read_text(encoding="utf-8", errors="replace"))
    except configparser.Error:
        return []
    if not parser.has_section("options.extras_require"):
        return []
    return [(extra, line.strip()) for extra, value in parser.items("options.extras_require")
            for line in value.splitlines() if line.strip()]  # fmt: skip


def _setup_tests_require(path: Path) -> list[str]:
    """`tests_require=[...]` of setup.py's setup() call, read with ast (never run): a literal
    list, or a name bound to one at module level."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, SyntaxError, ValueError):
        return []
    bound = {
        t.id: node.value
        for node in tree.body
        if isinstance(node, ast.Assign)
        for t in node.targets
        if isinstance(t, ast.Name)
    }
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        for kw in node.keywords:
            if kw.arg == "tests_require":
                value = (
                    bound.get(kw.value.id, kw.value) if isinstance(kw.value, ast.Name) else kw.value
                )
                return _literal_strings(value)
    return []


def _literal_strings(node: ast.expr) -> list[str]:
    if not isinstance(node, (ast.List, ast.Tuple)):
        return []
    return [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]


def _has_section(path: Path, section: str) -> bool:
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix == ".toml":
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError:
            return False
        return isinstance(data.get("tool", {}).get("pytest", {}).get("ini_options"), dict)
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text)
    except configparser.Error:
        return path.name == "pytest.ini"
    return parser.has_section(section) or path.name == "pytest.ini"


def _lines(path: Path) -> list[str]:
    if not path.is_file() or path.is_symlink():
        return []
    return path.read_text(encoding="utf-8", errors="replace").splitlines()


def _requirement(line: str) -> Requirement | None:
    text = line.split(" #", 1)[0].strip()
    if not text or text.startswith(("#", "-", ".", "/")) or "://" in text:
        return None
    try:
        req = Requirement(text)
    except InvalidRequirement:
        return None
    return None if req.url else req


def _is_plugin(line: str) -> bool:
    """A pytest plugin's requirement (pytest-django, pytest-aiohttp, pytest_asyncio)."""
    req = _requirement(line)
    return req is not None and canonicalize_name(req.name).startswith("pytest-")


def _name_only(line: str) -> str:
    """A requirement line's name and extras (its pins and markers dropped)."""
    req = _requirement(line)
    if req is None:
        return ""
    return req.name + (f"[{','.join(sorted(req.extras))}]" if req.extras else "")


def _groups(path: Path) -> list[str]:
    if not path.is_file():
        return []
    try:
        groups = tomllib.loads(path.read_text(encoding="utf-8")).get("dependency-groups", {})
    except (tomllib.TOMLDecodeError, UnicodeDecodeError):
        return []
    out: list[str] = []
    for name in TEST_EXTRAS:
        values = groups.get(name, []) if isinstance(groups, dict) else []
        out += [v for v in values if isinstance(v, str)] if isinstance(values, list) else []
    return out


def _tox_deps(path: Path) -> list[str]:
    if not path.is_file():
        return []
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(path.read_text(encoding="utf-8", errors="replace"))
    except configparser.Error:
        return []
    deps = parser.get("testenv", "deps", fallback="")
    return [d for d in deps.splitlines() if not re.match(r"^\s*[\w,\-{}!]+:", d)]  # no factors


# --------------------------------------------------------------------------- extraction


def _member_path(name: str) -> PurePosixPath | None:
    path = PurePosixPath(name)
    if not name or path.is_absolute() or ".." in path.parts or "\\" in name:
        return None
    return path


def _extract_tar(archive: Path, dest: Path) -> None:
    total = 0
    with tarfile.open(archive) as tf:
        for member in tf.getmembers():
            path = _member_path(member.name)
            if path is None or not member.isfile() or member.size > MAX_MEMBER:
                continue
            total += member.size
            if total > MAX_TOTAL:
                raise ConsumerError(f"{archive.name}: more than {MAX_TOTAL} bytes extracted")
            source = tf.extractfile(member)
            if source is not None:
                _write(dest / path, source.read())


def _extract_zip(archive: Path, dest: Path) -> None:
    total = 0
    with zipfile.ZipFile(archive) as zf:
        for info in zf.infolist():
            path = _member_path(info.filename)
            link = (info.external_attr >> 16) & 0o170000 == 0o120000
            if path is None or info.is_dir() or link or info.file_size > MAX_MEMBER:
                continue
            total += info.file_size
            if total > MAX_TOTAL:
                raise ConsumerError(f"{archive.name}: more than {MAX_TOTAL} bytes extracted")
            _write(dest / path, zf.read(info))


def _write(out: Path, data: bytes) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(data)


def _layout(extracted: Path) -> tuple[Path, Path]:
    dirs = [p for p in extracted.iterdir() if p.is_dir()]
    files = [p for p in extracted.iterdir() if p.is_file()]
    project = dirs[0] if len(dirs) == 1 and not files else extracted
    src = project / "src"
    return project, src if src.is_dir() and any(src.rglob("*.py")) else project


def _fetch(folder: Path, pip_python: Path, name: str, version: str) -> dict[str, object]:
    """Download and extract; the record kept in sources.json."""
    archive = download_from_index(pip_python, name, version, folder / "download", "sdist")
    if archive is None:
        return {"none": "no sdist on the index (the repository is not read)"}
    extracted = folder / "tree"
    try:
        if archive.name.endswith(".zip"):
            _extract_zip(archive, extracted)
        else:
            _extract_tar(archive, extracted)
    except (OSError, zipfile.BadZipFile, tarfile.TarError) as exc:
        raise ConsumerError(f"{archive.name}: {exc}") from exc
    shutil.rmtree(folder / "download", ignore_errors=True)
    extracted.mkdir(parents=True, exist_ok=True)
    project, import_root = _layout(extracted)
    tests = [p.as_posix() for p in find_test_files(project)]
    record: dict[str, object] = {"archive": archive.name,
                                 "project": project.relative_to(folder).as_posix(),
                                 "import_root": import_root.relative_to(folder).as_posix(),
                                 "tests": tests}  # fmt: skip
    if not tests:
        record["none"] = "the sdist holds no test file"
    return record


def sdist_tree(work: Path, pip_python: Path, name: str, version: str) -> Tree:
    """The release's sdist, extracted once; NoTests when there is nothing to run."""
    folder = work / "suites" / "sdists" / f"{canonicalize_name(name)}-{version}"
    record_path = folder / "sources.json"
    if record_path.is_file():
        record = json.loads(record_path.read_text(encoding="utf-8"))
    else:
        shutil.rmtree(folder, ignore_errors=True)
        record = _fetch(folder, pip_python, name, version)
        if "archive" in record:  # "no sdist" may be a page that failed to load: asked again
            folder.mkdir(parents=True, exist_ok=True)
            record_path.write_text(json.dumps(record, indent=1, sort_keys=True), encoding="utf-8")
    if record.get("none"):
        raise NoTests(str(record["none"]))
    return Tree(name, version, str(record["archive"]), folder / str(record["project"]),
                folder / str(record["import_root"]), tuple(record["tests"]))  # fmt: skip
