"""acme 0.1 ships two top-level packages: acme and pkg_legacy."""


def ok():
    return 1
