class Series:
    def total(self):
        return 0


class Frame:
    def items(self):
        return []


class Store:
    def lookup(self, key):
        return key


def load(flag):
    if flag:
        return Frame()
    return Series()
