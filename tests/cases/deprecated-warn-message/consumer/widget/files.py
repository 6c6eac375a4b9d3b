"""Uses acme's file helpers. In 0.2 save() warns with a DeprecationWarning whose message
names the function with parentheses, as most such messages do: "save() is deprecated".
"""

from __future__ import annotations

from acme.files import save, write  # expect: deprecated (save)


def store() -> str:
    return save("p")  # expect: deprecated


def store_new() -> str:
    return write("p")  # near-miss
