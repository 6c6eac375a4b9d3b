def connect(host, *, deadline=10):
    return (host, deadline)
