# Maintainers: one consumer file as text, before and around the AST.
#
# Owns: which walked paths are scanned (exclude globs, `.pyi` next to a `.py`), the dotted
# module name of a path, splitting text into lines the way the parser numbers them, parsing
# (what Python's parser refuses becomes model.Unparsable, never an exception, but for a
# MemoryError that is a shortage, not the parser's limit; the parser's warnings are
# silenced), and the inline suppression comments `# drift-audit: ignore[slug, ...]`, found
# with tokenize so strings never count.
# Takes: posix paths relative to the import root and their text.
# Gives: plain values to scan.consumer.
from __future__ import annotations

import ast
import io
import mmap
import re
import tokenize
import warnings
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING

from auditor.model import Unparsable

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

_NEWLINES = re.compile(r"\r\n|\r|\n")
_SUPPRESS = re.compile(r"#\s*drift-audit:\s*ignore\b(?:\[([^\]]*)\])?")
_GLOB_CHARS = frozenset("*?[")
# What Python 3.12+ says when its parser, not the machine, runs out (3.10 and 3.11 say
# nothing: a MemoryError there may be either, and is taken as a shortage)
_PARSER_OVERFLOW = "too complex to parse"
PARSE_BYTES_PER_CHAR = 1024  # twice what ast.parse of a long tuple peaks at (tracemalloc)
_OTHER_BREAKS = ("\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")


def module_name(path: str) -> str:
    """`a/b/__init__.py` -> `a.b`; `a/b/c.py` -> `a.b.c` (`.pyi` likewise)."""
    parts = path.rsplit(".", 1)[0].split("/")
    if parts[-1] == "__init__" and len(parts) > 1:
        parts.pop()
    return ".".join(parts)


def is_package(path: str) -> bool:
    return path.rsplit("/", 1)[-1] in ("__init__.py", "__init__.pyi")


def is_excluded(path: str, patterns: Sequence[str]) -> bool:
    """fnmatch on the posix path; `**/x` also matches at the top, a bare folder its files."""
    for raw in patterns:
        pattern = raw.strip().removeprefix("./")
        if not pattern:
            continue
        if fnmatchcase(path, pattern):
            return True
        if pattern.startswith("**/") and fnmatchcase(path, pattern[3:]):
            return True
        if not _GLOB_CHARS & set(pattern) and path.startswith(pattern.rstrip("/") + "/"):
            return True
    return False


def select_paths(paths: Iterable[str], exclude: Sequence[str]) -> list[str]:
    """The paths to scan, sorted: excluded ones dropped, a `.pyi` dropped next to its `.py`,
    and a module shadowed by a package of the same name (`a/b.py` beside `a/b/__init__.py`:
    the import system finds the package first, so the module never runs)."""
    unique = sorted(set(paths))
    present = set(unique)
    return [
        p
        for p in unique
        if p.endswith((".py", ".pyi"))
        and not is_excluded(p, exclude)
        and not (p.endswith(".pyi") and p[:-1] in present)
        and not _shadowed(p, present)
    ]


def excluded_paths(
    paths: Iterable[str], unlisted: Iterable[str], exclude: Sequence[str]
) -> tuple[str, ...]:
    """What `exclude` keeps out of the scan, sorted, for the report to name: the Python files
    the scan would read without it, and each folder the walk could not list (`unlisted`:
    what its files are is not known) as `folder/`."""
    files = {p for p in select_paths(paths, ()) if is_excluded(p, exclude)}
    folders = {
        f"{d}/" for d in unlisted if is_excluded(f"{d}/", exclude) or is_excluded(d, exclude)
    }
    return tuple(sorted(files | folders))


def _shadowed(path: str, present: set[str]) -> bool:
    if path.endswith(("/__init__.py", "/__init__.pyi")) or path in ("__init__.py", "__init__.pyi"):
        return False
    stem = path.removesuffix(".pyi").removesuffix(".py")
    return f"{stem}/__init__.py" in present or f"{stem}/__init__.pyi" in present


def split_lines(text: str) -> tuple[str, ...]:
    """Lines as the parser numbers them (\\r\\n, \\r and \\n), without line endings."""
    if not text:
        return ()
    if not any(c in text for c in _OTHER_BREAKS):  # str.splitlines() would agree: faster
        return tuple(text.splitlines())
    lines = _NEWLINES.split(text)
    if lines[-1] == "":
        lines.pop()
    return tuple(lines)


def parse_source(path: str, text: str) -> ast.Module | Unparsable:
    """The module's AST, or why it could not be parsed.

    The parser's warnings (an invalid escape sequence, `is` with a literal) are the
    consumer's business, not the audit's: they are silenced, so they never reach stderr and
    a `-W error` run does not turn them into syntax errors, as Python runs such files."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(text, filename=path)
    except SyntaxError as exc:
        line, column = exc.lineno, exc.offset
        if line is None:  # NUL bytes (Python 3.11.4+) come without a position
            line, column = _position_of(text, "\0")
        return Unparsable(path, f"{type(exc).__name__}: {exc.msg}", line, column or 1)
    except ValueError as exc:  # NUL bytes (older Pythons)
        line, column = _position_of(text, "\0")
        return Unparsable(path, f"ValueError: {exc}", line, column)
    except MemoryError as exc:
        if not _parser_gave_up(exc, text):  # a shortage says nothing of the file: the
            raise MemoryError(f"parsing {path}") from exc  # audit cannot run (exit 2)
        return Unparsable(path, "MemoryError: nested too deeply for Python's parser")
    except RecursionError as exc:  # at the caller's stack, as Python parses an import
        return Unparsable(path, f"RecursionError: {exc}")


def _parser_gave_up(exc: MemoryError, text: str) -> bool:
    """Whether ast.parse's MemoryError is the parser's own limit on nesting, not a shortage.
    Python 3.12+ says which; 3.10 and 3.11 say nothing either way, and then the address space
    a parse of this size could need is asked for (mapped, never touched): had the parser run
    out of memory, that would fail too."""
    if _PARSER_OVERFLOW in str(exc):
        return True
    if exc.args:
        return False
    try:
        mmap.mmap(-1, PARSE_BYTES_PER_CHAR * len(text) + mmap.PAGESIZE).close()
    except (OSError, MemoryError, OverflowError, ValueError):
        return False
    return True


def _position_of(text: str, char: str) -> tuple[int, int]:
    index = text.find(char)
    if index < 0:
        return 1, 1
    before = text[:index]
    line = len(_NEWLINES.findall(before)) + 1
    start = max(before.rfind("\n"), before.rfind("\r")) + 1
    return line, index - start + 1


def suppressions(text: str) -> dict[int, frozenset[str]]:
    """line -> slugs ignored there (empty: all), from real comments only."""
    if "drift-audit" not in text:
        return {}
    found: dict[int, frozenset[str]] = {}
    try:
        for token in tokenize.generate_tokens(io.StringIO(text, newline=None).readline):
            if token.type == tokenize.COMMENT:
                _add_suppression(found, token.start[0], token.string)
    except (tokenize.TokenError, SyntaxError):
        pass  # keep what was found before the bad spot
    return found


def _add_suppression(found: dict[int, frozenset[str]], line: int, comment: str) -> None:
    match = _SUPPRESS.search(comment)
    if match is None:
        return
    slugs = match.group(1) or ""
    found[line] = frozenset(s.strip() for s in slugs.split(",") if s.strip())
