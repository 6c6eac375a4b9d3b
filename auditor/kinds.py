"""The catalogue of finding kinds: one member per kind in DESIGN.md, none defined elsewhere.

A kind is data: the slug users see (JSON `kind`, SARIF `ruleId`, ignore comments), its
severity, a message template over a finding's fields (the release it broke in is added by
`Finding.message`), and a one-line summary for `--list-kinds` and SARIF rules.
`auditor/kinds.md` (shipped with the package; `--explain KIND`, SARIF `help`, the HTML
report) has one section per slug.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        """Higher is worse: error 3, warning 2, info 1."""
        return {"error": 3, "warning": 2, "info": 1}[self.value]


@dataclass(frozen=True, slots=True)
class KindSpec:
    """One kind of finding: its slug, default severity, message template and summary."""

    slug: str
    severity: Severity
    template: str
    summary: str
    default: bool = True  # reported without a `select` naming it (off: only when selected)


class Kind(Enum):
    REMOVED_MODULE = KindSpec(
        "removed-module",
        Severity.ERROR,
        "module {symbol} no longer exists",
        "An imported provider module is gone.",
    )
    REMOVED_SYMBOL = KindSpec(
        "removed-symbol",
        Severity.ERROR,
        "{symbol} no longer exists",
        "An imported or accessed provider name, attribute or method is gone.",
    )
    UNEXPECTED_KEYWORD = KindSpec(
        "unexpected-keyword",
        Severity.ERROR,
        "{symbol}() no longer accepts keyword {parameter!r}",
        "A keyword the consumer passes is not a parameter any more.",
    )
    MISSING_ARGUMENT = KindSpec(
        "missing-argument",
        Severity.ERROR,
        "{symbol}() now requires argument {parameter!r}, which the call does not pass",
        "The callee gained a required parameter the call does not pass.",
    )
    TOO_MANY_POSITIONAL = KindSpec(
        "too-many-positional",
        Severity.ERROR,
        "{symbol}() takes fewer positional arguments than the call passes",
        "The call passes more positional arguments than the callee now accepts.",
    )
    OVERRIDE_MISMATCH = KindSpec(
        "override-mismatch",
        Severity.ERROR,
        "override of {symbol} no longer matches the provider's signature",
        "A consumer subclass overrides or calls super() into a method whose signature changed.",
    )
    POSITIONAL_SHIFT = KindSpec(
        "positional-shift",
        Severity.WARNING,
        "{symbol}(): positional argument now lands on {parameter!r}",
        "Arguments passed by position now land on different parameters.",
    )
    DEPRECATED = KindSpec(
        "deprecated",
        Severity.WARNING,
        "{subject} is deprecated",
        "The provider marks a symbol or parameter the consumer uses as deprecated.",
    )
    PROBABLE = KindSpec(
        "probable",
        Severity.WARNING,
        "{symbol} is probably gone: the receiver's type is not known",
        "A method called on a value of unknown type that only the provider's classes had, "
        "and that they no longer have.",
    )
    CHANGED_DEFAULT = KindSpec(
        "changed-default",
        Severity.INFO,
        "{symbol}(): the call leaves out {parameter!r}, whose default is another value",
        "A parameter the call leaves to its default now has a different default.",
    )
    CHANGED_RETURN = KindSpec(
        "changed-return",
        Severity.INFO,
        "{symbol}() now returns a different type than the call relies on",
        "The declared return of a callee whose result the call subscripts, iterates, "
        "unpacks or measures changed.",
    )
    UNRESOLVED = KindSpec(
        "unresolved",
        Severity.INFO,
        "{symbol} could not be resolved statically; not checked",
        "A provider reference the analysis could not resolve statically.",
    )
    UNPARSABLE = KindSpec(
        "unparsable",
        Severity.ERROR,
        "this file could not be parsed; it was not scanned ({parameter})",
        "A consumer file that could not be parsed: none of its calls were checked.",
    )
    UNPARSABLE_PROVIDER = KindSpec(
        "unparsable-provider",
        Severity.ERROR,
        "{symbol} was not checked: the provider module {parameter} could not be parsed",
        "A provider module a site needs could not be parsed: the site was not checked.",
    )
    UNUSED_SUPPRESSION = KindSpec(
        "unused-suppression",
        Severity.WARNING,
        "unused suppression `# drift-audit: {parameter}`: it suppresses no finding",
        "An inline `# drift-audit: ignore` comment that matches no finding (off by default).",
        default=False,
    )

    @property
    def slug(self) -> str:
        return self.value.slug

    @property
    def severity(self) -> Severity:
        return self.value.severity

    @property
    def summary(self) -> str:
        return self.value.summary

    @property
    def template(self) -> str:
        return self.value.template

    @property
    def default(self) -> bool:
        """Whether the kind is reported when no `select` names it (ruff's RUF100 and mypy's
        --warn-unused-ignores are opt-in too)."""
        return self.value.default

    @classmethod
    def from_slug(cls, slug: str) -> Kind:
        for kind in cls:
            if kind.slug == slug:
                return kind
        raise ValueError(f"unknown kind {slug!r}")
