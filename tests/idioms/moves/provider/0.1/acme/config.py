def load(path, strict=False):
    return path


def dump(data):
    return data
