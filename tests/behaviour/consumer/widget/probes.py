"""Probes: each does one thing with acme; the test runs them against 0.1 and 0.2.

`# expect: kind` marks a probe whose behaviour changes and that drift-audit must flag;
`# oracle: silent` marks one whose result changes but that drift-audit leaves alone by
design (the result is only passed on or returned: nothing here relies on its shape).
"""

import acme


def probe_subscripted():
    return acme.top_k([3, 1, 2])[0]  # expect: changed-return


def probe_iterated():
    return [s for s in acme.top_k([3, 1, 2])]  # expect: changed-return


def probe_measured():
    return len(acme.top_k([3, 1, 2]))  # expect: changed-return


def probe_unpacked():
    first, second = acme.top_k([3, 1, 2])  # expect: changed-return
    return first + second


def probe_through_a_local():
    found = acme.top_k([3, 1, 2])  # expect: changed-return
    return found[-1]


def probe_ignored():
    acme.top_k([3, 1, 2])  # near-miss: the result is not used
    return "done"


def probe_passed_on():
    return str(acme.top_k([3, 1, 2]))  # oracle: silent


def probe_spelling_only():
    return acme.best([1, 5])  # near-miss: Optional[int] is int | None


def probe_spelling_quoted():
    return sorted(acme.pairs([1, 2]))  # near-miss: "Dict[str, int]" is dict[str, int]


def probe_method_spelling():
    return acme.Pool(size=4).take(2)[0]  # near-miss: List[int] is t.List[int]


def probe_bool_default():
    return acme.load("p")["strict"]  # expect: changed-default


def probe_bool_passed():
    return acme.load("p", strict=False)["strict"]  # near-miss: passed explicitly


def probe_int_default():
    return acme.fetch(2)  # expect: changed-default


def probe_int_passed_by_position():
    return acme.fetch(2, 3)  # near-miss: retries passed by position


def probe_unchanged_default():
    return acme.window(3)  # near-miss: None both times


def probe_sentinel_default():
    return acme.mode(1)  # near-miss: a sentinel either way, opaque


def probe_constructor_default():
    return acme.Pool().size  # expect: changed-default


def probe_constructor_passed():
    return acme.Pool(size=4).size  # near-miss: passed


def probe_spread(**options):
    return acme.fetch(2, **options)  # oracle: silent (**options may pass retries)
