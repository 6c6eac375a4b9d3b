import acme


def probe_call_without_the_parameter_a_note_is_about():
    return acme.to_datetime("2020-01-01")


def probe_call_passing_the_parameter_a_note_is_about():
    return acme.to_datetime("2020-01-01", infer_datetime_format=True)


def probe_call_passing_another_parameter():
    return acme.to_datetime("2020-01-01", errors="coerce")


def probe_google_style_entry_note_without_it():
    return acme.connect("h", timeout=1)


def probe_google_style_entry_note_passing_it():
    return acme.connect("h", retries=3)


def probe_note_naming_a_keyword_without_it():
    return acme.load("p")


def probe_note_naming_a_keyword_passing_it():
    return acme.load("p", squeeze=True)


def probe_deprecated_since_in_an_entry_without_it():
    return acme.render("t")


def probe_deprecated_since_in_an_entry_passing_it():
    return acme.render("t", mode="rich")


def probe_note_about_the_whole_function():
    return acme.old_api(1)
