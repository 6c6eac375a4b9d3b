"""The judge's decisions, as pure functions over the probe's answers (no I/O here).

A finding (a new error drift-audit reported) becomes a `Plan`: the query the probe runs in
both venvs, spelled the way the consumer wrote it when the touchpoint scan has the site (an
import, an attribute chain, a call of a name bound to the provider: `plan_finding` matches
the finding's line and column, else its line and last name), else as the tool names the
symbol (`spelled = "tool"`: a call on an instance whose type the tool inferred). Then:

    confirmed    it fails at the target, and works at the baseline
    refuted      it works at the target (nothing the finding names fails), or it sits under
                 `if TYPE_CHECKING:`, which never runs
    undecidable  the judge cannot tell: no signature (a builtin), a keyword or positional
                 that only a `**kwargs` / `*args` takes (where it goes is not known unrun), a
                 decorator's wrapper taking what the function it wraps refuses, an attribute
                 on neither release's class (only an instance may have it), the result of a
                 call or an item, an import error of an unrelated dependency, a timeout,
                 "fails at the baseline too", a callee the tool names that no longer resolves
                 (the consumer's object may come from elsewhere), or a guard that decides it
                 (caught by the `except` around it, an `if` version or feature test, an
                 except handler, a postponed annotation)

A touchpoint is a **break** when it works at the baseline and fails at the target; its
category says what failed (import, attribute, bind) and which finding kinds match it. It is
a **guarded break** when a guard can absorb the failure: a `try` whose handlers catch the
exception the target raises, an except handler, an `if` test, TYPE_CHECKING, a postponed
annotation. A `try` that does not catch it (`except ModuleNotFoundError` around a name that
is gone: `ImportError`) leaves the break unguarded.
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tests.world.touchpoints import FileScan, Guard, Touchpoint

SCORED = ("removed-module", "removed-symbol", "unexpected-keyword", "missing-argument",
          "too-many-positional")  # fmt: skip
CALL_KINDS = frozenset({"unexpected-keyword", "missing-argument", "too-many-positional"})
NAME_KINDS = frozenset({"removed-module", "removed-symbol"})
IMPORT_KINDS = NAME_KINDS  # what a failing import is reported as (its uses folded into it)
MATCHING = {"import": NAME_KINDS, "attribute": NAME_KINDS, "bind": CALL_KINDS}
FAILED = frozenset({"fails", "missing-on-class"})
_MARK = re.compile(r"\(\)|\[\*?\]")


def query_key(query: dict[str, Any]) -> str:
    body = {k: v for k, v in query.items() if k != "key"}
    return hashlib.sha1(json.dumps(body, sort_keys=True).encode()).hexdigest()[:16]


def keyed(query: dict[str, Any]) -> dict[str, Any]:
    return {**query, "key": query_key(query)}


def bare(dotted: str) -> str:
    return _MARK.sub("", dotted)


def last_name(dotted: str) -> str:
    parts = bare(dotted).split(".")
    while len(parts) > 1 and parts[-1] in ("__init__", "__new__", "__call__"):
        parts.pop()
    return parts[-1]


@dataclass
class Plan:
    query: dict[str, Any] | None
    spelled: str  # consumer | tool | none
    touchpoint: Touchpoint | None = None
    guards: tuple[Guard, ...] = ()
    shape: dict[str, Any] | None = None
    reason: str = ""  # why there is no query


@dataclass
class Verdict:
    verdict: str  # confirmed | refuted | undecidable | not-scored | not-judged
    reason: str
    baseline: dict[str, Any] = field(default_factory=dict)
    target: dict[str, Any] = field(default_factory=dict)


# --------------------------------------------------------------------------- call shapes


def call_at(source: str, line: int, column: int, name: str) -> ast.Call | None:
    """The call a finding points at: the one starting at (line, column), else the only call
    starting on that line, else the one on that line whose callee's last name is `name`."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and n.lineno == line]
    exact = [c for c in calls if c.col_offset + 1 == column]
    if exact:
        return exact[0]
    if len(calls) == 1:
        return calls[0]
    named = [c for c in calls if _callee_name(c) == name]
    return named[0] if len(named) == 1 else None


def _callee_name(call: ast.Call) -> str:
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def shape_of(call: ast.Call) -> dict[str, Any]:
    return {
        "positional": sum(1 for a in call.args if not isinstance(a, ast.Starred)),
        "keywords": [k.arg for k in call.keywords if k.arg is not None],
        "star_args": any(isinstance(a, ast.Starred) for a in call.args),
        "star_kwargs": any(k.arg is None for k in call.keywords),
    }


def self_rule(call: ast.Call) -> str:
    """`Base.method(self, ...)` names the class and passes the instance itself: as written.
    Anything else reaches a method through an instance (`obj.m()`, `super().m()`)."""
    func = call.func
    explicit = (
        isinstance(func, ast.Attribute)
        and not isinstance(func.value, ast.Call)
        and not (isinstance(func.value, ast.Name) and func.value.id in ("self", "cls"))
        and bool(call.args)
        and isinstance(call.args[0], ast.Name)
        and call.args[0].id in ("self", "cls")
    )
    return "as-written" if explicit else "owner-instance"


# --------------------------------------------------------------------------- plans


def _compatible(kind: str, tp: Touchpoint, symbol: str) -> bool:
    if kind in CALL_KINDS:
        return tp.op == "call"
    if kind == "removed-module":
        plain = bare(tp.symbol)
        return plain == symbol or plain.startswith(symbol + ".") or tp.op in ("import", "from")
    return True


def match_touchpoint(finding: dict[str, Any], scan: FileScan) -> Touchpoint | None:
    """The consumer's own spelling of the finding's site: same line and column, else same
    line and same last name (a re-export: the tool names where it is defined)."""
    kind, symbol = finding["kind"], bare(finding["symbol"])
    line, column = finding["line"], finding.get("column")
    here = [t for t in scan.on_line(line) if _compatible(kind, t, symbol)]
    wanted = last_name(symbol)
    exact = [t for t in here if t.line == line and t.column == column]
    if exact:  # `A(x).m()` starts where `A(x)` does: the one with the finding's name first
        return sorted(exact, key=lambda t: last_name(t.symbol) != wanted)[0]
    named = [t for t in here if last_name(t.symbol) == wanted or bare(t.symbol) == symbol]
    if kind == "removed-module":
        named += [t for t in here if bare(t.symbol).startswith(symbol + ".")]
    return named[0] if named else None


def _name_query(tp: Touchpoint) -> dict[str, Any]:
    """Whether the name is there: a call's callee as a chain (binding is not the question)."""
    query = tp.query()
    if query["op"] == "call":
        return {"op": "chain", "chain": query["chain"]}
    return query


def plan_finding(finding: dict[str, Any], scan: FileScan | None, source: str | None) -> Plan:
    kind, symbol = finding["kind"], finding["symbol"]
    if scan is None or source is None:
        return Plan(None, "none", reason="the file is not in the release's sources")
    if scan.error:
        return Plan(None, "none", reason=f"the file does not parse: {scan.error}")
    guards = scan.guards_at(finding["line"], finding.get("column"))
    tp = match_touchpoint(finding, scan)
    if tp is not None:
        guards = tp.guards
        query = tp.query() if kind in CALL_KINDS else _name_query(tp)
        shape = query.get("shape")
        return Plan(keyed(query), "consumer", tp, guards, shape)
    if kind == "removed-module":
        return Plan(keyed({"op": "import", "module": bare(symbol)}), "tool", None, guards)
    if kind == "removed-symbol":
        return Plan(keyed({"op": "chain", "chain": symbol}), "tool", None, guards)
    call = call_at(source, finding["line"], finding.get("column") or 0, last_name(symbol))
    if call is None:
        return Plan(None, "none", None, guards, reason="no call at the finding's line")
    shape = shape_of(call)
    query = {"op": "call", "chain": symbol, "shape": shape, "self": self_rule(call)}
    return Plan(keyed(query), "tool", None, guards, shape)


def touchpoint_queries(tp: Touchpoint) -> list[dict[str, Any]]:
    """The name query, and for a call the bind query too."""
    queries = [keyed(_name_query(tp))]
    if tp.op == "call":
        queries.append(keyed(tp.query()))
    return queries


# --------------------------------------------------------------------------- guards


def absorbing_guard(guards: tuple[Guard, ...], target: dict[str, Any]) -> Guard | None:
    """The innermost guard that can absorb the target's failure, if any."""
    raised = set(target.get("mro") or []) or {"Exception", "BaseException"}
    for guard in reversed(guards):
        if guard.kind == "try" and not raised & set(guard.catches):
            continue  # it does not catch what the target raises
        return guard
    return None


def _guard_text(guard: Guard) -> str:
    where = f"line {guard.line}"
    return {
        "try": f"caught by `except {guard.detail}` ({where}): the fallback decides",
        "except": f"in an except handler ({where}): it runs only when its try failed",
        "if": f"under an if ({where}, {guard.detail}): the test decides",
        "type-checking": f"under `if TYPE_CHECKING:` ({where}): never runs",
        "annotation": f"a postponed annotation ({where}): evaluated only if something reads it",
    }[guard.kind]


# --------------------------------------------------------------------------- findings


def _absorbed(kind: str, parameter: str | None, answer: dict[str, Any]) -> str | None:
    absorbed = answer.get("absorbed") or {}
    if kind == "unexpected-keyword" and parameter in (absorbed.get("keywords") or []):
        return f"keyword {parameter!r} is taken by **kwargs of {answer.get('signature')}"
    if kind == "too-many-positional" and absorbed.get("positional"):
        return f"the positional arguments are taken by *args of {answer.get('signature')}"
    named = parameter in (answer.get("params") or [])
    if kind == "missing-argument" and answer.get("var_keyword") and parameter and not named:
        return f"{parameter!r} may come through **kwargs of {answer.get('signature')}"
    return None


def decide_finding(
    finding: dict[str, Any], plan: Plan, base: dict[str, Any], target: dict[str, Any]
) -> Verdict:
    kind = finding["kind"]
    if kind not in SCORED:
        return Verdict("not-scored", f"{kind} is not judged by running Python")
    never = [g for g in plan.guards if g.kind == "type-checking"]
    if never:
        return Verdict("refuted", _guard_text(never[-1]), base, target)
    if plan.query is None:
        return Verdict("undecidable", plan.reason)
    status = target.get("status")
    if status == "undecidable":
        return Verdict("undecidable", f"target: {target.get('detail')}", base, target)
    if status == "works":
        why = _absorbed(kind, finding.get("parameter"), target)
        if why:
            return Verdict("undecidable", why, base, target)
        return Verdict("refuted", f"works at the target: {_works_text(plan, target)}", base, target)
    return _failing(finding, plan, base, target)


def _works_text(plan: Plan, answer: dict[str, Any]) -> str:
    if answer.get("step") == "bind":
        return f"the call binds to {answer.get('signature')}"
    query = plan.query or {}
    name = query.get("chain") or ":".join(filter(None, [query.get("module"), query.get("name")]))
    return f"{name} resolves"


def _failing(
    finding: dict[str, Any], plan: Plan, base: dict[str, Any], target: dict[str, Any]
) -> Verdict:
    kind, shape = finding["kind"], plan.shape or {}
    if kind in CALL_KINDS and target.get("step") == "bind":
        star = shape.get("star_args") or shape.get("star_kwargs")
        if target.get("bind") == "missing-argument" and star:
            return Verdict("undecidable", "*args/**kwargs may supply it", base, target)
    if plan.spelled == "tool":
        wanted = last_name(finding["symbol"])
        if kind in CALL_KINDS and target.get("step") != "bind":
            why = f"{finding['symbol']} does not resolve at the target: {target.get('detail')}"
            return Verdict("undecidable", why, base, target)
        if kind == "removed-symbol" and target.get("name") not in (None, wanted):
            why = f"the path to it moved ({target.get('detail')}); the object may still have it"
            return Verdict("undecidable", why, base, target)
    guard = absorbing_guard(plan.guards, target)
    if guard is not None:
        return Verdict("undecidable", _guard_text(guard), base, target)
    if target.get("status") == "missing-on-class" and base.get("status") == "missing-on-class":
        why = "on neither release's class: only an instance may have it"
        return Verdict("undecidable", why, base, target)
    if base.get("status") == "works":
        why = f"fails at the target: {target.get('detail')}"
        if kind in CALL_KINDS and target.get("bind") not in (None, kind):
            why += f" (the site breaks, as {target.get('bind')}, not as {kind})"
        return Verdict("confirmed", why, base, target)
    if base.get("status") in FAILED:
        return Verdict("undecidable", f"fails at the baseline too: {base.get('detail')}", base,
                       target)  # fmt: skip
    return Verdict("undecidable", f"baseline: {base.get('detail')}", base, target)


# --------------------------------------------------------------------------- touchpoints


@dataclass
class Judged:
    status: str  # break | works | undecidable | fails-both | not-run
    category: str = ""  # import | attribute | bind (for a break)
    reason: str = ""
    baseline: dict[str, Any] = field(default_factory=dict)
    target: dict[str, Any] = field(default_factory=dict)
    guard: Guard | None = None
    query: dict[str, Any] = field(default_factory=dict)


def _layer(base: dict[str, Any], target: dict[str, Any]) -> str:
    b, t = base.get("status"), target.get("status")
    if b == "works" and t in FAILED:
        return "break"
    if t == "works":
        return "works"
    if b in FAILED and t in FAILED:
        if b == t == "missing-on-class":
            return "undecidable"
        return "fails-both"
    return "undecidable"


def decide_touchpoint(tp: Touchpoint, answers: dict[str, dict[str, dict[str, Any]]]) -> Judged:
    """`answers[key]` holds {"baseline": answer, "target": answer} for each of its queries."""
    queries = touchpoint_queries(tp)
    name = answers[queries[0]["key"]]
    base, target = name["baseline"], name["target"]
    layer = _layer(base, target)
    category = "import" if tp.op in ("import", "from") else "attribute"
    query = queries[0]
    if layer == "works" and len(queries) == 2 and base.get("status") == "works":
        call = answers[queries[1]["key"]]
        base, target, query = call["baseline"], call["target"], queries[1]
        layer, category = _layer(base, target), "bind"
        shape = tp.shape
        missing = target.get("bind") == "missing-argument"
        if layer == "break" and missing and shape and (shape.star_args or shape.star_kwargs):
            layer = "undecidable"
        if layer == "break" and target.get("step") != "bind":
            layer = "undecidable"
    reason = (target.get("detail") or base.get("detail") or "") if layer != "works" else ""
    judged = Judged(layer, category if layer == "break" else "", reason, base, target, None, query)
    if layer == "break":
        judged.guard = absorbing_guard(tp.guards, target)
    return judged


def found_by(tp: Touchpoint, category: str, findings: list[dict[str, Any]]) -> list[str]:
    """Fingerprints of the new errors on the touchpoint's file and line whose kind matches,
    and of the failing imports that list the line as a use of the name they bind (the tool
    folds `Markup(value)` after a failing `from jinja2.utils import Markup` into the import's
    finding, "also used at: line 97": one root cause, reported once)."""
    kinds = MATCHING[category]
    lines = (tp.line, tp.stmt_line)
    return sorted(
        f["fingerprint"]
        for f in findings
        if f.get("status") == "new"
        and f.get("severity") == "error"
        and (
            (f.get("kind") in kinds and f.get("line") in lines)
            or (f.get("kind") in IMPORT_KINDS and set(f.get("also_used_at") or ()) & set(lines))
        )
    )


# --------------------------------------------------------------------------- evidence


def snippet(query: dict[str, Any], answer: dict[str, Any]) -> str | None:
    """Plain Python that does what the query checks, for a person (or a test) to rerun in a
    venv: `from m import n`, the import and getattr steps, `inspect.signature(...).bind`."""
    op = query.get("op")
    if op == "import":
        return f"import {_dotted(query['module'])}"
    if op == "from":
        return f"from {_dotted(query['module'])} import {_dotted(query['name'])}"
    module = answer.get("module")
    if not module:
        return None
    lines = ["import importlib, inspect", f"obj = importlib.import_module({module!r})"]
    parts = query["chain"].split(".")
    for part in parts[len(module.split(".")) :]:
        lines.append(f"obj = getattr(obj, {bare(part)!r})")
        if "()" in part:
            lines.append("assert isinstance(obj, type)  # an instance: looked up on its class")
    if op == "call":
        count = int(query["shape"]["positional"]) + (1 if answer.get("self_added") else 0)
        keywords = list(query["shape"]["keywords"])
        lines.append(
            f"inspect.signature(obj, follow_wrapped=False).bind(*[None] * {count}, "
            f"**dict.fromkeys({keywords!r}))"
        )
    return "\n".join(lines)


def _dotted(text: str) -> str:
    if not all(p.isidentifier() for p in text.split(".")):
        raise ValueError(f"not a dotted name: {text!r}")
    return text


def summary(answer: dict[str, Any]) -> dict[str, Any]:
    keep = ("status", "step", "detail", "exc", "bind", "parameter", "signature", "absorbed",
            "compiled", "hook", "dynamic", "warnings", "module", "name", "self_added")  # fmt: skip
    return {k: answer[k] for k in keep if k in answer and answer[k] not in (None, [], {})}
