class Model:
    def __init__(self, config, dtype=None):
        self.config = config


class Trainer:
    def __init__(self, model, args=None):
        self.model = model
