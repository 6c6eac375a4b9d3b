def attrib(default=None, convert=None):
    return default


ib = attr = attrib
