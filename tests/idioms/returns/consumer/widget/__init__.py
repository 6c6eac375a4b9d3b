import acme


def probe_a_factory_s_result_called():
    return acme.make_client("u").send(1, timeout=2)


def probe_a_factory_s_local_result():
    return acme.make_configured("u").send(1, timeout=2)


def probe_a_method_gone_from_a_factory_s_result():
    return acme.make_client("u").close()


def probe_a_factory_method_s_result():
    return acme.Factory().build().send(1, timeout=2)


def probe_a_factory_of_two_classes():
    return acme.make_either(True).send(1, timeout=2)  # oracle: unknown


def probe_a_factory_that_may_return_none():
    return acme.make_maybe(True).send(1, timeout=2)  # oracle: unknown


def probe_overload_variants_that_agree():
    return acme.connect("u").send(1, timeout=2)


def probe_overload_variants_that_differ_kept_keyword():
    # oracle: gap (Python decides this; the tool leaves it undecided today)
    return acme.open_any("server").send(1, timeout=2)


def probe_overload_variant_chosen_by_a_literal():
    return acme.open_any("client").send(1, timeout=2)  # oracle: unknown


def probe_overload_variants_that_agree_but_for_none():
    return acme.reindex(1).send(1, timeout=2)


def probe_overload_variant_that_returns_none_used():
    return acme.reindex(1, inplace=True).send(1)  # oracle: unknown
