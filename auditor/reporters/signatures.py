# Maintainers: long signatures cut to the parameters that matter, for the text report.
#
# Owns: splitting a rendered signature `(a: int, b: str = 'x') -> R` into its parameters
# (top-level commas only: brackets and quotes nest), and the cut: a parameter matters when
# the other side does not have it word for word (added, removed, retyped, a new default) or
# when it is the finding's parameter; every run of the others becomes `... N unchanged`. Only
# a signature longer than LONG is cut, and one that does not split cleanly is left whole.
# Takes strings, gives strings; nothing is escaped here (the reporter escapes what it shows).
"""Signatures cut to what changed: `(vllm_config: VllmConfig, ... 14 unchanged) -> R`."""

from __future__ import annotations

LONG = 120  # characters: a signature up to this long is shown whole
CLOSE = {"(": ")", "[": "]", "{": "}"}


def cut_signatures(
    baseline: str | None, target: str | None, parameter: str | None
) -> tuple[str | None, str | None]:
    """The baseline and target signatures, each cut when long (see the module comment)."""
    old, new = _split(baseline), _split(target)
    if baseline is None or target is None or old is None or new is None:
        return baseline, target
    return (
        _cut(baseline, old, set(new[0]), parameter),
        _cut(target, new, set(old[0]), parameter),
    )


def _cut(whole: str, split: tuple[list[str], str], other: set[str], parameter: str | None) -> str:
    if len(whole) <= LONG:
        return whole
    params, tail = split
    shown: list[str] = []
    run = 0
    for param in params:
        if param in other and _name(param) != parameter:
            run += 1
            continue
        if run:
            shown.append(f"... {run} unchanged")
            run = 0
        shown.append(param)
    if run:
        shown.append(f"... {run} unchanged")
    return f"({', '.join(shown)}){tail}"


def _name(param: str) -> str:
    """`a: int = 1` -> `a`; `*args` -> `args`."""
    head = param.split(":", 1)[0].split("=", 1)[0]
    return head.strip().lstrip("*")


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
