class Sheet:
    def spread(self):
        return 0

    def total(self):
        return 0


class Cell:
    def spread(self):
        return 0


def open_any(flag):
    if flag:
        return Sheet()
    return Cell()
