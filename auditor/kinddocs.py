# Maintainers: the documentation of each kind, as shipped with the package.
#
# Owns: reading `auditor/kinds.md` (package data, so an installed drift-audit has it with no
# network and no repository) and cutting it into one Markdown section per slug. Gives the
# text `--explain KIND` prints, SARIF's `help.text`/`help.markdown` and the HTML report's
# per-kind notes. Links: the only URLs a report may carry come from drift-audit's own
# `[project.urls]` (`project_url`), read from the installed metadata at run time; with none
# configured, reports carry the text and no link.
"""The shipped documentation of every kind of finding, and the project's own URLs."""

from __future__ import annotations

import functools
import re
from importlib import metadata, resources

from auditor.kinds import Kind

DOCS = "kinds.md"
TOOL = "drift-audit"
_SECTION = re.compile(r"^## (\S+)\n", re.MULTILINE)


@functools.cache
def sections() -> dict[str, str]:
    """slug -> its Markdown section (heading included), in the file's order."""
    text = resources.files("auditor").joinpath(DOCS).read_text(encoding="utf-8")
    parts = _SECTION.split(text)
    pairs = zip(parts[1::2], parts[2::2], strict=True)
    return {slug: f"## {slug}\n{body.strip()}\n" for slug, body in pairs}


def markdown(kind: Kind) -> str:
    """The kind's documentation section as Markdown."""
    return sections().get(kind.slug, f"## {kind.slug}\n\n{kind.summary}\n")


def plain(kind: Kind) -> str:
    """The section as plain text for a terminal: headings without `#`, code fences dropped,
    inline code and emphasis markers removed."""
    out: list[str] = []
    for line in markdown(kind).splitlines():
        if line.startswith("```"):
            continue
        if line.startswith("#"):
            heading = line.lstrip("#").strip()
            line = f"{heading}\n{'=' * len(heading)}" if line.startswith("## ") else heading + ":"
        else:
            line = re.sub(r"`([^`]*)`", r"\1", line)
            line = re.sub(r"\*\*([^*]+)\*\*", r"\1", line)
        out.append(line)
    return "\n".join(out).strip() + "\n"


def find(slug: str) -> Kind | None:
    """The kind named `slug` (case and `_` forgiven), or None."""
    wanted = slug.strip().lower().replace("_", "-")
    return next((k for k in Kind if k.slug == wanted), None)


@functools.cache
def project_urls() -> dict[str, str]:
    """drift-audit's `[project.urls]` as installed (label, lower case -> URL); {} when the
    distribution is not installed or declares none."""
    try:
        entries = metadata.metadata(TOOL).get_all("Project-URL") or []
    except metadata.PackageNotFoundError:
        return {}
    urls: dict[str, str] = {}
    for entry in entries:
        label, _, url = str(entry).partition(",")
        if url.strip().startswith(("https://", "http://")):
            urls[label.strip().lower()] = url.strip()
    return urls


def project_url(*labels: str) -> str | None:
    """The first of `labels` (e.g. "documentation", "homepage") that `[project.urls]` has."""
    urls = project_urls()
    return next((urls[label] for label in labels if label in urls), None)


def docs_url(kind: Kind) -> str | None:
    """A link to the kind's section when `[project.urls]` has a Documentation entry (taken as
    the page that holds kinds.md's sections, e.g. its rendered copy on the fork's host)."""
    base = project_url("kinds", "documentation", "docs")
    return f"{base}#{kind.slug}" if base else None
