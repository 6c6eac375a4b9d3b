class Sheet:
    def total(self):
        return 0


class Cell:
    pass


def open_any(flag):
    if flag:
        return Sheet()
    return Cell()
