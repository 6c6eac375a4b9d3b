"""Binding: does a call site, as the consumer wrote it, still fit the provider's signature?

What it owns: the rules Python applies when it binds arguments to parameters
(`inspect.Signature.bind`), restricted to what is certain when the call uses `*args` or
`**kwargs`, and the per-site verdict against one provider release (`check_site`).

What it takes: `Site` and `CallShape` from scan/, `Signature` and `Resolution` from provider.py
(through a `Resolver`, anything with a `resolve()` method). What it gives: `Verdict`s, plain
data. No I/O, no griffe: every rule here is testable with literals.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, replace
from keyword import iskeyword
from typing import TYPE_CHECKING, Protocol

from auditor.behaviour import changed_defaults, changed_return
from auditor.kinds import Kind
from auditor.model import Action, CallShape, FixHint, Lookup, ParamKind, Resolution, SymbolKind
from auditor.probable import evidence, owners_of
from auditor.provider.paths import (
    PARAMETER,
    STAR,
    bare,
    owners_parts,
    star_parts,
    without_star,
)
from auditor.renames import drop_repair, gone_suggestion, rename_target

if TYPE_CHECKING:
    from auditor.kinds import Severity
    from auditor.model import Signature, Site, Symbol

POSITIONAL = (ParamKind.POSITIONAL_ONLY, ParamKind.POSITIONAL_OR_KEYWORD)
KEYWORD_CAPABLE = (ParamKind.POSITIONAL_OR_KEYWORD, ParamKind.KEYWORD_ONLY)


@dataclass(frozen=True, slots=True)
class Problem:
    """One reason a call or reference fails against one release."""

    kind: Kind
    parameter: str | None = None
    suggestion: str | None = None
    level: Severity | None = None  # when this problem's severity is not its kind's
    hint: FixHint | None = None  # a mechanical repair, when one is known (fixes.py)


@dataclass(frozen=True, slots=True)
class Verdict:
    """How one site fares against one release."""

    resolution: Resolution
    problems: tuple[Problem, ...] = ()
    callee: Signature | None = None  # the callee's signature in that release
    owners: Resolution | None = None  # an undecided method call: which exported classes
    # have a method of that name in that release (`probable`, probable.py)

    @property
    def signature(self) -> str | None:
        return str(self.callee) if self.callee is not None else None

    @property
    def symbol(self) -> str | None:
        sym = self.resolution.symbol
        return sym.path if sym is not None else None

    @property
    def checked(self) -> bool:
        """Whether the release could be checked at all (not UNKNOWN)."""
        return self.resolution.status is not Lookup.UNKNOWN


class Resolver(Protocol):
    def resolve(
        self, dotted: str, *, module_only: bool = False, from_import: bool = False
    ) -> Resolution: ...


def bind(shape: CallShape, signature: Signature) -> tuple[Problem, ...]:
    """The problems CPython would raise binding `shape` to `signature`; only certain ones."""
    positional = [p for p in signature.params if p.kind in POSITIONAL]
    by_position = {p.name for p in positional[: shape.positional]}  # filled by position
    catch_all = any(p.kind is ParamKind.VAR_KEYWORD for p in signature.params)
    problems = list(_positional_problems(shape, signature))
    problems += _keyword_problems(shape, signature, by_position, catch_all)
    problems += _missing_problems(shape, signature, by_position, catch_all)
    return tuple(problems)


def _positional_problems(shape: CallShape, signature: Signature) -> list[Problem]:
    params = signature.params
    if any(p.kind is ParamKind.VAR_POSITIONAL for p in params):
        return []
    capacity = sum(1 for p in params if p.kind in POSITIONAL)
    if shape.positional > capacity:  # exact or a lower bound: too many either way
        return [Problem(Kind.TOO_MANY_POSITIONAL)]
    return []


def _keyword_problems(
    shape: CallShape, signature: Signature, by_position: set[str], catch_all: bool
) -> list[Problem]:
    problems = []
    params = {p.name: p for p in signature.params}  # one lookup per keyword, not a scan
    for keyword in shape.keywords:
        param = params.get(keyword)
        named = param is not None and param.kind in KEYWORD_CAPABLE
        if named and keyword in by_position:
            problems.append(Problem(Kind.UNEXPECTED_KEYWORD, keyword))  # "multiple values"
        elif not named and not catch_all:
            problems.append(Problem(Kind.UNEXPECTED_KEYWORD, keyword))
    return problems


def _missing_problems(
    shape: CallShape, signature: Signature, by_position: set[str], catch_all: bool
) -> list[Problem]:
    problems = []
    keywords = frozenset(shape.keywords)
    for param in signature.params:
        if not param.required or param.name in by_position:
            continue
        passed_by_keyword = param.kind is ParamKind.POSITIONAL_ONLY and param.name in keywords
        if passed_by_keyword and not catch_all:
            continue  # reported as an unexpected keyword: CPython raises that one error
        if _may_be_filled(param.kind, param.name in keywords, shape):
            continue
        problems.append(Problem(Kind.MISSING_ARGUMENT, param.name))
    return problems


def _may_be_filled(kind: ParamKind, by_keyword: bool, shape: CallShape) -> bool:
    """Whether the call fills the parameter (`by_keyword`: it names it), or might through
    `*args`/`**kwargs`."""
    if kind is ParamKind.POSITIONAL_ONLY:
        return shape.star_args
    if kind is ParamKind.POSITIONAL_OR_KEYWORD:
        return by_keyword or shape.star_args or shape.star_kwargs
    return by_keyword or shape.star_kwargs


def check_site(site: Site, resolver: Resolver) -> Verdict:
    """The verdict for one site against one release."""
    if owners_parts(site.target) is not None:  # `param.m()`, its type unknown (scan/loose.py)
        unknown = Resolution(Lookup.UNKNOWN, site.target, detail="the receiver's type is unknown")
        return Verdict(unknown, owners=resolver.resolve(site.target))
    star = star_parts(site.target)
    if star is not None:  # a name a consumer's `from m import *` binds, if m exports it
        bound = resolver.resolve(f"{star[0]}.{STAR}.{star[1]}")
        if bound.status is not Lookup.FOUND:
            return Verdict(bound, _unbound(bound, star[0], star[1]))
        site = replace(site, target=without_star(site.target))
    if site.action is Action.IMPORT and not site.module_only:
        module = site.target.rpartition(".")[0]
        parent = resolver.resolve(module, module_only=True)
        if parent.status is Lookup.MISSING_MODULE:  # the name may live elsewhere now
            gone = _removed(resolver, site, Kind.REMOVED_MODULE, parent.detail)
            return Verdict(parent, (gone,))
        if parent.status is Lookup.UNREADABLE:
            return Verdict(parent, (_unreadable(parent),))
    from_import = site.action is Action.IMPORT and not site.module_only
    resolution = resolver.resolve(
        _lookup_path(site), module_only=site.module_only, from_import=from_import
    )
    if site.action is Action.OVERRIDE and resolution.status is Lookup.UNKNOWN:
        resolution = _overridden(site, resolver, resolution)
    if resolution.status is Lookup.MISSING_MODULE:  # detail: a top-level module not shipped
        return Verdict(resolution, (Problem(Kind.REMOVED_MODULE, None, resolution.detail),))
    if resolution.status is Lookup.UNREADABLE:
        return Verdict(resolution, (_unreadable(resolution),))
    if resolution.status is Lookup.MISSING_NAME:
        if _gone_before_the_call(site.target, resolution.missing):
            return Verdict(resolution)  # `gone().x`: the call of `gone` is reported itself
        if _own_method(site.target, resolution.missing):
            return Verdict(resolution)  # `m.@x`: the parameter of a method the provider lacks
        if site.action is Action.OVERRIDE:
            return Verdict(resolution)  # a method of the consumer's own, not an override
        if site.store and site.action is Action.ATTRIBUTE:
            return Verdict(resolution)  # assigning a new attribute is no error
        return Verdict(resolution, (_removed(resolver, site),))
    if resolution.status is Lookup.UNKNOWN and site.action is Action.CALL:
        return Verdict(resolution, owners=owners_of(site, resolver))
    symbol = resolution.symbol
    if symbol is None or symbol.signature is None:
        return Verdict(resolution)
    if symbol.kind not in (SymbolKind.CLASS, SymbolKind.FUNCTION):
        return Verdict(resolution)
    signature = symbol.signature
    if site.action is Action.OVERRIDE or site.call is None:
        return Verdict(resolution, (), signature)
    problems = bind(site.call, signature)
    if not problems:
        problems = forwarded(site.call, symbol, resolver)
    limit = symbol.positional_limit
    if not problems and limit is not None and site.call.positional > limit:
        why = f"the provider warns when more than {limit} arguments are passed by position"
        problems = (Problem(Kind.DEPRECATED, None, why),)  # it still runs: a warning
    return Verdict(resolution, problems, signature)


def _overridden(site: Site, resolver: Resolver, on_instance: Resolution) -> Resolution:
    """An override whose name no class of the provider's MRO defines (nor its metaclass):
    the consumer's own method, whatever an instance may be given elsewhere (scikit-learn's
    `set_params` sets any attribute by `setattr`): only a class attribute is overridden."""
    on_class = resolver.resolve(site.target)
    return on_class if on_class.status is Lookup.MISSING_NAME else on_instance


def _unreadable(resolution: Resolution) -> Problem:
    """A site the release could not be checked for: a module on its way does not parse."""
    why = f"{resolution.detail} (if the module needs a newer Python, run drift-audit on that)"
    return Problem(Kind.UNPARSABLE_PROVIDER, resolution.missing, why)


def _unbound(bound: Resolution, module: str, name: str) -> tuple[Problem, ...]:
    """The problem of a star-imported name the module does not bind in this release: a
    missing module, or a name gone from what `import *` binds (compare() keeps that only
    when the baseline bound it: otherwise the name was never the provider's); a module
    that cannot be read is unparsable-provider, as anywhere else."""
    if bound.status is Lookup.MISSING_MODULE:
        return (Problem(Kind.REMOVED_MODULE, None, bound.detail),)
    if bound.status is Lookup.UNREADABLE:
        return (_unreadable(bound),)
    if bound.status is Lookup.MISSING_NAME:
        return (Problem(Kind.REMOVED_SYMBOL, None, f"`from {module} import *` no longer binds it"),)
    return ()


def _unbound_star(verdict: Verdict | None) -> bool:
    """Whether a verdict says `from m import *` binds no such name in that release (not
    bound, or not known; a module that cannot be read is reported as such)."""
    if verdict is None:
        return True
    resolution = verdict.resolution
    readable = resolution.status is not Lookup.UNREADABLE
    return star_parts(resolution.path) is not None and not resolution.found and readable


MAX_FORWARDS = 4


def forwarded(
    shape: CallShape, symbol: Symbol, resolver: Resolver, depth: int = 0
) -> tuple[Problem, ...]:
    """Keywords that land in the callee's `**kwargs` and go on, unchanged, to the provider
    callable it hands them to (forwards.py): each must be accepted there, or further on."""
    signature = symbol.signature
    if symbol.forwards is None or signature is None or shape.star_kwargs or depth > MAX_FORWARDS:
        return ()
    if symbol.forward_unless is not None and symbol.forward_unless in shape.keywords:
        return ()  # the caller chose another callee
    named = {p.name for p in signature.params if p.kind in KEYWORD_CAPABLE}
    named |= set(symbol.forward_taken)
    passed_on = tuple(k for k in shape.keywords if k not in named)
    if not passed_on:
        return ()
    added = tuple(k for k in symbol.forward_added if k not in passed_on)
    target = resolver.resolve(symbol.forwards)
    onward = target.symbol
    if target.status is not Lookup.FOUND or onward is None or onward.signature is None:
        return ()
    params = onward.signature.params
    accepted = {p.name for p in params if p.kind in KEYWORD_CAPABLE}
    catch_all = any(p.kind is ParamKind.VAR_KEYWORD for p in params)
    where = f"it passes **kwargs on to {onward.path}, which does not take it"
    problems = [
        Problem(Kind.UNEXPECTED_KEYWORD, k, where)
        for k in passed_on
        if k not in accepted and not catch_all
    ]
    if problems or not catch_all:
        return tuple(problems)
    rest = CallShape(0, (*passed_on, *added))  # what the callee adds goes on too
    return forwarded(rest, onward, resolver, depth + 1)


def _own_method(target: str, missing: str | None) -> bool:
    """`Base().m.@x.y` where `Base` has no `m`: `m` is the consumer's own method, `x` its
    own parameter (scan/values.py gives it the overridden method's type, when there is one)."""
    parts = target.split(".")
    for index, part in enumerate(parts):
        if part.startswith(PARAMETER):
            return missing == ".".join(bare(p) for p in parts[:index])
    return False


def _gone_before_the_call(target: str, missing: str | None) -> bool:
    """`a.gone().attr`: what is missing is the callee of an inner call, not this site's own."""
    if "()" not in target or missing is None:
        return False
    head = target.split("()", 1)[0]
    return head == missing or head.startswith(missing + ".")


def _removed(
    resolver: Resolver, site: Site, kind: Kind = Kind.REMOVED_SYMBOL, why: str | None = None
) -> Problem:
    """removed-symbol (or the removed-module of a `from gone import name`), with where a
    definition of that name lives now when one is known (else `why`, the lookup's word on
    a top-level module the release does not ship); for a `from m import name`, a
    move-import hint carrying that definition's kind and signature (compare() makes it safe
    when they are the baseline's)."""
    moved = getattr(resolver, "moved", None)
    found = moved(site.target) if moved is not None else None
    if not found or resolver.resolve(found).status is not Lookup.FOUND:
        return Problem(kind, None, why)
    suggestion = f"a definition of that name now lives in {found}"
    hint = None
    module, _, name = found.rpartition(".")
    from_import = site.action is Action.IMPORT and not site.module_only
    if from_import and name == site.target.rpartition(".")[2]:
        there = resolver.resolve(found).symbol
        if there is not None:
            shape = f"{there.kind.value}|{there.signature}"
            old = site.target.rpartition(".")[0]
            hint = FixHint("move-import", False, old, module, names=(name,), why=shape)
        suggestion += f": `from {module} import {name}`"
    return Problem(kind, None, suggestion, hint=hint)


def _lookup_path(site: Site) -> str:
    """Calls through super() and overrides are bound: look them up on an instance."""
    if site.action is Action.SUPER_CALL:
        owner, _, method = site.target.rpartition(".")
        return owner if method == "__init__" else f"{owner}().{method}"
    if site.action is Action.OVERRIDE:
        owner, _, method = site.target.rpartition(".")
        return f"{owner}().{method}"
    return site.target


def positional_shift(shape: CallShape, before: Signature, after: Signature) -> Problem | None:
    """Arguments passed by position that now land on a different parameter (it runs, wrongly)."""
    old = [p.name for p in before.params if p.kind in POSITIONAL]
    new = [p.name for p in after.params if p.kind in POSITIONAL]
    everything_new = {p.name for p in after.params}
    everything_old = {p.name for p in before.params}
    count = min(shape.positional, len(old), len(new))
    for index in range(count):
        if old[index] == new[index]:
            continue
        if old[index] in everything_new or new[index] in everything_old:
            return Problem(Kind.POSITIONAL_SHIFT, new[index])  # a parameter moved
        # a parameter renamed in its own slot: positional callers are unaffected
    return None


def override_mismatch(override: Signature, before: Signature, after: Signature) -> Problem | None:
    """An override that no longer accepts what the provider now passes, or vice versa.

    Only changes are judged: a parameter the provider's method gained that the override cannot
    take by name, or a parameter the override requires that the provider's method dropped (its
    callers no longer pass it). What was already different in the baseline is left alone.
    """
    old = {p.name for p in before.params}
    takes_any = any(p.kind is ParamKind.VAR_KEYWORD for p in override.params)
    overridden = {p.name for p in override.params}
    for param in after.params:
        if param.name in old or param.kind in (ParamKind.VAR_POSITIONAL, ParamKind.VAR_KEYWORD):
            continue
        if not takes_any and param.name not in overridden:
            return Problem(Kind.OVERRIDE_MISMATCH, param.name)
    new = {p.name for p in after.params}
    for param in override.params:
        if param.required and param.name in old and param.name not in new:
            return Problem(Kind.OVERRIDE_MISMATCH, param.name)
    return None


def rename_suggestion(
    keyword: str, before: Signature, after: Signature, shape: CallShape | None = None
) -> str | None:
    """For a keyword that is gone: the new parameter it was most likely renamed to (never one
    the call already passes, by keyword or by position), and how to pass it."""
    best = rename_target(keyword, before, after, shape)
    return f"was it renamed to {best!r}? pass {passing(best)} instead" if best else None


def is_keyword_name(name: str) -> bool:
    """Whether a call can pass `name=...`: an identifier in its normal form (NFKC: the parser
    reads a name spelled with a ligature as the name without it, another keyword), not a
    keyword (`class`, `None`) nor `__debug__`. Soft keywords (`match`, `case`, `type`, `_`)
    are names here, as in any call."""
    if not name.isidentifier() or iskeyword(name) or name == "__debug__":
        return False
    return unicodedata.normalize("NFKC", name) == name


def passing(name: str) -> str:
    """How a call passes `name`: `name=...`, or `**{'name': ...}` when it cannot be written so."""
    return f"{name}=..." if is_keyword_name(name) else f"**{{{name!r}: ...}}"


def compare(site: Site, before: Verdict | None, after: Verdict) -> tuple[Problem, ...]:
    """The problems of `after`, each with its mechanical repair when one is known. A name
    a star import does not bind in `after` is a break only when the baseline bound it (no
    baseline, or none there either: it is a builtin, another import's, or was never there)."""
    if star_parts(site.target) is not None and _unbound_star(after) and _unbound_star(before):
        return ()
    problems = one_cause(site, _compared(site, before, after), before, after)
    return tuple(_hinted(site, p, before, after) for p in problems)


def one_cause(
    site: Site, problems: tuple[Problem, ...], before: Verdict | None, after: Verdict
) -> tuple[Problem, ...]:
    """One finding per cause: the required keyword-only parameters the call's extra
    positional arguments were meant for are missing because they are passed by position, so
    they are part of the too-many-positional, whose suggestion names them (CPython raises
    that one TypeError; mypy reports it once). Meant for: the parameters those arguments
    bound at the baseline, else the target's keyword-only ones in order (as mypy maps them).
    A missing parameter no extra argument was meant for is a cause of its own."""
    too_many = next((p for p in problems if p.kind is Kind.TOO_MANY_POSITIONAL), None)
    if too_many is None or site.call is None or site.call.star_args or after.callee is None:
        return problems
    bound = before is not None and not any(p.kind in BINDING for p in before.problems)
    old = before.callee if before is not None and bound else None
    meant, known = _meant_for(site.call, old, after.callee)
    folded = {
        p.parameter for p in problems if p.kind is Kind.MISSING_ARGUMENT and p.parameter in meant
    }
    if not folded:
        return problems
    names = [n for n in meant if n in folded]
    kept = [p for p in problems if not (p.kind is Kind.MISSING_ARGUMENT and p.parameter in folded)]
    why = _by_keyword_now(names, known)
    return tuple(replace(p, suggestion=why) if p is too_many else p for p in kept)


def _meant_for(
    shape: CallShape, before: Signature | None, after: Signature
) -> tuple[list[str], bool]:
    """The parameters the call's positional arguments past the target's positional
    capacity were meant for, and whether that is known (they bound to them at the
    baseline) rather than mapped in order onto the target's keyword-only parameters."""
    capacity = sum(1 for p in after.params if p.kind in POSITIONAL)
    extra = shape.positional - capacity
    old = [p.name for p in before.params if p.kind in POSITIONAL] if before is not None else []
    if before is not None and len(old) >= shape.positional:
        return old[capacity : shape.positional], True
    keyword_only = [p.name for p in after.params if p.kind is ParamKind.KEYWORD_ONLY]
    return keyword_only[:extra], False


def _by_keyword_now(names: list[str], known: bool) -> str:
    listed = ", ".join(passing(n) for n in names)
    if known:
        which = f"{names[0]} is" if len(names) == 1 else f"{', '.join(names)} are"
        return f"{which} keyword-only now: pass {listed}"
    return f"it requires {', '.join(names)} by keyword: pass {listed}"


def _compared(site: Site, before: Verdict | None, after: Verdict) -> tuple[Problem, ...]:
    """The problems of `after`, with suggestions, plus those only a comparison can see:
    deprecations new in the target, positional shifts and override mismatches."""
    kept = [p for p in after.problems if not _stub_guess(p, before, after)]
    problems = [_suggest(site, p, before, after) for p in kept]
    if _unlisted_now(site, before, after):
        detail = after.resolution.detail or ""
        note = detail if detail.startswith("unless ") else None  # a data-keys __getattr__
        problems.append(Problem(Kind.REMOVED_SYMBOL, None, note))
    deprecated = _newly_deprecated(before, after)
    if deprecated is not None:
        problems.append(deprecated)
    problems += _probable(site, before, after)
    problems += _deprecated_keywords(site, before, after)
    if before is None or before.callee is None or after.callee is None or after.problems:
        return tuple(problems)
    if site.action is Action.OVERRIDE and site.override is not None:
        if site.target.endswith(".__init__") and not _reconstructed(after):
            return tuple(problems)  # the provider never calls a subclass's __init__ itself
        mismatch = override_mismatch(site.override, before.callee, after.callee)
        problems += [mismatch] if mismatch else []
    elif site.call is not None and not before.problems:
        shift = positional_shift(site.call, before.callee, after.callee)
        problems += [shift] if shift else [*behavioural(site, before.callee, after.callee)]
    return tuple(problems)


def _probable(site: Site, before: Verdict | None, after: Verdict) -> list[Problem]:
    """A method only the provider's classes had, gone from them, on a value of unknown
    type: a warning with its evidence (probable.py), never an error."""
    why = evidence(site, before.owners if before is not None else None, after.owners)
    return [Problem(Kind.PROBABLE, None, why)] if why is not None else []


BINDING = (Kind.UNEXPECTED_KEYWORD, Kind.MISSING_ARGUMENT, Kind.TOO_MANY_POSITIONAL)


def _stub_guess(problem: Problem, before: Verdict | None, after: Verdict) -> bool:
    """A binding problem against a compiled callable's stub, with no baseline that bound:
    the C code may take more than the stub says (torch's parser takes numpy's `axis` for
    `dim`), so only a change of the stub since a baseline that bound is evidence."""
    symbol = after.resolution.symbol
    if problem.kind not in BINDING or symbol is None or not symbol.compiled:
        return False
    return before is None or before.callee is None or bool(before.problems)


def _unlisted_now(site: Site, before: Verdict | None, after: Verdict) -> bool:
    """A name the target's stub no longer lists that the baseline had: that is a removal
    (the stub is the one description of the compiled module there is, release to release).
    Likewise a method gone from a class whose `__getattr__` serves only data keys: it is
    there only if the object holds a key of that name (the resolution's detail says so)."""
    if after.resolution.status is not Lookup.UNLISTED or before is None:
        return False
    if site.store and site.action is Action.ATTRIBUTE:
        return False  # assigning a new attribute is no error
    return before.resolution.status is Lookup.FOUND and site.action is not Action.OVERRIDE


def behavioural(site: Site, before: Signature, after: Signature) -> list[Problem]:
    """A call that binds in both releases, whose left-out defaults or relied-on return
    changed (behaviour.py): reasons to look, info or warning."""
    assert site.call is not None
    changes = changed_defaults(site.call, before, after)
    returned = changed_return(site.result_use, before, after)
    changes += [returned] if returned is not None else []
    return [Problem(c.kind, c.parameter, c.detail, c.severity) for c in changes]


def _reconstructed(verdict: Verdict) -> bool:
    symbol = verdict.resolution.symbol
    return symbol is not None and symbol.reconstructs


def _newly_deprecated(before: Verdict | None, after: Verdict) -> Problem | None:
    now = after.resolution.symbol
    if now is None or now.deprecated is None:
        return None
    was = before.resolution.symbol if before is not None else None
    if was is not None and was.deprecated is not None:
        return None
    return Problem(Kind.DEPRECATED, None, f"{now.path}: {now.deprecated}")


def _deprecated_keywords(site: Site, before: Verdict | None, after: Verdict) -> list[Problem]:
    """Keywords the call passes that the target now warns about (and the baseline did not)."""
    now = after.resolution.symbol
    if site.call is None or now is None or not now.deprecated_params:
        return []
    was = before.resolution.symbol if before is not None else None
    old = set(was.deprecated_params) if was is not None else set()
    warned = set(now.deprecated_params)
    renamed = dict(now.renamed)
    return [
        Problem(Kind.DEPRECATED, k, _instead(k, renamed.get(k)))
        for k in site.call.keywords
        if k in warned and k not in old
    ]


def _hinted(site: Site, problem: Problem, before: Verdict | None, after: Verdict) -> Problem:
    """The problem with a mechanical repair when one is known (fixes.py makes the edit)."""
    hint = repair(site, problem, before, after)
    return replace(problem, hint=hint) if hint != problem.hint else problem


def repair(site: Site, problem: Problem, before: Verdict | None, after: Verdict) -> FixHint | None:
    """What would repair `problem` at `site`: safe when the analysis is sure it keeps the
    call's meaning, unsafe when it is a guess or changes behaviour, None when nothing would
    (a new required parameter gets no made-up value)."""
    old = before.callee if before is not None else None
    new = after.callee
    if problem.kind in (Kind.REMOVED_SYMBOL, Kind.REMOVED_MODULE) and problem.hint is not None:
        was = before.resolution.symbol if before is not None else None
        same = was is not None and f"{was.kind.value}|{was.signature}" == problem.hint.why
        return replace(problem.hint, safe=True, why="") if same else None
    if site.call is None or old is None or new is None or site.call.star_kwargs:
        return None
    if problem.kind is Kind.UNEXPECTED_KEYWORD and problem.parameter:
        return _keyword_repair(problem.parameter, problem, old, new, site.call)
    if problem.kind is Kind.DEPRECATED and problem.parameter:
        symbol = after.resolution.symbol
        renamed = dict(symbol.renamed) if symbol is not None else {}
        target = renamed.get(problem.parameter)
        if target and target not in site.call.keywords and is_keyword_name(target):
            why = "the provider's own wrapper maps the old name to the new"
            return FixHint("rename-keyword", True, problem.parameter, target, why=why)
        return None
    if problem.kind is Kind.TOO_MANY_POSITIONAL and not site.call.star_args:
        return _keywordize(site.call, old, new)
    return None


def _keyword_repair(
    keyword: str, problem: Problem, before: Signature, after: Signature, shape: CallShape
) -> FixHint | None:
    if problem.suggestion and problem.suggestion.startswith("it passes **kwargs"):
        return None  # the keyword goes on to another callable: not this call's to change
    guess = rename_target(keyword, before, after, shape)
    if guess is not None and not is_keyword_name(guess):
        return None  # renamed to a name no call can write as `name=` (its suggestion says how)
    if guess is not None:
        why = "a rename guessed from the names and positions of the parameters"
        return FixHint("rename-keyword", False, keyword, guess, why=why)
    return drop_repair(keyword, before, after)


def _keywordize(shape: CallShape, before: Signature, after: Signature) -> FixHint | None:
    """Positional arguments past the target's positional capacity, passed by keyword with the
    names they bound to at the baseline, when the target takes those names by keyword."""
    if any(p.kind is ParamKind.VAR_POSITIONAL for p in after.params):
        return None
    capacity = sum(1 for p in after.params if p.kind in POSITIONAL)
    old = [p.name for p in before.params if p.kind in POSITIONAL]
    if shape.positional > len(old) or capacity >= shape.positional:
        return None
    names = tuple(old[capacity : shape.positional])
    takes = {p.name for p in after.params if p.kind in KEYWORD_CAPABLE}
    if not set(names) <= takes or set(names) & set(shape.keywords):
        return None
    why = "the target takes these parameters by keyword only"
    return FixHint("keywordize", True, names=names, start=capacity, why=why)


def _instead(keyword: str, new: str | None) -> str:
    if new:
        return f"{keyword!r} was renamed to {new!r}: pass {passing(new)} instead"
    return f"the provider warns when {keyword!r} is passed; stop passing it"


def _suggest(site: Site, problem: Problem, before: Verdict | None, after: Verdict) -> Problem:
    if before is None or before.callee is None or after.callee is None:
        return problem
    if problem.kind is Kind.UNEXPECTED_KEYWORD and problem.parameter:
        hint = rename_suggestion(problem.parameter, before.callee, after.callee, site.call)
        if hint is None and problem.suggestion is None:
            hint = gone_suggestion(problem.parameter, before.callee, after.callee)
    elif problem.kind is Kind.MISSING_ARGUMENT and problem.parameter:
        param = after.callee.param(problem.parameter)
        annotation = f": {param.annotation}" if param and param.annotation else ""
        hint = f"pass {problem.parameter}=... (a required parameter{annotation})"
    else:
        hint = None
    return replace(problem, suggestion=hint) if hint else problem
