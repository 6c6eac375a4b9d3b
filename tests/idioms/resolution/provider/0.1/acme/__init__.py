import typing  # the stdlib module, bound in the package as `typing`

from acme._first import *
from acme._second import *

try:
    from acme._speedups import escape
except ImportError:
    from acme._native import escape

from acme._private_home import public_name

helpers = "a name that shadows the submodule helpers"
