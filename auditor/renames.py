# Maintainers: a keyword the target no longer takes: which new parameter it was renamed to,
# and what dropping it would keep.
#
# Owns: the rename guess (rename_target), from the two signatures and the call: a new
# parameter whose name is like the gone one's (difflib's ratio), or shares its stem
# (`sparse` / `sparse_output`, `use_auth_token` / `token`); failing those, the parameter added
# in the gone one's very slot, of its kind and with its default (gensim's `iter` -> `epochs`:
# position, kind and default say it is the same parameter; the names say nothing); failing
# that, the one parameter added, if it stands where the gone one stood. Never a parameter the
# call already fills, by keyword or by position. A guess: bind.py makes it a suggestion and
# an unsafe fix (a rename), never a drop of the value the caller chose. With no rename, a
# drop (drop_repair) is offered only where the baseline gave the parameter a default (fixes.py
# makes it only for a call whose value is that default), and the suggestion says so.
# Takes: model Signatures and a CallShape. Gives: a parameter name, a FixHint or a
# suggestion, or None. Pure.
"""The rename guess, and the drop: a keyword the target no longer takes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from auditor.behaviour import NOT_LITERAL, literal_value, same_value
from auditor.model import FixHint, ParamKind

if TYPE_CHECKING:
    from auditor.model import CallShape, Param, Signature

POSITIONAL = (ParamKind.POSITIONAL_ONLY, ParamKind.POSITIONAL_OR_KEYWORD)
KEYWORD_CAPABLE = (ParamKind.POSITIONAL_OR_KEYWORD, ParamKind.KEYWORD_ONLY)


def rename_target(
    keyword: str, before: Signature, after: Signature, shape: CallShape | None = None
) -> str | None:
    """The parameter of the target the gone `keyword` was most likely renamed to (for a
    pydantic alias, maybe a name no call can write as `name=`: see bind.is_keyword_name)."""
    old_names = {p.name: i for i, p in enumerate(before.params)}  # name -> position
    passed = _passed(after, shape)
    added = [
        p.name
        for p in after.params
        if p.name not in old_names and p.kind in KEYWORD_CAPABLE and p.name not in passed
    ]
    scored = sorted(added, key=lambda name: (-_similarity(keyword, name), name))
    best = scored[0] if scored else None
    similar = _similarity(keyword, best) if best is not None else 0.0
    stem = _same_stem(keyword, after, passed)  # a name of the same stem, new or not
    if best is not None and (similar >= 0.8 or (similar >= 0.5 and stem is None)):
        return best
    if stem is not None:  # a shared stem says more than a middling likeness
        return stem
    slot = same_slot(keyword, before, after, frozenset(added))
    if slot is not None:
        return slot
    position = old_names.get(keyword, -1)
    new_names = [p.name for p in after.params]
    same_place = best is not None and position >= 0 and new_names.index(best) == position
    return best if best is not None and same_place and len(added) == 1 else None


def same_slot(
    keyword: str, before: Signature, after: Signature, added: frozenset[str]
) -> str | None:
    """The parameter among `added` (new in the target, not filled by the call) that stands
    at the gone keyword's position in the target, of the same kind, with the same default
    (both required, or defaults written alike or of equal literal value)."""
    index = next((i for i, p in enumerate(before.params) if p.name == keyword), None)
    if index is None or index >= len(after.params):
        return None
    old, new = before.params[index], after.params[index]
    if new.name not in added or new.kind is not old.kind:
        return None
    return new.name if same_default(old, new) else None


def same_default(old: Param, new: Param) -> bool:
    """Whether two parameters default alike: both required, the same text, or literals of
    the same value (`5` and `0x5`; `1` and `True` differ)."""
    if old.default is None or new.default is None:
        return old.default is None and new.default is None
    if old.default == new.default:
        return True
    was, now = literal_value(old.default), literal_value(new.default)
    return was is not NOT_LITERAL and now is not NOT_LITERAL and same_value(was, now)


def drop_repair(keyword: str, before: Signature, after: Signature) -> FixHint | None:
    """Dropping a gone keyword: offered only for a value the baseline's default equals
    (fixes.py checks the call's value: any other value, or one not known, gets no fix, as
    dropping it would change what the call does without a word); so never for a parameter
    the baseline required, nor one the target still has (passed twice, or by position
    only: the call's value would go elsewhere)."""
    param = _gone(keyword, before, after)
    if param is None or param.default is None:
        return None
    why = "the parameter is gone in the target"
    return FixHint("drop-keyword", False, keyword, default=param.default, why=why)


def _gone(keyword: str, before: Signature, after: Signature) -> Param | None:
    """The baseline's keyword parameter of that name, when the target has none at all
    (None: the baseline took it by `**kwargs`, or the target has the name)."""
    param = before.param(keyword)
    if param is None or param.kind not in KEYWORD_CAPABLE or after.param(keyword) is not None:
        return None
    return param


def gone_suggestion(keyword: str, before: Signature, after: Signature) -> str | None:
    """What to say of a keyword the target no longer takes, with no rename in sight: the
    value the baseline gave it when left out, which is all a drop keeps; or that it had
    none (the baseline required it), so no drop keeps the call's meaning."""
    param = _gone(keyword, before, after)
    if param is None:
        return None
    if param.default is None:
        return (
            f"{keyword!r} is gone and the baseline required it: no drop keeps what the call "
            "does; the target's signature shows what it takes instead"
        )
    return (
        f"{keyword!r} is gone: dropping it keeps what the call does only if its value is "
        f"the baseline's default, {bounded_text(param.default)}"
    )


def bounded_text(text: str, limit: int = 80) -> str:
    """A default as a suggestion quotes it: at most `limit` characters, cut visibly."""
    return text if len(text) <= limit else f"{text[:limit]}…"


def _passed(signature: Signature, shape: CallShape | None) -> frozenset[str]:
    """The parameters a call fills: its keywords, and the positional ones it reaches."""
    if shape is None:
        return frozenset()
    positional = [p.name for p in signature.params if p.kind in POSITIONAL]
    return frozenset((*shape.keywords, *positional[: shape.positional]))


def _same_stem(keyword: str, after: Signature, passed: frozenset[str] = frozenset()) -> str | None:
    """A parameter of the target whose name holds the gone keyword's, or the reverse, or that
    shares a long prefix with it (`sparse` / `sparse_output`, `use_auth_token` / `token`,
    `proxies` / `proxy`, `convert` / `converter`): the likeliest new name when the rename
    happened releases before the old name went (so the new one is not new in the target)."""
    best: tuple[int, str] | None = None
    for param in after.params:
        name = param.name
        skip = param.kind not in KEYWORD_CAPABLE or name == keyword or name in passed
        if skip or min(len(name), len(keyword)) < 4:
            continue
        shorter = min(len(name), len(keyword))
        common = len(_common_prefix(name, keyword))
        if name in keyword or keyword in name:
            score = shorter
        elif common >= 4 and common >= 0.6 * shorter and not name[:common].endswith("_"):
            score = common  # `prox`: one word spelled two ways, not `kv_cache_` + other words
        else:
            continue
        if best is None or (score, -len(name)) > (best[0], -len(best[1])):
            best = (score, name)
    return best[1] if best else None


def _common_prefix(a: str, b: str) -> str:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return a[:n]


def _similarity(a: str, b: str) -> float:
    from difflib import SequenceMatcher

    return SequenceMatcher(None, a, b).ratio()
