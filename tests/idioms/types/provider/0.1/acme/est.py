class Helper:
    def transform(self, x, scale=1):
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
        self.coef_ = list(data)
        self.helper_ = Helper()
        return self


class Plain:
    def fit(self, data):
        self.helper_ = Helper()
        self.n_ = len(data)
        object.__setattr__(self, "fitted_", True)
        return self
