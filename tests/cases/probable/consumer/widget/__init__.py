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


def on_a_parameter(frame):
    return frame.mad()  # expect: probable: a parameter nothing types


def on_a_parameter_rebound(frame):
    frame = frame.copy()
    return frame.mad()  # near-miss: not what the caller passed


def on_a_parameter_with_a_default(frame=None):
    return frame.mad()  # near-miss: the default is another value


def on_a_builtin_name(frame):
    return frame.append(1)  # near-miss: list has append


def on_a_consumer_name(frame):
    return frame.own()  # near-miss: the consumer defines own() itself


class Mine:
    def own(self):
        return 0

    def mad_of(self, frame):
        return frame.mad()  # expect: probable
