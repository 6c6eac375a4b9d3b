"""One probe per repair. `# fix: safe` must be repaired by --fix, `# fix: unsafe` only with
--unsafe-fixes, `# fix: none` never (nothing mechanical repairs it)."""

import acme


def probe_moved_name():
    from acme.utils import cdiv, clamp  # fix: safe (cdiv moved to acme.utils.math)

    return cdiv(7, 2) + clamp(5, 0, 3)


def probe_moved_name_aliased():
    from acme.utils import cdiv as ceil_div  # fix: safe (the alias is kept)

    return ceil_div(9, 4)


def probe_keyword_only():
    return acme.build("m", 16, "auto")  # fix: safe


def probe_removed_keyword_at_its_default():
    return acme.run(
        "m",
        verbose=False,  # fix: safe (the old default: dropping it changes nothing)
    )


def probe_renamed_by_the_provider():
    return acme.start("job", timeout=5)  # fix: safe (acme maps timeout= onto deadline=)


def probe_removed_keyword_with_a_value():
    return acme.run("m", verbose=True)  # fix: none (dropping True changes behaviour)


def probe_guessed_rename():
    return acme.stream([1, 2], window=8)  # fix: unsafe (window -> size, from the names)


def probe_renamed_in_its_own_slot():
    # iter -> epochs: same position, kind and default; a drop would train 5 epochs, not 3
    trained = acme.train([1], 50, iter=3)  # fix: unsafe (renames, never drops iter=)
    assert trained == (50, 3), trained
    return trained


def probe_new_required_parameter():
    return acme.plan(["j"])  # fix: none (no value for budget is invented)
