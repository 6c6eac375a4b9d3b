"""What acme.load() returns is not annotated: a Frame or a Series, the tool cannot say."""

import acme


def spread(flag):
    return acme.load(flag).mad()  # expect: probable: only acme's classes had it


def pairs(flag):
    return acme.load(flag).iteritems()  # expect: probable


def still_there(flag):
    return acme.load(flag).total()  # near-miss: Series still has it


def builtin_name(flag):
    return acme.load(flag).items()  # near-miss: dict has items too


def another_class_has_it(flag):
    return acme.load(flag).lookup("k")  # near-miss: Store still has lookup


def private(flag):
    return acme.load(flag)._mad()  # near-miss: a private name is never reported
