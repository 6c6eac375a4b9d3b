class Model:
    def __init__(self, x, size=1, depth=2):
        self.x = x


def build(x, size=1, depth=2):
    return x
