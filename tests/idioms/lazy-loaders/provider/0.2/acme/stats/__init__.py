import lazy_loader as lazy

_CORE = ["mean"]

__getattr__, __dir__, __all__ = lazy.attach(
    __name__,
    submodules=["tests"],
    submod_attrs={"_core": _CORE, "_spread": ["std"]},
)
