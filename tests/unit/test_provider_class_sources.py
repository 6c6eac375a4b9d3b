"""A class's source read once (api._ClassSource) answers what the per-name search answered.

`_assigned_anywhere` used to compile a pattern per attribute name and search the class's
source with it (and parse the source again for its `setattr(self, ...)` calls) for every
lookup; now the names a class assigns to `self` are found once. For random sources made of
the tricky pieces (annotations, `==`, a longer name, a line break, `myself.`, non-ASCII
names), both must give the same answer for every name.
"""

from __future__ import annotations

import random
import re
from typing import Any

from auditor.provider import hooks
from auditor.provider.members import _ClassSource

PIECES = (
    "self.a = 1\n", "self.ab = 2\n", "self.a: int = 3\n", "self.a : T=4\n", "self.b == 5\n",
    "self.a: self.b = 6\n", "myself.c = 7\n", "self.c\n= 8\n", "self.d: int\n= 9\n",
    "x = self.e\n", "self.é = 10\n", "self.f=11\n", "self.f==12\n", "self.g: d[k] = 13\n",
    "setattr(self, 'h', 1)\n", "setattr(self, name, 2)\n",
    "if k == 'i':\n    setattr(self, k, 3)\n",
    "  self.a2 = (\n", "self.a.b = 14\n", "(self).j = 15\n", "self.k+= 16\n", "self.l := 17\n",
)  # fmt: skip
NAMES = ("a", "ab", "b", "c", "d", "e", "é", "f", "g", "h", "i", "j", "k", "l", "a2", "zz", "a.b")


def _searched(source: str, name: str) -> bool:
    """The per-name search, as _assigned_anywhere made it for one class."""
    stored = re.compile(rf"\bself\.{re.escape(name)}\s*(?::[^=\n]*)?=(?!=)")
    if stored.search(source):
        return True
    return "setattr(" in source and hooks.self_setattrs(source).may_add(name)


def test_read_once_answers_what_each_search_answered() -> None:
    rng = random.Random(7)
    klass: Any = object()
    for _ in range(300):
        source = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 6)))
        read = _ClassSource(klass, source)
        for name in NAMES:
            assert read.assigns(name) == _searched(source, name), (source, name)
