"""An import fallback where both alternatives are gone in 0.2: importing this module fails."""

from __future__ import annotations

try:
    from acme.vanished import Thing  # expect: removed-module: no alternative resolves in 0.2
except ImportError:
    from acme.ancient import Thing  # expect-preexisting: removed-module: in neither version


def thing() -> Thing:
    return Thing()  # near-miss: Thing is reported at its import, not again here
