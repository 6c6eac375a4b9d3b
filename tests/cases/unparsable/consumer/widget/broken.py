"""A half-edited module: the scan reports it as unparsable and carries on."""

import acme.tasks


def launch(name):
    return acme.tasks.run(name, timeout=5))


def relaunch(name):
    # would be an unexpected keyword, but this file cannot be scanned at all
    return acme.tasks.run(name, retries=2)
