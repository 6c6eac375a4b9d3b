def connect(host, timeout=10):
    return (host, timeout)


def legacy():
    return "legacy"
