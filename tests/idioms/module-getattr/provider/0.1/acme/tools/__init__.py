"""A package whose __getattr__ the analysis cannot follow (a `while` loop)."""

_registry = {"spare": 1}


def __getattr__(name):
    while name in _registry:
        return _registry[name]
    raise AttributeError(name)
