# Maintainers: which provider releases an audit checks, and against which baseline.
#
# Owns: the releases each `--against` spec matches, per provider in the order named, oldest
#       first (a provider the index lacks, named like one the consumer requires, gets a
#       "did you mean"); the baseline of each provider: a `--baseline` naming it (a bare
#       version names the one provider; two for one provider, or one for a provider not
#       audited, is an error), else the release the consumer's metadata implies
#       (sources.infer_baseline_why; `extra["inferred"]` says why), else none; how
#       releases are ordered and named in the report; and the provider's top-level names a
#       release does not ship (`absent_names`: a removed module there, unless something else
#       may provide it).
# Takes: an open Index, the consumer Release and the specs. Gives: Releases.
"""Release selection: the targets of each spec, and each provider's baseline."""

from __future__ import annotations

import contextlib
import logging
import re
from dataclasses import replace
from typing import TYPE_CHECKING

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from auditor.errors import AuditError, BadSpecError, PackageNotFoundError, VersionNotFoundError
from auditor.provider import Absent
from auditor.sources import infer_baseline_why
from auditor.sources.specs import parse_spec

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from auditor.sources import Index, Release

logger = logging.getLogger("drift_audit")


def select_targets(
    index: Index, against: Sequence[str], pre: bool, consumer: Release | None = None
) -> dict[str, list[Release]]:
    """Every release the specs match, per provider (in the order named), oldest first."""
    found: dict[str, dict[str, Release]] = {}
    for spec in against:
        try:
            releases = index.releases(spec, pre=pre)
        except (PackageNotFoundError, VersionNotFoundError) as exc:
            raise _with_requirement_hint(exc, spec, consumer) from exc
        for release in releases:
            found.setdefault(release.name, {}).setdefault(str(release.version), release)
    return {name: sorted(rs.values(), key=_release_order) for name, rs in found.items()}


def _with_requirement_hint(exc: AuditError, spec: str, consumer: Release | None) -> AuditError:
    """A provider the index does not have as asked, named like one the consumer requires
    (`vlm` for `vllm`): the error says which it may have meant."""
    import difflib

    try:
        name = canonicalize_name(parse_spec(spec).name)
    except BadSpecError:
        return exc
    required = sorted(_required_names(consumer))
    close = [n for n in difflib.get_close_matches(name, required, n=1, cutoff=0.75) if n != name]
    if not close or consumer is None:
        return exc
    hint = f"did you mean {close[0]}? {consumer.name} requires it; {exc.hint or ''}".rstrip("; ")
    return type(exc)(exc.message, hint=hint)


def _required_names(consumer: Release | None) -> set[str]:
    """The distributions the consumer's metadata requires (a line that does not parse: none)."""
    names: set[str] = set()
    for text in consumer.requires if consumer is not None else ():
        with contextlib.suppress(InvalidRequirement):
            names.add(canonicalize_name(Requirement(text).name))
    return names


def _release_order(release: Release) -> tuple[int, Version | str]:
    try:
        return (0, Version(str(release.version)))
    except InvalidVersion:
        return (1, str(release.version))


def baseline_specs(baseline: str | Sequence[str] | None) -> tuple[str, ...]:
    if baseline is None:
        return ()
    return (baseline,) if isinstance(baseline, str) else tuple(baseline)


def select_baselines(
    index: Index, consumer: Release, providers: list[str], specs: Sequence[str], pre: bool
) -> dict[str, Release | None]:
    """Per provider: the release the consumer is known to work with (given, else inferred)."""
    given: dict[str, Release] = {}
    for raw in specs:
        spec = _named_spec(raw, providers)
        name = _spec_name(spec)
        if name is not None and name not in providers:
            raise BadSpecError(
                f"--baseline {raw} names {name}, which is not audited",
                hint=f"--against names {', '.join(providers)}",
            )
        release = index.releases(spec, pre=pre)[-1]
        if release.name in given:
            raise BadSpecError(
                f"two baselines for {release.name}", hint="give one --baseline per provider"
            )
        given[release.name] = release
    return {p: given[p] if p in given else _inferred(index, consumer, p) for p in providers}


def why_inferred(release: Release | None) -> str | None:
    return release.extra.get("inferred") if release is not None else None


def _named_spec(spec: str, providers: list[str]) -> str:
    """A bare version (`0.11.0`) names the one provider; with several it is ambiguous."""
    if not re.match(r"^\d", spec.strip()):
        return spec
    if len(providers) > 1:
        raise BadSpecError(
            f"--baseline {spec} is a bare version, but several providers are audited",
            hint=f"name the provider, e.g. {providers[0]}=={spec.strip()}",
        )
    return f"{providers[0]}=={spec.strip()}"


def _spec_name(spec: str) -> str | None:
    try:
        return canonicalize_name(Requirement(spec).name)
    except InvalidRequirement:
        return None  # index.releases() says what is wrong with it


def _inferred(index: Index, consumer: Release, provider: str) -> Release | None:
    """The baseline the consumer implies (`extra["inferred"]` says why), or None."""
    found = infer_baseline_why(consumer, provider, index)
    if found is None:
        logger.info("no baseline for %s: every finding is absolute", provider)
        return None
    release = index.release(provider, found.version)
    return replace(release, extra={**release.extra, "inferred": found.why})


def version_of(release: Release | None) -> str | None:
    return str(release.version) if release is not None and release.version is not None else None


def absent_names(
    release: Release,
    releases: Sequence[Release],
    elsewhere: Mapping[str, str],
    consumer: Release | None = None,
) -> dict[str, Absent]:
    """The top-level names the provider's `releases` (its baseline and targets) ship that
    `release` does not, each with what an import of it is there: a removed module
    (ModuleNotFoundError), unless another provider of the run ships it (`elsewhere`: name ->
    that provider), or a requirement of the release (a package split out into its own
    distribution) or of the consumer (a module the provider once vendored) is named like it:
    then no one can tell, and the lookup is unknown."""
    names = {n for r in releases for n in r.import_names}
    gone = sorted(names - set(release.import_names))
    if not gone:  # the common case: nothing to look up in the requirements
        return {}
    required = dict.fromkeys(_required_names(release), "its")
    wanted = _required_names(consumer) - {release.name}  # the provider itself ships it no more
    required |= {r: "the consumer's" for r in wanted if r not in required}
    out: dict[str, Absent] = {}
    for name in gone:
        missing, dist = f"{name} is not in {release.name}", canonicalize_name(name)
        if name in elsewhere:
            out[name] = Absent(False, f"{missing}; {elsewhere[name]} ships it")
        elif dist in required:
            why = f"{missing}; {required[dist]} requirement {dist} may provide it"
            out[name] = Absent(False, why)
        else:
            out[name] = Absent(True, _not_shipped(release.name, name, releases))
    return out


def _not_shipped(provider: str, name: str, releases: Sequence[Release]) -> str:
    """Why a top-level name is gone, in the same words for every release that lacks it (a
    range's finding stays one): what those releases ship instead, when they agree."""
    why = f"the releases of {provider} it breaks in ship no top-level module {name}"
    instead = {r.import_names for r in releases if name not in r.import_names}
    if len(instead) != 1:
        return why
    shipped = sorted(instead.pop())
    more = f" and {len(shipped) - MAX_NAMED} more" if len(shipped) > MAX_NAMED else ""
    return f"{why}; they ship {', '.join(shipped[:MAX_NAMED])}{more}"


MAX_NAMED = 4  # top-level names a suggestion lists
