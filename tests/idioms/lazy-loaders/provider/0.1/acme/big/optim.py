class AdamW:
    def __init__(self, params, lr=0.001):
        self.params = params
