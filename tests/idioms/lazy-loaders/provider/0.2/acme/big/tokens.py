class Tokenizer:
    def __init__(self, vocab):
        self.vocab = vocab
