# Maintainers: the one place the tool pauses Python's cyclic garbage collector.
#
# Owns: `collector_paused()`: the collector off for a stretch of work, what was alive before
# it frozen, both put back at its end. pipeline.audit() pauses it for one audit; the
# `drift-audit` script pauses it from the start of an audit command to its fast exit, so
# the end of a big run does not pay for a collection whose garbage the exit drops anyway.
# And `collect_in_pause()`: one collection inside a pause, where the caller knows a big
# heap of garbage lies behind it (pipeline.py: a provider release's griffe modules, once
# its verdicts are made, before the next release parses as many again).
# Takes: nothing. Gives: a context manager; nested ones leave the outer one's state alone.
#
# A big consumer's facts (transformers: ~10 million objects) are alive until the end of the
# scan: every collection of the old generation walks them again for nothing, which doubled
# the scan's CPU. Once the audit ends they are garbage in cycles (scopes and their uses): the
# first collection after the pause then walks and frees ~3.3 million objects, 1.6 s of a
# 19 s transformers run here, where an exit that follows (cli.script) needs none of it.
# With the collector off, the garbage of one stage also stays until the exit: nemo-toolkit
# 2.6.1 against transformers 5.0.0 and 4.57.6, on an empty memo, parses 1,698 modules of
# each release; both releases' modules alive at once peaked at 4.1 GB of RSS (an ecosystem
# audit, capped at 4 GiB of address space, ran out of it); collected between the two
# releases (9.3 million objects, 4.8 s), 1.9 GB.
# DRIFT_AUDIT_NO_GC_PAUSE=1 leaves the collector alone.
"""Python's cyclic collector paused for a stretch of work."""

from __future__ import annotations

import contextlib
import gc
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic collector off inside, what was alive before it frozen; both
    restored afterwards, so a caller's process (a batch of audits) collects as before.
    Inside another pause (the collector already off) it changes nothing."""
    if os.environ.get("DRIFT_AUDIT_NO_GC_PAUSE") or not gc.isenabled():
        yield
        return
    gc.freeze()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        gc.unfreeze()


def collect_in_pause() -> int:
    """One collection now, when the collector is off (paused here, or by the caller's
    process): the objects freed. Nothing when it is on: it collects by itself then."""
    if gc.isenabled():
        return 0
    return gc.collect()
