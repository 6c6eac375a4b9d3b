from acme.frame import Frame, Series, Store, load

__all__ = ["Frame", "Series", "Store", "load"]
