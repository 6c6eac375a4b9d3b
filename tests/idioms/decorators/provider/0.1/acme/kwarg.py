"""Before the rename: the old keyword names are the parameters."""


class Trainer:
    def __init__(self, model=None, tokenizer=None):
        self.model = model
        self.tokenizer = tokenizer


def encode(text, tokenizer=None):
    return text


def pad(x, max_size=None):
    return x
