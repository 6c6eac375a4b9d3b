class Trainer:
    def fit(self, model):
        return model


class Callback:
    def on_end(self, trainer: Trainer, logs=None):
        return None


def run(callback):
    return callback.on_end(Trainer())
