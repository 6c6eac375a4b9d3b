import sys
from enum import Enum


class Color(Enum):
    RED = 1
    GREEN = 2


for _member in Color:
    globals()[_member.name] = _member

_OPS = {"add": 1}
globals().update({f"op_{name}": value for name, value in _OPS.items()})

for _name in ("alpha",):
    globals()[_name.upper()] = _name

setattr(sys.modules[__name__], "DEFAULT", "RED")
