import acme


def probe_identity():
    return acme.ident(1, b=2)


def probe_wraps():
    return acme.wrapped(1, b=2)


def probe_update_wrapper():
    return acme.updated_fn(1, b=2)


def probe_forwarder_without_wraps():
    return acme.forwarded(1, b=2)


def probe_conditional_return():
    return acme.conditional(1, b=2)


def probe_class_decorator_instance():
    return acme.traced_by_class(1, b=2)


def probe_partial_of_a_decorator():
    return acme.traced_by_partial(1, b=2)


def probe_lru_cache():
    return acme.cached(1, b=2)


def probe_contextmanager():
    with acme.session("s", timeout=2) as name:
        return name


def probe_renamed_keyword_still_accepted():
    return acme.resize(1, height=2)


def probe_renamed_keyword_new_name():
    return acme.resize(1, h=2)


def probe_positional_deprecation():
    return acme.plot(1, "red")


def probe_keyword_use_is_fine():
    return acme.plot(1, color="red")


def probe_wrapper_with_its_own_signature():
    return acme.hidden(1, 2)


def probe_registry_decorator_is_unknown():
    return acme.lookup("k", "extra")  # oracle: unknown


def probe_keyword_a_helper_of_the_wrapper_takes_out():
    from acme.hub import download

    return download("r", legacy_token="t")


def probe_keyword_dropped_by_the_helper_after_leaving_the_signature():
    from acme.hub import download

    return download("r", proxies=None)


def probe_keyword_neither_the_helper_nor_the_function_takes():
    from acme.hub import download

    return download("r", mirror="m")


def probe_old_keyword_a_factory_renames_on_a_constructor():
    from acme.kwarg import Trainer

    return Trainer(model=1, tokenizer="t")


def probe_new_keyword_a_factory_renames_to():
    from acme.kwarg import Trainer

    return Trainer(model=1, processing_class="t")


def probe_old_keyword_a_factory_renames_on_a_function():
    from acme.kwarg import encode

    return encode("x", tokenizer="t")


def probe_keyword_a_factory_deprecates_without_a_new_name():
    from acme.kwarg import pad

    return pad(1, max_size=3)


def probe_keyword_a_factory_does_not_know():
    from acme.kwarg import encode

    return encode("x", vocab="v")
