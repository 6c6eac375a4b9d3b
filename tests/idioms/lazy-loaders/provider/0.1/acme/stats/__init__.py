import lazy_loader as lazy

__getattr__, __dir__, __all__ = lazy.attach(
    __name__,
    submodules=["tests"],
    submod_attrs={"_core": ["mean", "median"], "_spread": ["std"]},
)
