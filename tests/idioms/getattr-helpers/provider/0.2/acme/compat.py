"""A module whose __getattr__ a factory makes."""


def _deprecated_names(mapping):
    def __getattr__(name):
        if name in mapping:
            return mapping[name]
        raise AttributeError(name)

    return __getattr__


__getattr__ = _deprecated_names({"PI": 3.14})
