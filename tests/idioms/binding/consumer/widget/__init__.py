import acme


def probe_multiple_values_after_a_shift():
    return acme.swap(1, y=2)


def probe_renamed_parameter_in_its_slot():
    return acme.rename("p", "w")


def probe_moved_parameter_by_position_still_runs():
    return acme.move(1, 2)


def probe_conditional_deprecation_passed():
    return acme.maybe_old(1, legacy=True)


def probe_conditional_deprecation_not_passed():
    return acme.maybe_old(1)


def probe_init_override_the_provider_never_calls():  # oracle: differential
    class Mine(acme.Plain):
        def __init__(self, size):
            super().__init__(size)

    return Mine(3)


def probe_init_override_the_provider_reconstructs():  # oracle: differential
    class Mine(acme.Cloning):
        def __init__(self, size):
            super().__init__(size)

    return Mine(3).copy()


def probe_keyword_forwarded_through_two_kwargs_hops():
    from acme.params import argument

    return argument("x", completion=len)


def probe_keyword_forwarded_and_still_taken():
    from acme.params import argument

    return argument("x", default=1)


def probe_keyword_taken_out_before_forwarding():
    from acme.params import Custom, argument

    return argument("x", cls=Custom, completion=len)


def probe_class_constructor_forwarding_to_its_base():
    from acme.params import Argument

    return Argument(["x"], completion=len)


def probe_forwarding_not_followed_when_the_dict_changes():  # oracle: unknown
    # Python fails at 0.2 (completion reaches Parameter); the dict is changed first, so the
    # analysis does not follow where its keys go
    from acme.params import loose

    return loose("x", completion=len)


def probe_dict_display_spread_into_a_call():
    from acme.params import Parameter

    options = {"completion": None}
    return Parameter(["x"], **options)


def probe_setdefault_then_spread(**kwargs):
    from acme.params import Parameter

    kwargs.setdefault("completion", None)
    return Parameter(["x"], **kwargs)


def probe_key_removed_before_the_spread():
    from acme.params import Parameter

    options = {"completion": None, "default": 1}
    options.pop("completion")
    return Parameter(["x"], **options)


def probe_key_added_in_a_branch_not_taken():
    # oracle: gap (Python decides this; the tool leaves it undecided today)
    from acme.params import Parameter

    options = {}
    if acme.__name__ == "not acme":
        options["completion"] = None
    return Parameter(["x"], **options)


def probe_keyword_for_a_class_a_wrapper_picks_by_a_key_it_adds():
    from acme.params import group

    return group("g", chain=True)


def probe_wrong_keyword_through_a_class_picked_by_an_added_key():  # oracle: unknown
    # Python fails (Group hands `nonsense` on to Command); the callee of command() is chosen
    # by the `cls` key group() adds, so the analysis stops following there
    from acme.params import group

    return group("g", nonsense=1)


def probe_keyword_goes_past_a_mixin_without_init():
    from acme.fields import ManyField

    return ManyField("site", blank=True)


def probe_wrong_keyword_past_a_mixin_without_init():
    from acme.fields import ManyField

    return ManyField("site", nonsense=True)
