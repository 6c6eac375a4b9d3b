"""Instances whose attributes are written into their namespace as a dict."""


class Bag:
    def __init__(self, **fields):
        self.__dict__.update(fields)


class Record:
    def __init__(self, values):
        vars(self)[values[0]] = values[1]
