# Maintainers: long signatures cut to the parameters that matter, for every report a person
# reads as text (text, github, junit, markdown).
#
# Owns: splitting a rendered signature `(a: int, b: str = 'x') -> R` into its parameters
# (top-level commas only: brackets and quotes nest), comparing a parameter across the two
# releases the way the findings do (behaviour.normalised: `Optional[int]` is `int | None`,
# `List` is `list`, a union's order and spaces do not count), and the cut. A signature up to
# LONG characters is shown whole. A longer one shows the finding's parameter, then, up to
# MAX_SHOWN more, what changed, what a call must pass first (a required parameter only one
# side has; one required on one side only; an optional one only one side has; one passed
# another way, annotated or defaulted anew); every run of the rest becomes
# `... N unchanged` (all the same at both releases) or `... N more` (some changed, not
# shown). One that does not split cleanly is left whole. `wrapped` breaks a signature at its
# top-level commas for a terminal's width. Takes strings, gives strings; nothing is escaped
# here (the reporter escapes what it shows).
"""Signatures cut to what matters: `(vllm_config: VllmConfig, ... 14 unchanged) -> R`."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from auditor.behaviour import normalised

LONG = 100  # characters: a signature up to this long is shown whole
MAX_SHOWN = 4  # parameters a cut signature shows at most, besides the finding's own
CLOSE = {"(": ")", "[": "]", "{": "}"}
MARKERS = ("*", "/")


@dataclass(frozen=True, slots=True)
class _Param:
    """One parameter's text and what it is: name, `*`/`**` prefix, annotation, default."""

    text: str
    name: str
    stars: str
    annotation: str | None
    default: str | None

    @property
    def required(self) -> bool:
        return self.default is None and not self.stars and self.text not in MARKERS


def cut_signatures(
    baseline: str | None, target: str | None, parameter: str | None
) -> tuple[str | None, str | None]:
    """The baseline and target signatures, each cut when long (see the module comment)."""
    old, new = _split(baseline), _split(target)
    if baseline is None or target is None or old is None or new is None:
        return baseline, target
    before, after = [_parse(p) for p in old[0]], [_parse(p) for p in new[0]]
    return (
        _cut(baseline, before, old[1], after, parameter),
        _cut(target, after, new[1], before, parameter),
    )


def _cut(
    whole: str, params: list[_Param], tail: str, other: list[_Param], parameter: str | None
) -> str:
    if len(whole) <= LONG:
        return whole
    twins = {(p.name, p.stars): p for p in other}
    here, there = _positions(params), _positions(other)
    ranks = [_rank(p, twins, here, there, parameter) for p in params]
    chosen = sorted((r, i) for i, r in enumerate(ranks) if r is not None)
    focus = sum(1 for r, _ in chosen if r == 0)
    shown = {i for _, i in chosen[: max(MAX_SHOWN, focus)]}
    out: list[str] = []
    run: list[int] = []
    for i, param in enumerate(params):
        if i in shown:
            out.extend(_elided(run, ranks))
            run = []
            out.append(param.text)
        else:
            run.append(i)
    out.extend(_elided(run, ranks))
    return f"({', '.join(out)}){tail}"


def _elided(run: list[int], ranks: list[int | None]) -> list[str]:
    if not run:
        return []
    word = "unchanged" if all(ranks[i] is None for i in run) else "more"
    return [f"... {len(run)} {word}"]


def _rank(
    param: _Param,
    twins: dict[tuple[str, str], _Param],
    here: dict[int, bool],
    there: dict[int, bool],
    parameter: str | None,
) -> int | None:
    """How much a parameter matters, 0 the most: the finding's; one side's only and required;
    required on one side only; one side's only; passed another way (by position or keyword
    only) or annotated or defaulted anew. None: the same on the other side (normalised).
    Where a parameter sits is not compared: the one added or removed before it says why.
    `twins`: the other side's parameters by name; `here`, `there`: which can be passed by
    position (`_positions`) on this side and the other."""
    if parameter is not None and param.name == parameter:
        return 0
    twin = twins.get((param.name, param.stars))
    if twin is None:
        return 1 if param.required else 3
    if twin.required != param.required:
        return 2
    if here[id(param)] != there[id(twin)] or not _same(param, twin):
        return 4
    return None


def _positions(params: list[_Param]) -> dict[int, bool]:
    """Per parameter (by id): whether a call can pass it by position, before any `*`,
    `*args` or keyword-only parameter."""
    out: dict[int, bool] = {}
    open_ = True
    for p in params:
        if p.stars or p.text == "*":
            open_ = False
        out[id(p)] = open_ and not p.stars and p.text not in MARKERS
    return out


def _same(a: _Param, b: _Param) -> bool:
    return (
        a.stars == b.stars
        and _spelling(a.default) == _spelling(b.default)
        and (
            _spelling(a.annotation) == _spelling(b.annotation)  # most often: no parse at all
            or _annotation(a.annotation) == _annotation(b.annotation)
        )
    )


@lru_cache(maxsize=4096)
def _annotation(text: str | None) -> str | None:
    """One spelling, as the findings compare annotations; the text itself (spaces out) when
    it does not parse."""
    if text is None:
        return None
    return normalised(text) or _spelling(text)


def _spelling(text: str | None) -> str | None:
    return None if text is None else "".join(text.split())


def _parse(text: str) -> _Param:
    """`**kw: Any` -> name kw, stars **; `b: int = 2` -> annotation int, default 2."""
    if text in MARKERS:
        return _Param(text, text, "", None, None)
    head, default = _top_split(text, "=")
    name, annotation = _top_split(head, ":")
    stars = name[: len(name) - len(name.lstrip("*"))]
    return _Param(text, name.strip().lstrip("*").strip(), stars, annotation, default)


def _top_split(text: str, sep: str) -> tuple[str, str | None]:
    """`text` cut at its first `sep` outside brackets and quotes: (before, after or None)."""
    depth, quote = 0, ""
    for i, ch in enumerate(text):
        if quote:
            quote = "" if ch == quote and text[i - 1] != "\\" else quote
        elif ch in "'\"":
            quote = ch
        elif ch in CLOSE:
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == sep and depth == 0 and not (sep == "=" and text[i + 1 : i + 2] == "="):
            return text[:i].strip(), text[i + 1 :].strip()
    return text.strip(), None


def _split(signature: str | None) -> tuple[list[str], str] | None:
    """The parameters of `(...)<tail>` and the tail (` -> R`); None when it does not parse
    as one balanced parameter list."""
    if not signature or not signature.startswith("("):
        return None
    stack: list[str] = []
    params: list[str] = []
    start, quote = 1, ""
    for i, ch in enumerate(signature):
        if quote:
            quote = "" if ch == quote and signature[i - 1] != "\\" else quote
        elif ch in "'\"":
            quote = ch
        elif ch in CLOSE:
            stack.append(CLOSE[ch])
        elif ch in ")]}":
            if not stack or stack.pop() != ch:
                return None
            if not stack:
                params.append(signature[start:i].strip())
                return [p for p in params if p], signature[i + 1 :]
        elif ch == "," and len(stack) == 1:
            params.append(signature[start:i].strip())
            start = i + 1
    return None


def wrapped(signature: str, width: int) -> list[str]:
    """A signature as lines of at most `width` characters where it can be: broken after
    top-level commas, each continuation indented one column (under the first parameter).
    A signature that fits, or does not split, is one line."""
    split = _split(signature)
    if len(signature) <= width or split is None or not split[0]:
        return [signature]
    params, tail = split
    pieces = [f"{p}," for p in params[:-1]] + [f"{params[-1]}){tail}"]
    pieces[0] = "(" + pieces[0]
    lines: list[str] = []
    line = ""
    for piece in pieces:
        if line and len(line) + 1 + len(piece) > width:
            lines.append(line)
            line = " " + piece
        else:
            line = f"{line} {piece}" if line else piece
    lines.append(line)
    return lines
