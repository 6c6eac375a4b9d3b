from acme.props import _api


def _check_versions():
    while True:  # a body the analysis does not follow, called at import time
        return None


_check_versions()


@_api.module_properties
class __getattr__:
    version = property(lambda self: "0.2")


def plain():
    return 1
