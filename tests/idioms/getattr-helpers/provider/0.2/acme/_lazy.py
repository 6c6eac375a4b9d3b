import importlib
import warnings

_MOVED = {"Widget": "acme.shapes"}


def lazy_attribute(name):
    if name in _MOVED:
        module = importlib.import_module(_MOVED[name])
        return getattr(module, name)
    if name.startswith("legacy_"):
        warnings.warn("legacy names go away", FutureWarning)
        return None
    raise AttributeError(name)
