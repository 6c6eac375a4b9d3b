import acme


def probe_annotations_of_a_nested_def_are_evaluated():
    def inner(x: acme.Legacy) -> acme.Legacy:
        return x

    return inner(1)
