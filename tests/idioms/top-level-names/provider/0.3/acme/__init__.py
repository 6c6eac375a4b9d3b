"""acme 0.3 ships again two top-level packages: acme and pkg_legacy."""


def ok():
    return 1
