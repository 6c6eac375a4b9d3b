"""Uses a provider module that does not parse in 0.2.

Decisions this case pins down:
- A site into a provider module that cannot be parsed is not checked, and says so: an
  error (unparsable-provider), never a pass and never `preexisting`.
- The uses of a name bound by such an import are folded into the import's finding.
- A module of the same release that parses is checked as usual.
"""

from __future__ import annotations

import acme  # near-miss: the package parses
from acme.fast import scale  # expect: unparsable-provider


def go() -> object:
    return acme.run(1, b=2), scale([1.0])  # near-miss: acme.run is checked; scale is folded
