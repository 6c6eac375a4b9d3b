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
