"""Plain frozen data that travels between the stages.

sources -> provider -> scan -> graph -> bind -> findings -> reporters -> cli: each stage takes
and gives these types, so every stage can be tested with literals. Nothing here does I/O.

Conventions: `path` is a consumer file, posix, relative to the consumer's import root while
the stages run; audit() rewrites a finding's `location.path` relative to the project root (the
folder holding pyproject.toml: `src/acme/x.py`) and keeps the import-root-relative one in
`module_path`, which the fingerprint uses, so baselines survive the change; lines
and columns are 1-based (ast's 0-based columns are converted once, in scan/); `symbol` is a
provider's canonical dotted path; `target` and `baseline` are provider versions.
"""

from __future__ import annotations

import hashlib
import sys
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import TYPE_CHECKING

from auditor.guardmodel import RELEASE as RELEASE
from auditor.guardmodel import FlagDef as FlagDef
from auditor.guardmodel import FlagExpr as FlagExpr
from auditor.guardmodel import FlagGate as FlagGate
from auditor.guardmodel import FlagHelper as FlagHelper
from auditor.guardmodel import Handled as Handled  # noqa: TC001  (re-exported)
from auditor.guardmodel import VersionGate as VersionGate  # noqa: TC001  (re-exported)
from auditor.guardmodel import VersionTest as VersionTest

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from auditor.kinds import Kind, Severity


# --------------------------------------------------------------------------- consumer side


TEST_FOLDERS = frozenset({"tests", "test"})


def is_test_path(path: str) -> bool:
    """A consumer's test file, by its path (posix, relative): a folder on the way named
    `tests` or `test`, or a file named `test_*.py`, `*_test.py` or `conftest.py`, as pytest
    finds them. Findings there are flagged `test` and can be kept out of the gate."""
    *folders, name = path.split("/")
    if any(folder in TEST_FOLDERS for folder in folders):
        return True
    return name == "conftest.py" or (
        name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py"))
    )


@dataclass(frozen=True, slots=True)
class Location:
    """A span of a consumer file: 1-based lines, 1-based columns."""

    path: str
    line: int
    column: int
    end_line: int
    end_column: int


class Action(str, Enum):
    IMPORT = "import"  # `import a.b` or `from a import b`
    CALL = "call"  # a call whose callee is a provider symbol
    ATTRIBUTE = "attribute"  # `a.b.c` on an imported provider module or object
    SUBCLASS = "subclass"  # `class C(provider.Base)`
    OVERRIDE = "override"  # a method of such a subclass that overrides a provider method
    SUPER_CALL = "super-call"  # `super().__init__(...)` into a provider base


@dataclass(frozen=True, slots=True)
class CallShape:
    """What a call passes, as far as the source shows it."""

    positional: int
    keywords: tuple[str, ...]
    star_args: bool = False  # *xs present: `positional` is only a lower bound
    star_kwargs: bool = False  # **kw present: `keywords` is only a lower bound
    written: tuple[tuple[str, Location], ...] = ()  # keywords a `**d` spread passes, each
    # where the consumer wrote its key into d (`d["size"] = 1`): a finding about one goes there


@dataclass(frozen=True, slots=True)
class Site:
    """One reference from the consumer into a provider.

    `target` is a dotted path; a part ending in `()` stands for "an instance of / the result
    of calling" what precedes it: `vllm.x.Scheduler().add_request` is the method reached
    through a Scheduler object (bound: `self` is already supplied), and `vllm.x.f().y` is
    attribute `y` of what `f` returns (from its return annotation).
    """

    action: Action
    target: str  # provider dotted path as the consumer names it, before alias resolution
    scope: str  # consumer dotted path of the enclosing function, class or module
    location: Location
    call: CallShape | None = None
    guarded: bool = False  # under try/except ImportError, TYPE_CHECKING or a version check
    module_only: bool = False  # `import a.b`: the target must be a module
    alternatives: tuple[str, ...] = ()  # other targets tried by the same try/except ImportError
    via: str | None = None  # calls/attributes: the provider path the root name is bound to
    override: Signature | None = None  # OVERRIDE sites: the consumer method's own signature
    store: bool = False  # ATTRIBUTE sites that assign (`x.a = 1`): a new attribute is no break
    result_use: tuple[str, ...] = ()  # CALL sites: how the result is relied on (scan/results.py)


@dataclass(frozen=True, slots=True)
class Definition:
    """A consumer module, class or function, by dotted path."""

    name: str  # e.g. speculators.data_generation.x.VllmHiddenStatesGenerator.generate
    kind: str  # "module", "class" or "function"
    location: Location


@dataclass(frozen=True, slots=True)
class Edge:
    """A reference from one consumer definition to another (calls, instantiations)."""

    caller: str
    callee: str


@dataclass(frozen=True, slots=True)
class Unparsable:
    """A consumer file the scan could not read or parse, and why."""

    path: str
    reason: str
    line: int = 1
    column: int = 1


@dataclass(frozen=True, slots=True)
class ConsumerScan:
    """What scan_consumer() saw: definitions, internal edges and provider sites."""

    package: str  # top-level import name(s) joined by ","
    files: tuple[str, ...]
    definitions: tuple[Definition, ...]
    edges: tuple[Edge, ...]
    sites: tuple[Site, ...]
    unparsable: tuple[Unparsable, ...]
    lines: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # path -> source lines
    suppressions: Mapping[str, Mapping[int, frozenset[str]]] = field(default_factory=dict)
    # path -> line -> kinds ignored there (empty set: bare `# drift-audit: ignore`)
    handlers: Mapping[str, tuple[Handled, ...]] = field(default_factory=dict)
    # path -> the `try` bodies and `except` blocks of that file, with what they catch
    gates: Mapping[str, tuple[VersionGate, ...]] = field(default_factory=dict)
    # path -> the lines that run only for some releases of a provider (decided version tests)


# --------------------------------------------------------------------------- provider side


class ParamKind(str, Enum):
    POSITIONAL_ONLY = "positional-only"
    POSITIONAL_OR_KEYWORD = "positional or keyword"
    VAR_POSITIONAL = "variadic positional"
    KEYWORD_ONLY = "keyword-only"
    VAR_KEYWORD = "variadic keyword"


@dataclass(frozen=True, slots=True)
class Param:
    """One parameter of a provider callable's signature."""

    name: str
    kind: ParamKind
    default: str | None = None  # source text of the default; None means required
    annotation: str | None = None

    @property
    def required(self) -> bool:
        variadic = self.kind in (ParamKind.VAR_POSITIONAL, ParamKind.VAR_KEYWORD)
        return self.default is None and not variadic

    def __str__(self) -> str:
        prefix = {ParamKind.VAR_POSITIONAL: "*", ParamKind.VAR_KEYWORD: "**"}.get(self.kind, "")
        text = prefix + self.name
        if self.annotation:
            text += f": {_shown(self.annotation)}"
        if self.default is not None:
            default = _shown(self.default)
            text += f" = {default}" if self.annotation else f"={default}"
        return text


SHOWN_CHARS = 200  # of one default or annotation in a signature's text


def _shown(text: str) -> str:
    """A default or annotation as a signature shows it: at most SHOWN_CHARS, cut visibly."""
    return text if len(text) <= SHOWN_CHARS else f"{text[:SHOWN_CHARS]}…"


@dataclass(frozen=True, slots=True)
class Signature:
    """A callable's parameters as a caller sees them (`self`/`cls` already dropped)."""

    params: tuple[Param, ...]
    returns: str | None = None

    def param(self, name: str) -> Param | None:
        for p in self.params:
            if p.name == name:
                return p
        return None

    def __str__(self) -> str:
        parts: list[str] = []
        seen_kw_marker = False
        for i, p in enumerate(self.params):
            if p.kind is ParamKind.VAR_POSITIONAL:
                seen_kw_marker = True
            if p.kind is ParamKind.KEYWORD_ONLY and not seen_kw_marker:
                parts.append("*")
                seen_kw_marker = True
            parts.append(str(p))
            nxt = self.params[i + 1] if i + 1 < len(self.params) else None
            if p.kind is ParamKind.POSITIONAL_ONLY and (
                nxt is None or nxt.kind is not ParamKind.POSITIONAL_ONLY
            ):
                parts.append("/")
        text = "(" + ", ".join(parts) + ")"
        return text + (f" -> {self.returns}" if self.returns else "")


class SymbolKind(str, Enum):
    MODULE = "module"
    CLASS = "class"
    FUNCTION = "function"
    ATTRIBUTE = "attribute"


@dataclass(frozen=True, slots=True)
class Symbol:
    """A provider object found by dotted path, in our own terms (no griffe types)."""

    path: str  # canonical dotted path, where it is defined
    kind: SymbolKind
    signature: Signature | None = None  # call signature; None: not known statically
    why_unknown: str | None = None  # when signature is None for a callable: why
    deprecated: str | None = None  # the provider marks it deprecated: how (for the message)
    deprecated_params: tuple[str, ...] = ()  # keywords it warns about when passed
    renamed: tuple[tuple[str, str], ...] = ()  # (old, new) keywords a wrapper still accepts
    positional_limit: int | None = None  # positional arguments past this still bind, warned
    reconstructs: bool = False  # an __init__ whose class makes new instances of type(self)
    forwards: str | None = None  # keywords its **kwargs collects go on to this provider path
    forward_unless: str | None = None  # ...unless the call passes this parameter
    forward_taken: tuple[str, ...] = ()  # keys it takes out of **kwargs by name (not passed on)
    forward_added: tuple[str, ...] = ()  # keys it puts in itself (passed on with the caller's)
    compiled: bool = False  # known only by a stub: the C code may take more than it says
    unknown_closed: bool = False  # why_unknown lies outside the files read (Resolution.closed)


class Lookup(str, Enum):
    FOUND = "found"
    MISSING_MODULE = "missing-module"  # the module part of the path does not exist
    MISSING_NAME = "missing-name"  # the module exists; the name, attribute or method does not
    UNKNOWN = "unknown"  # cannot be known statically (dynamic __getattr__, external base...)
    UNREADABLE = "unreadable"  # a module on the way could not be parsed (`missing` names it)
    UNLISTED = "unlisted"  # not in a compiled module's stub: unknown, unless the baseline had it


@dataclass(frozen=True, slots=True)
class Resolution:
    """What looking up a dotted path in a provider release found."""

    status: Lookup
    path: str  # the dotted path that was looked up
    symbol: Symbol | None = None
    missing: str | None = None  # the first part of the path that does not exist
    detail: str | None = None
    closed: bool = False  # unknown, by what lies outside the files read (provider/classes.py)

    @property
    def found(self) -> bool:
        return self.status is Lookup.FOUND


# --------------------------------------------------------------------------- findings


@dataclass(frozen=True, slots=True)
class FixHint:
    """What would repair a finding, as the analysis knows it (auditor/fixes.py makes the edit).

    action: "rename-keyword" (old -> new), "drop-keyword" (old; made only when the call's
    value is a literal equal to `default`, the baseline's default, and then safe), "keywordize" (the
    positional arguments from index `start` on become keywords `names`), "move-import" (a
    `from old import name` becomes `from new import name`; `names` holds the name).
    """

    action: str
    safe: bool
    old: str = ""
    new: str = ""
    names: tuple[str, ...] = ()
    start: int = 0
    default: str | None = None
    why: str = ""


@dataclass(frozen=True, slots=True)
class Edit:
    """Replace the text from (line, column) to (end_line, end_column), 1-based, end
    exclusive, columns in code points, with `text`."""

    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    text: str


@dataclass(frozen=True, slots=True)
class Fix:
    """A repair for one finding: one edit of its call or import, safe or not."""

    safe: bool
    description: str
    edits: tuple[Edit, ...]
    digest: str = ""  # text_digest() of the file text the edits were made against


def interpreter() -> str:
    """The Python that parses: what `ast.parse` and griffe accept depends on it (3.12's
    `type X = ...` is a syntax error to 3.11), so every kept parse product is keyed by it."""
    return f"{sys.implementation.cache_tag}:{sys.version}"


def text_digest(text: str) -> str:
    """The sha256 of a consumer file's text, as a Fix records it."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class Status(str, Enum):
    NEW = "new"
    PREEXISTING = "preexisting"
    BASELINED = "baselined"
    SUPPRESSED = "suppressed"

    @property
    def label(self) -> str:
        """The word reports show a person: a finding the baseline file accepts is
        `recorded`, since "baseline" names the provider release (`--baseline`). JSON and
        SARIF keep the value (`baselined`): the contract."""
        return "recorded" if self is Status.BASELINED else self.value


@dataclass(frozen=True, slots=True)
class Finding:
    """One call site that breaks (or changes) at a target release: the report's unit."""

    kind: Kind
    location: Location
    scope: str
    symbol: str
    parameter: str | None
    broken_in: tuple[str, ...]
    baseline_signature: str | None
    target_signature: str | None
    reached_from: tuple[tuple[str, ...], ...] = ()
    suggestion: str | None = None
    status: Status = Status.NEW
    source: tuple[tuple[int, str], ...] = ()  # (line, text) around the site, for reports
    also_at: tuple[int, ...] = ()  # lines of the same file that use what this reports gone
    module_path: str = ""  # the file relative to the import root; "": same as location.path
    first_audited: str | None = None  # the oldest release audited of this finding's provider
    releases_audited: int = 0  # how many releases of its provider were audited (0: unknown)
    level: Severity | None = None  # [tool.drift-audit.severity] override of the kind's
    hint: FixHint | None = None  # what would repair it, if the analysis knows
    fix: Fix | None = None  # the edit, when fixes were asked for (fixes.py)
    production: bool = False  # in a file named like a test file that the consumer's other
    # code imports (graph.CallGraph.imported_outside_tests): it runs in production, no test

    @property
    def severity(self) -> Severity:
        return self.level or self.kind.severity

    @property
    def first_broken(self) -> str | None:
        return self.broken_in[0] if self.broken_in else None

    @property
    def in_test_file(self) -> bool:
        """The site is in one of the consumer's test files: named as one (is_test_path), and
        not imported by the consumer's other code (`production`)."""
        return is_test_path(self.location.path) and not self.production

    @property
    def reason(self) -> str:
        """What is wrong, without the release: the same against every target."""
        values = {
            "symbol": self.symbol,
            "parameter": self.parameter,
            "subject": f"{self.symbol}() keyword {self.parameter!r}"
            if self.parameter
            else self.symbol,
        }
        return self.kind.template.format(**values)

    @property
    def first_broken_known(self) -> str | None:
        """`first_broken` as reports state it: None when the only release audited broke
        (nothing audited shows where the break starts)."""
        return None if self.releases_audited == 1 else self.first_broken

    @property
    def message(self) -> str:
        """The reason and when it broke, claiming no more than the run shows: `broken at
        0.17.0 (the only release audited)`; `broken at 0.16.0, the oldest release audited`
        (it may have broken earlier); `first broken in 0.12.0` when an older audited release
        still worked."""
        first = self.first_broken
        if first is None or self.kind.slug in ("unresolved", "unparsable", "unused-suppression"):
            return self.reason
        if self.kind.slug == "unparsable-provider":  # nothing broke: nothing could be read
            return f"{self.reason} (in {', '.join(self.broken_in)})"
        verb = "changed" if self.kind.slug in ("changed-default", "changed-return") else "broken"
        if self.first_audited is None:
            return f"{self.reason}; {verb} in {first}"
        if first == self.first_audited:
            if self.releases_audited == 1:
                return f"{self.reason}; {verb} at {first} (the only release audited)"
            return f"{self.reason}; {verb} at {first}, the oldest release audited"
        return f"{self.reason}; first {verb} in {first}"

    @property
    def fingerprint(self) -> str:
        """Stable across line moves: kind, file (relative to the import root), enclosing
        scope, symbol and parameter."""
        path = self.module_path or self.location.path
        parts = (self.kind.slug, path, self.scope, self.symbol, self.parameter or "")
        text = "\x1f".join(parts).encode("utf-8", "surrogatepass")  # a lone surrogate too
        return hashlib.sha256(text).hexdigest()[:32]

    @property
    def sort_key(self) -> tuple[str, int, int, str, str, str]:
        loc = self.location
        return (loc.path, loc.line, loc.column, self.kind.slug, self.symbol, self.parameter or "")


@dataclass(frozen=True, slots=True)
class Recorded:
    """The findings a baseline file accepts, one per fingerprint, each with how many times
    the file records it: the file counts occurrences (a further break of the same
    fingerprint is new), and a count is kept as a number, never as that many copies (the
    file is the pull request's own: `count: 1000000` is one entry, not a million)."""

    entries: tuple[tuple[Finding, int], ...] = ()  # (finding, count >= 1), in file order

    @classmethod
    def of(cls, counted: Iterable[tuple[Finding, int]]) -> Recorded:
        """One entry per fingerprint, the first finding of each, the counts summed."""
        first: dict[str, Finding] = {}
        counts: dict[str, int] = {}
        for finding, count in counted:
            key = finding.fingerprint
            first.setdefault(key, finding)
            counts[key] = counts.get(key, 0) + count
        return cls(tuple((first[k], counts[k]) for k in first))

    @property
    def findings(self) -> tuple[Finding, ...]:
        """One finding per fingerprint recorded."""
        return tuple(finding for finding, _ in self.entries)

    def counts(self) -> dict[str, int]:
        """Fingerprint -> how many findings of it the file accepts."""
        return {finding.fingerprint: count for finding, count in self.entries}


@dataclass(frozen=True, slots=True)
class ConsumerInfo:
    """The consumer audited: its name, version and where it came from."""

    name: str
    version: str | None
    origin: str  # "folder /abs/path", "installed", "index", ...
    root: str | None = None  # a folder consumer's import root on disk (--fix writes there)
    confine: str | None = None  # the folder its reads and fixes stay in (the package folder
    # named, whose import root is its parent); None: `root`


@dataclass(frozen=True, slots=True)
class ProviderInfo:
    """A provider audited: its baseline and targets."""

    name: str
    baseline: str | None
    targets: tuple[str, ...]
    baseline_why: str | None = None  # how the baseline was inferred; None: given, or none
    call_sites: int | None = None  # the consumer's sites into this provider (None: not counted)


@dataclass(frozen=True, slots=True)
class Stats:
    """What an audit read and did, for the report's footer and the benchmarks."""

    files_scanned: int = 0
    call_sites: int = 0
    provider_modules_loaded: int = 0  # parsed in this run
    bytes_fetched: int = 0
    seconds: float = 0.0
    requests: int = 0  # HTTP requests made to the index and its file hosts
    provider_modules_cached: int = 0  # answered from the cache's lookup memo, not parsed
    provider_modules_earlier: int = 0  # of those, by lookups an earlier run memoized (the
    # rest: by lookups made earlier in this run, another release's or the same again)
    undecided: int = 0  # sites the analysis could not decide (Report.undecided lists them)
    sites: int = 0  # every site checked against a provider: the undecided share's denominator
    unchanged: int = 0  # undecided at the newest target, decided by difference (difference.py)
    replayed: bool = False  # the findings of an earlier run on the same inputs (replay.py):
    # files and call sites as that run counted them; nothing parsed, fetched or asked


@dataclass(frozen=True, slots=True)
class Provenance:
    """What a report rests on besides the command line and the settings: the cache files
    read to resolve its releases (path under the cache root -> size, mtime in ns, inode;
    None for one found absent), until when the project pages read are fresh (inf: no page,
    or offline), and why the same names could give other sources ("" when they cannot:
    every release an archive known by its sha256, but a folder consumer, whose files the
    replay checks itself)."""

    consulted: tuple[tuple[str, tuple[int, int, int] | None], ...]
    fresh_until: float
    unreplayable: str
    folder: str | None = None  # a folder consumer read in place: its files may change
    entries: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = ()
    # entries of a project's trees index (path -> (version, tree folder)) the answers used


@dataclass(frozen=True, slots=True)
class Undecided:
    """A site the analysis could not decide against the newest target (a name served at run
    time, a compiled module's stub that does not list it, a callable with no known
    signature): never a finding, but counted in every summary and listed with
    --show-unknown, so that what was not checked is never mistaken for what passed."""

    location: Location
    scope: str
    target: str  # the provider path as the consumer names it
    provider: str
    reason: str
    cause: str = ""  # the reason filed under a slug of auditor/causes.py (CAUSES)


@dataclass(frozen=True, slots=True)
class LeftOut:
    """Kinds one setting left out of a report, and where it was set: a gate that settings
    narrowed (a pull request's own `ignore = ["ALL"]`) says so in every format."""

    setting: str  # "select" (the kinds it does not name) or "ignore" (the kinds it names)
    source: str  # "config": the project's [tool.drift-audit] table (found, not named);
    # "command-line": --select/--ignore, or a file named by --config; "api": audit()'s caller
    file: str | None  # the config file (relative to the project root when inside it)
    kinds: tuple[Kind, ...]  # catalogue order

    @property
    def by(self) -> str:
        """`ignore in [tool.drift-audit] of pyproject.toml`, `--select on the command line`,
        `select in ci.toml (--config on the command line)`."""
        setting = self.setting
        return said_by(setting, self.source, self.file, f"--{setting}", f"{setting}=")


def said_by(words: str, source: str, file: str | None, option: str, argument: str) -> str:
    """Where a setting that narrows the gate was set, as every report names it: `words in
    [tool.drift-audit] of FILE` (the project's config), `words in FILE (--config on the
    command line)`, `OPTION on the command line`, or `ARGUMENT of audit()`."""
    if source == "config":
        return f"{words} in [tool.drift-audit] of {file}"
    if source == "command-line" and file is not None:
        return f"{words} in {file} (--config on the command line)"
    if source == "command-line":
        return f"{option} on the command line"
    return f"{argument} of audit()"


@dataclass(frozen=True, slots=True)
class Excluded:
    """Consumer files an `exclude` setting kept out of the scan, and where it was set: a pull
    request's own `exclude` that drops the file holding its break says so in every format,
    as kinds left out by `select` do (LeftOut)."""

    source: str  # "config", "command-line" (--exclude, or a file named by --config), "api"
    file: str | None  # the config file (relative to the project root when inside it)
    patterns: tuple[str, ...]  # as written
    paths: tuple[str, ...]  # the files left out, relative to the project root, sorted; a
    # folder that could not be listed (so its files are not known) ends in "/"

    @property
    def by(self) -> str:
        """`exclude in [tool.drift-audit] of pyproject.toml`, `--exclude on the command line`."""
        return said_by("exclude", self.source, self.file, "--exclude", "exclude=")


@dataclass(frozen=True, slots=True)
class Ungated:
    """A setting that keeps new findings out of the gate (the exit status), and where it was
    set: `gate-tests = false` lets the new findings in the consumer's test files pass. Every
    format names it and marks the findings it lets pass, so no report says `error` or
    `failure` of a finding the run's exit status passed."""

    setting: str  # "gate-tests" (false), the only one yet
    source: str  # "config", "command-line" (--no-gate-tests, or a --config file), "api"
    file: str | None  # the config file (relative to the project root when inside it)

    @property
    def by(self) -> str:
        """`gate-tests = false in [tool.drift-audit] of pyproject.toml`, `--no-gate-tests on
        the command line`."""
        words = f"{self.setting} = false"
        return said_by(words, self.source, self.file, f"--no-{self.setting}", "gate_tests=False")

    def lets_pass(self, finding: Finding) -> bool:
        """The finding is new, so it would count, and this setting keeps it out."""
        return finding.status is Status.NEW and finding.in_test_file


@dataclass(frozen=True, slots=True)
class Report:
    """One audit's result: what every reporter renders."""

    consumer: ConsumerInfo
    provider: ProviderInfo
    findings: tuple[Finding, ...]
    stats: Stats = field(default_factory=Stats)
    # Filled by audit(); empty in a Report built by hand or read from an older document.
    providers: tuple[ProviderInfo, ...] = ()  # every provider audited; `provider` is the first
    matrix: tuple[tuple[bool | None, ...], ...] = ()
    # one row per finding (same order), one column per (provider, target) in `providers`
    # order: broken there, works there, or None (the finding is about another provider)
    fixed: tuple[Finding, ...] = ()  # findings of the baseline file that are gone now
    unused_suppressions: tuple[tuple[str, int, tuple[str, ...]], ...] = ()
    # (path, line, kinds) of `# drift-audit: ignore[...]` comments that suppress nothing;
    # kinds: the slugs that matched nothing, () for a bare `ignore`
    undecided: tuple[Undecided, ...] = ()  # sites not decided, sorted (see Undecided)
    list_undecided: bool = False  # a reader's view lists them (--show-unknown); else counts
    hidden: tuple[Finding, ...] = ()  # counted in summaries, not listed (a view made for a
    # reader: baselined and suppressed findings without --show-baselined)
    left_out: tuple[LeftOut, ...] = ()  # kinds the settings kept out of `findings`
    excluded: tuple[Excluded, ...] = ()  # files the settings kept out of the scan
    ungated: tuple[Ungated, ...] = ()  # settings that keep some new findings out of the gate

    def gated(self, finding: Finding) -> bool:
        """Whether the finding counts for the exit status as far as the settings go (its
        status and --fail-on decide the rest): no `ungated` setting lets it pass."""
        return self.let_pass_by(finding) is None

    def let_pass_by(self, finding: Finding) -> Ungated | None:
        """The setting that lets the finding past the gate, if one does."""
        return next((setting for setting in self.ungated if setting.lets_pass(finding)), None)

    def narrowed(self, keep: Sequence[int], **changes: object) -> Report:
        """The report with only the findings at the indexes `keep`, their matrix rows with
        them (a matrix that does not fit the findings is dropped), and any other fields
        replaced as `changes` says."""
        rows = self.matrix if len(self.matrix) == len(self.findings) else ()
        return replace(
            self,
            findings=tuple(self.findings[i] for i in keep),
            matrix=tuple(rows[i] for i in keep) if rows else (),
            **changes,  # type: ignore[arg-type]
        )

    def counts(self) -> dict[str, int]:
        """Findings per status."""
        out: dict[str, int] = {}
        for f in self.findings:
            out[f.status.value] = out.get(f.status.value, 0) + 1
        return out


# --------------------------------------------------------------------------- ecosystem runs


class Outcome(str, Enum):
    """How one consumer fares against a provider release, in an ecosystem run."""

    REGRESSED = "regressed"  # new errors against the target
    STILL_BROKEN = "still-broken"  # errors, all of them already there at the baseline
    FIXED = "fixed"  # a break of the baseline the target repairs, and nothing new
    CLEAN = "clean"
    ERROR = "error"  # could not be audited (the one-line reason)


@dataclass(frozen=True, slots=True)
class ConsumerResult:
    """One consumer of an ecosystem run: its audit's JSON findings, as the CLI reports them."""

    spec: str  # as listed (`name==version`, a name, a folder, `name @ file:///...`)
    name: str | None
    version: str | None
    baseline: str | None  # the provider release it was compared with (given or inferred)
    outcome: Outcome
    error: str | None = None
    findings: tuple[Mapping[str, object], ...] = ()  # json_report.finding_to_dict shapes
    fixed: tuple[str, ...] = ()  # fingerprints broken at the baseline, fine at the target
    seconds: float = 0.0
    undecided: int = 0  # sites its audit could not decide (a "clean" says how many)
    sites: int = 0  # the sites its audit checked (stats.sites): the undecided share's base
    undecided_sites: tuple[Mapping[str, object], ...] = ()  # json_report's undecided entries
    baseline_why: str | None = None  # how its audit inferred the baseline (its JSON's
    # provider.baseline_inferred, the note it says on stderr); None: given, none, or unknown


@dataclass(frozen=True, slots=True)
class BlastRadius:
    """A provider symbol and what its change breaks: how many consumers, and how many of
    their call sites (a site with several findings counts once)."""

    symbol: str
    consumers: int
    sites: int


@dataclass(frozen=True, slots=True)
class EcosystemReport:
    """One provider release over its dependents: what each consumer's audit gave."""

    provider: str
    target: str
    baseline: str | None  # given for all; None: inferred per consumer
    consumers: tuple[ConsumerResult, ...]
    symbols: tuple[BlastRadius, ...]
    stats: Mapping[str, object] = field(default_factory=dict)


# --------------------------------------------------------------------------- the matrix


@dataclass(frozen=True, slots=True)
class Timeline:
    """The release-by-finding matrix of a report, for reporters."""

    columns: tuple[tuple[str, str], ...]  # (provider, version), each provider oldest first
    rows: tuple[tuple[bool | None, ...], ...]  # one per finding, in report order


def timeline(report: Report) -> Timeline:
    """The report's matrix; derived from `broken_in` when the report does not carry one.

    A report without a matrix (built by hand, or read from an older document) has one
    provider, so every finding is about it.
    """
    providers: tuple[ProviderInfo, ...] = report.providers or (report.provider,)
    columns = tuple((p.name, t) for p in providers for t in p.targets)
    if len(report.matrix) == len(report.findings) and report.findings:
        return Timeline(columns, report.matrix)
    owner = report.provider.name
    rows = tuple(matrix_row(f, owner, columns) for f in report.findings)
    return Timeline(columns, rows)


def matrix_row(
    finding: Finding, owner: str, columns: Sequence[tuple[str, str]]
) -> tuple[bool | None, ...]:
    """A finding's row of the matrix: broken (True) or not (False) in each (provider,
    version) column of its own provider; None in the columns of another."""
    if not finding.broken_in:  # about a consumer file (unparsable), not a release
        return tuple(None for _ in columns)
    return tuple(
        version in finding.broken_in if provider == owner else None for provider, version in columns
    )
