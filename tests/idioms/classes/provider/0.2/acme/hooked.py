"""Classes whose __init_subclass__ and setattr calls add attributes at run time."""

METHODS = ("fit", "score")


class Requester:
    def __init_subclass__(cls, **kwargs):
        requests = cls._defaults()  # a reading: its value is used
        for method in METHODS:
            setattr(cls, f"set_{method}_request", requests)
        super().__init_subclass__(**kwargs)

    @classmethod
    def _defaults(cls):
        return {}


class Estimator(Requester):
    def fit(self, data):
        return self


class Artist:
    def update(self, props):
        for key, value in props.items():
            if key == "axes":
                setattr(self, key, value)
        return self
