def public_name(a, b=2):
    return a
