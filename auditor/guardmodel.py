"""Plain frozen data about the consumer's guards.

What it owns: what a `try` catches (`Handled`), version tests and the lines they gate
(`VersionTest`, `VersionGate`), and flags not decided until every module is walked (`FlagExpr`,
`FlagDef`, `FlagHelper`, `FlagGate`: scan/flags.py). What it takes: nothing (no I/O). What it
gives: the types scan/ records and findings.py reads; model.py re-exports every name.
"""

from __future__ import annotations

import operator
import re
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Handled:
    """Lines under a `try` (or in one of its `except` blocks, which run only after that
    exception): an exception of one of `catches` raised there does not end the program."""

    first_line: int
    last_line: int
    catches: frozenset[str]  # exception class names; "BaseException" for a bare except
    # a try body: its handlers in order, (names, whether the handler only fails: logs,
    # re-raises, wraps or returns an error, rather than providing an alternative, its line)
    handlers: tuple[tuple[frozenset[str], bool, int], ...] = ()


RELEASE = re.compile(r"\d+(?:\.\d+)*")  # a final release: no pre, post or dev part
_OPS = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}


@dataclass(frozen=True, slots=True)
class VersionTest:
    """A comparison of a provider's release with a literal: `tornado.version_info >= (5, 0)`
    is `VersionTest("tornado", ">=", (5, 0), 0)`; `prefix` is how many leading parts are
    compared (0: all, padded with zeros; 1: `version_info[0]`; n: `version_info[:n]`)."""

    module: str
    op: str
    version: tuple[int, ...]
    prefix: int = 0
    exact: bool = True  # False: a tuple of unknown length, where `>`/`<=` on an equal prefix
    # depend on that length (Python: (5, 0, 0, 0) > (5, 0)); those stay undecided
    runs_if: bool = True  # the guarded lines run when the comparison holds (False: when not)

    def runs(self, release: str) -> bool | None:
        """Whether the lines run with this release of the module's distribution; None when
        the release cannot be compared (a pre-release, a local version)."""
        if not RELEASE.fullmatch(release):
            return None
        parts = tuple(int(p) for p in release.split("."))
        width = self.prefix or max(len(parts), len(self.version))
        have = (parts + (0,) * width)[:width]
        want = (self.version + (0,) * width)[:width]
        if not self.exact and self.op in (">", "<=") and have[: len(self.version)] == self.version:
            return None
        holds: bool = _OPS[self.op](have, want)
        return holds == self.runs_if


@dataclass(frozen=True, slots=True)
class VersionGate:
    """Lines that run only under a decided version test (an `if` branch, or its `else`)."""

    first_line: int
    last_line: int
    test: VersionTest


@dataclass(frozen=True, slots=True)
class FlagExpr:
    """What a consumer's test stands for before the names it reads from other consumer
    modules are known (scan/flags.py): a decided version test (`test`), a test that looks
    at a version or a feature but cannot be decided (`vague`), or a name of a consumer
    module (`ref`, a dotted path: a flag, or a helper when `literal` or `passed` is set:
    `minversion(numpy, "2.0")` passes the provider module `passed` and the literal)."""

    test: VersionTest | None = None
    vague: bool = False
    ref: str | None = None
    negated: bool = False
    passed: str | None = None
    literal: str | None = None


@dataclass(frozen=True, slots=True)
class FlagDef:
    """A module-level name bound once to a flag: `NUMPY_LT_2_0 = not minversion(np, "2")`."""

    name: str
    expr: FlagExpr


@dataclass(frozen=True, slots=True)
class FlagHelper:
    """A consumer function whose result is a version test: with no parameter, a fixed one
    (`test`); else a comparison of the version of the module passed at `module_index` with
    the literal passed at `version_index` (`op`: its returns' operators, `|`-joined)."""

    name: str
    test: VersionTest | None = None
    op: str = ""
    module_index: int = -1
    version_index: int = -1


@dataclass(frozen=True, slots=True)
class FlagGate:
    """Lines that run only when a flag of another module (or a helper) holds."""

    first_line: int
    last_line: int
    expr: FlagExpr
