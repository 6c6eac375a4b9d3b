"""Loads records through acme's old and new module layout.

Decisions this case pins down:
- `from acme import old` names what was a module in 0.1 and is gone in 0.2: that is a
  removed-module finding (not removed-symbol), because the consumer's target was a module.
- A name whose import is reported is not reported again where it is used: the uses in
  legacy_things() carry no marker.
"""

from __future__ import annotations

import acme.formats  # near-miss: moved to acme.codecs.text, the old module re-exports it
import acme.old  # expect: removed-module
import acme.old as old_api  # expect: removed-module
import acme.util  # near-miss: a module that became a package
from acme import old  # expect: removed-module
from acme.formats import parse  # near-miss: re-exported by the old module
from acme.old import thing  # expect: removed-module


def legacy_things() -> list[object]:
    return [acme.old.thing(), old_api.thing(), old.thing(), thing()]


def parse_record(text: str = "a=1") -> dict[str, str]:
    return parse(text)  # near-miss


def render_record() -> str:
    return acme.formats.render({"k": "v"})  # near-miss


def slug() -> str:
    return acme.util.slugify("Hello World")  # near-miss
