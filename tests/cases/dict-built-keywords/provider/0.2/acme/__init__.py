class Model:
    def __init__(self, x, depth=2):
        self.x = x


def build(x, depth=2):
    return x
