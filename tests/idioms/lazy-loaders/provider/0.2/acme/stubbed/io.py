def read(path):
    return path
