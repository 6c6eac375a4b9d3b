"""Run every probe of an idiom's consumer against one provider version; print the outcomes.

Usage: python run_probes.py CONSUMER_ROOT PROVIDER_ROOT  (both put first on sys.path)

A probe is a function named `probe_*` in any module of the consumer package `widget`; each
does one thing with the provider (an import, a call, an attribute read). The outcome of each,
as JSON on stdout, keyed by `module.probe`: `ok`, `warn` (it ran, and the provider warned:
DeprecationWarning, FutureWarning or PendingDeprecationWarning), or the exception class that
escaped it (`TypeError`, `AttributeError`, `ImportError`, ...). An exception raised to wrap
another (`raise RuntimeError(...) from e`) counts as the one it wraps; a probe whose handler
returns the exception it caught ("returns an error", after logging it) failed with it. This
is the interpreter's side of tests/functional/test_oracle.py; it runs our own fixtures,
never audited code.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import sys
import warnings

WARNINGS = (DeprecationWarning, FutureWarning, PendingDeprecationWarning)


def outcome(probe: object) -> str:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = probe()  # type: ignore[operator]
        except Exception as exc:  # the point: which exception the interpreter raises
            return _name(exc)
    if isinstance(result, Exception):
        return _name(result)
    provider_warned = any(issubclass(w.category, WARNINGS) for w in caught)
    return "warn" if provider_warned else "ok"


def _name(exc: BaseException) -> str:
    """The exception's class; for one that wraps another, the wrapped one's."""
    cause = exc.__cause__ or exc.__context__
    if cause is not None and not isinstance(exc, (TypeError, AttributeError, ImportError)):
        return _name(cause)
    return type(exc).__name__


def main() -> None:
    consumer, provider = sys.argv[1], sys.argv[2]
    sys.path[:0] = [consumer, provider]
    import widget

    modules = [widget] + [
        importlib.import_module(info.name)
        for info in pkgutil.walk_packages(widget.__path__, "widget.")
    ]
    results = {}
    for module in modules:
        for name in sorted(vars(module)):
            if name.startswith("probe_") and callable(vars(module)[name]):
                results[f"{module.__name__}.{name}"] = outcome(vars(module)[name])
    json.dump(results, sys.stdout, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
