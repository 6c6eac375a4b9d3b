def attrib(default=None, converter=None):
    return default


ib = attr = attrib
same = ib
