def cdiv(a, b):
    return -(-a // b)
