"""Version 0.2: overrides the standard library still provides are dropped, one that it does
not provide is dropped too, and Failure's own constructor is gone (Exception's takes any)."""

import collections
import enum
import unittest
from json import dumps
from textwrap import dedent
from urllib.parse import quote


class Case(unittest.TestCase):
    def runTest(self):
        pass


class Table(dict):
    pass


class Failure(Exception):
    pass


class Colour(enum.Enum):
    RED = 1


class Counts(collections.OrderedDict):
    pass


def label() -> str:
    return "acme"
