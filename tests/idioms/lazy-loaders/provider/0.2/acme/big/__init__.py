import sys
from typing import TYPE_CHECKING

__version__ = "0.2"

_import_structure = {
    "models": ["Model"],
    "tokens": [],
}
_import_structure["tokens"].extend(["Tokenizer"])
_import_structure["models"].append("Trainer")

if TYPE_CHECKING:
    from .models import Model
else:
    from acme.big._lazy_module import _LazyModule

    sys.modules[__name__] = _LazyModule(
        __name__, globals()["__file__"], _import_structure, extra_objects={"__version__": __version__}
    )
