import acme


def probe_method_the_target_drops():
    # oracle: gap (Python decides this; the tool leaves it undecided today)
    df = acme.DataFrame({"a": [1]})
    return df.append(1)  # oracle: differential


def probe_inherited_method_the_target_drops():
    # oracle: gap (Python decides this; the tool leaves it undecided today)
    df = acme.DataFrame({"a": [1]})
    return df.mad()  # oracle: differential


def probe_method_dropped_on_an_annotated_parameter():
    # oracle: gap (Python decides this; the tool leaves it undecided today)
    def use(series: acme.Series):
        return series.iteritems()  # oracle: differential

    return use(acme.Series({"a": [1]}))


def probe_method_read_on_the_class():
    return acme.DataFrame.append


def probe_column_read_as_an_attribute():
    # oracle: gap (Python decides this; the tool leaves it undecided today)
    return acme.DataFrame({"a": [1]}).a


def probe_attribute_neither_release_defines():
    return acme.DataFrame({"a": [1]}).nothing  # oracle: unknown


def probe_method_both_define():
    return acme.DataFrame({}).head()


def probe_attribute_set_by_object_setattr():
    return acme.DataFrame({}).name


def probe_attribute_set_by_a_literal_method_name():
    # oracle: gap (Python decides this; the tool leaves it undecided today)
    return acme.DataFrame({}).set_axis(0, [1]).index


def probe_method_installed_by_a_loop_over_a_literal_tuple():
    # oracle: gap (Python decides this; the tool leaves it undecided today)
    return acme.DataFrame({}).ne(1)


def probe_method_that_moved_into_the_loop():
    # oracle: gap (Python decides this; the tool leaves it undecided today)
    return acme.DataFrame({}).ge(1)


def probe_method_dropped_from_the_loop():
    # oracle: gap (Python decides this; the tool leaves it undecided today)
    return acme.DataFrame({}).lt(1)  # oracle: differential


def probe_method_installed_from_a_dict_s_keys():
    # oracle: gap (Python decides this; the tool leaves it undecided today)
    return acme.DataFrame({}).add(1)


def probe_method_installed_by_a_classmethod():
    # oracle: gap (Python decides this; the tool leaves it undecided today)
    return acme.DataFrame({}).total()


def probe_method_installed_by_a_classmethod_assignment():
    # oracle: gap (Python decides this; the tool leaves it undecided today)
    return acme.DataFrame({}).product()


def probe_method_installed_on_a_plain_class():
    # oracle: gap (Python decides this; the tool leaves it undecided today)
    return acme.Plain().ne(1)


def probe_method_dropped_from_the_loop_on_a_plain_class():
    # oracle: gap (Python decides this; the tool leaves it undecided today)
    return acme.Plain().lt(1)


def probe_delegating_getattr_keeps_everything_unknown():
    return acme.Proxy({}).old()  # oracle: unknown
