class Widget:
    def __init__(self, width, height=1):
        self.width = width


def make(kind, size=1):
    return kind
