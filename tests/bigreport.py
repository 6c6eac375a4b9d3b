"""A large synthetic audit report, for the HTML page's scale: the browser test and
benchmarks/bench_html.py build it with `big_report(n)`.

The findings look like a real audit of a wide provider (the issue's case: a torch baseline
with thousands of findings): long signatures of 30 parameters, seven lines of source
around each site, two call chains, a mix of kinds, severities and statuses over a few
hundred files and symbols, sorted in report order. Deterministic: no randomness.
"""

from __future__ import annotations

from auditor.kinds import Kind
from auditor.model import ConsumerInfo, Finding, Location, ProviderInfo, Report, Stats, Status

KINDS = (
    Kind.UNEXPECTED_KEYWORD,
    Kind.MISSING_ARGUMENT,
    Kind.REMOVED_SYMBOL,
    Kind.POSITIONAL_SHIFT,
    Kind.DEPRECATED,
    Kind.CHANGED_DEFAULT,
    Kind.CHANGED_RETURN,
)
STATUSES = (Status.PREEXISTING, Status.PREEXISTING, Status.NEW, Status.BASELINED)


def _signature(n: int, extra: str) -> str:
    params = ", ".join(f"param_{i}: Optional[dict[str, int]] = None" for i in range(n))
    return f"(self, config: ModelConfig, {extra}{params}) -> ModelOutput"


def _finding(i: int, files: int, symbols: int) -> Finding:
    path = f"widget/module_{i % files:03d}.py"
    line = 10 + (i // files) * 12
    symbol = f"acme.nn.modules.layer_{i % symbols:03d}.LayerWithAVeryLongName{i % symbols}"
    kind = KINDS[i % len(KINDS)]
    source = tuple(
        (n, f"        value_{n} = {symbol.rsplit('.', 1)[-1]}(config, keyword_{n}=value)  # c")
        for n in range(line - 3, line + 4)
    )
    return Finding(
        kind=kind,
        location=Location(path, line, 17, line, 40),
        scope=f"widget.module_{i % files:03d}.Builder.build_{i}",
        symbol=symbol,
        parameter=f"keyword_{i % 9}",
        broken_in=("2.5.0",),
        baseline_signature=_signature(30, f"keyword_{i % 9}: int = 0, "),
        target_signature=_signature(30, ""),
        reached_from=(
            ("widget", "widget.cli.main", f"widget.module_{i % files:03d}.Builder.build_{i}"),
            ("widget.api", f"widget.module_{i % files:03d}.Builder.build_{i}"),
        ),
        suggestion=f"drop keyword_{i % 9}=...; it was removed",
        status=STATUSES[i % len(STATUSES)],
        source=source,
        first_audited="2.5.0",
    )


def big_report(n: int = 3000, *, files: int = 300, symbols: int = 400) -> Report:
    """An audit report of `n` findings over `files` files and `symbols` provider symbols."""
    findings = sorted((_finding(i, files, symbols) for i in range(n)), key=lambda f: f.sort_key)
    return Report(
        consumer=ConsumerInfo("widget", "1.0", "folder"),
        provider=ProviderInfo("acme", "2.4.1", ("2.5.0",)),
        findings=tuple(findings),
        stats=Stats(files_scanned=files, call_sites=n, provider_modules_loaded=0, seconds=1.0),
        providers=(ProviderInfo("acme", "2.4.1", ("2.5.0",)),),
    )
