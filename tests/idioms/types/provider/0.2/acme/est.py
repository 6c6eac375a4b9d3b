class Helper:
    def transform(self, x):
        return x


class Settable:
    def set_params(self, **params):
        for key, value in params.items():
            setattr(self, key, value)
        return self


class Estimator(Settable):
    def __init__(self, alpha=1.0):
        self.alpha = alpha

    def fit(self, data):
        self.weights_ = list(data)
        self.helper_ = Helper()
        return self


class Plain:
    def fit(self, data):
        self.helper_ = Helper()
        self.count_ = len(data)
        object.__setattr__(self, "done_", True)
        return self
