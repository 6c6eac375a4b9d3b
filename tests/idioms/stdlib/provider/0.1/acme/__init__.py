"""Classes built on the standard library's, and names re-exported from it (version 0.1)."""

import collections
import enum
import unittest
from json import dumps
from textwrap import dedent
from urllib.parse import quote


class Case(unittest.TestCase):
    def runTest(self):
        pass

    def assertSame(self, a, b):
        return a is b

    def shortDescription(self):
        return "own"


class Table(dict):
    def lookup(self, key):
        return self.get(key)

    def copy(self):
        return Table(self)


class Failure(Exception):
    def __init__(self, message, code=1):
        super().__init__(message)
        self.code = code


class Colour(enum.Enum):
    RED = 1
    GREEN = 2


class Counts(collections.OrderedDict):
    pass


def label() -> str:
    return "acme"
