"""What the consumer catches decides whether a change breaks it."""

try:
    from acme.extras import helper  # near-miss: the module is gone, and that is caught
except ModuleNotFoundError:
    helper = None

try:
    from acme.api import legacy  # expect: removed-symbol
except ModuleNotFoundError:  # a missing name raises plain ImportError: not caught here
    legacy = None

import acme.api


def open_with_fallback(host):
    try:
        return acme.api.connect(host, timeout=5)  # near-miss: the TypeError is caught
    except TypeError:
        return acme.api.connect(host, deadline=5)  # near-miss: fallback for that very case


def open_catching_the_wrong_thing(host):
    try:
        return acme.api.connect(host, timeout=5)  # expect: unexpected-keyword
    except ValueError:
        return None
