"""Names bound at the top level by statements griffe does not record as attributes."""

import enum


class Linting(enum.IntFlag):
    COLLECT = 1
    WARN = 2


COLLECT, WARN = tuple(Linting)
first, *rest = (1, 2, 3)
[listed, (nested, deeper)] = (1, (2, 3))
for loop_name in ("a", "b"):
    pass
with open(__file__) as opened:
    pass
if (walrus := len(rest)) > 0:
    pass
counter = 0
counter += 1
