"""Probes: a top-level package the distribution stops shipping (and ships again).

Without a baseline the tool cannot know that pkg_legacy was acme's: these probes are checked
release to release only, where a name the baseline shipped and the target does not is a
removed module, and a name no release ships is no site of the provider's at all."""

import acme


def probe_import_of_the_dropped_package():
    import pkg_legacy

    return pkg_legacy.run(1)  # oracle: differential


def probe_from_import_of_the_dropped_package():
    from pkg_legacy import run

    return run(1)  # oracle: differential


def probe_a_submodule_of_the_dropped_package():
    from pkg_legacy.tools import helper

    return helper(1)  # oracle: differential


def probe_a_package_no_release_ships():
    import pkg_never

    return pkg_never  # oracle: differential


def probe_the_package_every_release_ships():
    return acme.ok()
