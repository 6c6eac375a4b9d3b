"""A table of type names built at import time from data the analysis cannot read, then
with the builtin names taken out (the shape of numpy's core/_type_aliases.py)."""

import json
import pathlib

all_types = {}
_info = {}
for _key in json.loads(pathlib.Path(__file__).with_name("types.json").read_text()):
    _info[_key.lower()] = _key


def _add_types():
    for name, info in _info.items():
        all_types[name] = info


def _set_up_aliases():
    for alias, t in [("float64", "double"), ("bool_", "bool"), ("object_", "object")]:
        all_types[alias] = all_types[t]
    for t in ["object", "int", "float", "bool"]:
        try:
            del all_types[t]
        except KeyError:
            pass


_add_types()
_set_up_aliases()
