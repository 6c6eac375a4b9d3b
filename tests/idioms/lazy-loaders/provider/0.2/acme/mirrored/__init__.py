from typing import TYPE_CHECKING

from acme._lazy import LazyModule, scan_structure

if TYPE_CHECKING:
    from .legacy_tools import *  # noqa: F403
    from .tools import *  # noqa: F403
else:
    import sys

    sys.modules[__name__] = LazyModule(__name__, __file__, scan_structure(__file__))
