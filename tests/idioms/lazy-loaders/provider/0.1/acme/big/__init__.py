import sys
from typing import TYPE_CHECKING

__version__ = "0.1"

_import_structure = {
    "models": ["Model", "Trainer"],
    "tokens": [],
}
_import_structure["tokens"].append("Tokenizer")
_import_structure["optim"] = ["AdamW"]

if TYPE_CHECKING:
    from .models import Model
else:
    from acme.big._lazy_module import _LazyModule

    sys.modules[__name__] = _LazyModule(
        __name__, globals()["__file__"], _import_structure, extra_objects={"__version__": __version__}
    )
