def escape(s, quote=True):
    return s
