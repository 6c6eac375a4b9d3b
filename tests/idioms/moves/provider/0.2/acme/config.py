def dump(data):
    return data
