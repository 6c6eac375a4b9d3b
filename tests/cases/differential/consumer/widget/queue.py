"""Drives acme.jobs. Some calls were already wrong against 0.1 (the baseline).

expect-preexisting: fails against the baseline 0.1 and the target 0.2 alike.
expect: binds against 0.1, fails against 0.2.
"""

from __future__ import annotations

import acme.jobs
from acme.jobs import never_existed  # expect-preexisting: removed-symbol


def resubmit() -> str:
    return acme.jobs.submit("nightly", retries=3)  # expect: unexpected-keyword


def submit_urgent() -> str:
    return acme.jobs.submit("nightly", priority=9)  # near-miss: fine in both


def cancel_with_reason() -> bool:
    return acme.jobs.cancel("j1", reason="stale")  # expect-preexisting: unexpected-keyword


def cancel_forced() -> bool:
    return acme.jobs.cancel("j1", force=True)  # near-miss: fine in both


def status_of_nothing() -> str:
    return acme.jobs.status()  # expect-preexisting: missing-argument


def status_twice() -> str:
    return acme.jobs.status("j1", "j2")  # expect-preexisting: too-many-positional


def status_verbose() -> str:
    return acme.jobs.status("j1", verbose=True)  # near-miss: broken in 0.1, fixed in 0.2


def purge_all() -> int:
    return acme.jobs.purge("default")  # expect: missing-argument


def purge_old() -> int:
    return acme.jobs.purge("default", older_than=7)  # near-miss: written for 0.2
