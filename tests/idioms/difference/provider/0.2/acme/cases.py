"""Classes whose unknown parts lie outside the provider: the same file in both releases."""

import unittest


class Case(unittest.TestCase):
    def runTest(self):
        pass


class Keyed:
    """Serves any key of the data it holds as an attribute."""

    def __init__(self, **data):
        self._data = data

    def __getattr__(self, name):
        try:
            return self.__dict__["_data"][name]
        except KeyError:
            raise AttributeError(name) from None
