from . import io
from ._shapes import circle
