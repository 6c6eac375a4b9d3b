from __future__ import annotations

import acme


def probe_postponed_annotations_of_a_nested_def():
    def inner(x: acme.Legacy) -> acme.Legacy:
        return x

    return inner(1)
