# Maintainers: PEP 508 requirement text -> `packaging` Requirement, and the questions asked of it.
#
# Owns: parsing a spec (`vllm==0.17.0`, `vllm>=0.12,<0.18`, `acme @ file:///path`), the
#       BadSpecError for text that is not PEP 508, and small helpers on specifiers.
# Takes: a string. Gives: a Requirement, an exact pin, a path from a `file://` reference, and
#       for a spec read from a settings file, its `file:` reference resolved against that
#       file's folder (`reference_within`: links and `..` followed, so the caller can refuse
#       one that leaves it).
# Extras and markers of the spec are ignored: we read sources, we do not install.
"""Requirement specs: parsing, exact pins and direct references."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from packaging.requirements import InvalidRequirement, Requirement

from auditor.errors import BadSpecError

if TYPE_CHECKING:
    from packaging.specifiers import SpecifierSet

SPEC_HINT = (
    "write a PEP 508 requirement, e.g. 'vllm==0.17.0', 'vllm>=0.12,<0.18', 'vllm==0.16.*' "
    "or 'acme @ file:///path/to/acme'"
)
_SINGLE_EQUALS = re.compile(r"([A-Za-z0-9][A-Za-z0-9._-]*)\s*=\s*([0-9][^=<>!~;]*)")


def parse_spec(spec: str) -> Requirement:
    """Parse a provider or consumer requirement; raise BadSpecError when it is not PEP 508."""
    text = spec.strip()
    try:
        return Requirement(text)
    except InvalidRequirement as exc:
        raise BadSpecError(f"{spec!r} is not a PEP 508 requirement", hint=_spec_hint(text)) from exc


def _spec_hint(text: str) -> str:
    match = _SINGLE_EQUALS.fullmatch(text)
    if match:
        return f"did you mean '{match[1]}=={match[2].strip()}'? {SPEC_HINT}"
    return SPEC_HINT


def exact_pin(specifier: SpecifierSet) -> str | None:
    """The version of a single `==X` (or `===X`) specifier without a wildcard, else None."""
    specs = list(specifier)
    if len(specs) != 1:
        return None
    only = specs[0]
    if only.operator in ("==", "===") and not only.version.endswith(".*"):
        return only.version
    return None


def file_url_path(url: str) -> Path:
    """The local path of a `file://` direct reference; BadSpecError for any other scheme."""
    if not is_local_url(url):
        raise BadSpecError(
            f"direct reference {url!r} is not a file:// URL",
            hint="point at a local folder, wheel or sdist: 'name @ file:///abs/path'",
        )
    return local_path(url)


def local_path(url: str) -> Path:
    """The path of a file:// URL (percent-escapes decoded; the host part ignored)."""
    from urllib.request import url2pathname  # here: urllib.request costs ~15 ms to import

    return Path(url2pathname(urlsplit(url).path))


def is_local_url(url: str) -> bool:
    """Whether a URL names a file on this machine (no network involved)."""
    return urlsplit(url).scheme == "file"


def reference_within(spec: str, folder: Path) -> tuple[str, Path | None]:
    """A spec from a settings file in `folder`, with a `file:` direct reference made
    absolute: a relative one (`file:vendor/acme`) is relative to `folder`, not to the current
    folder, and the path is resolved (links and `..` followed). Gives the spec to audit
    (its URL the resolved path's) and that path, for the caller to check it stays inside
    `folder`; the spec as it is and None when it is no `file:` reference (a requirement
    from the index, or text that is not PEP 508, which parse_spec reports later)."""
    try:
        req = Requirement(spec.strip())
    except InvalidRequirement:
        return spec, None
    if not req.url or not is_local_url(req.url):
        return spec, None
    resolved = (folder / local_path(req.url)).resolve()  # an absolute path stays as it is
    req.url = resolved.as_uri()
    return str(req), resolved
