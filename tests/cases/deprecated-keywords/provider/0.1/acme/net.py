def fetch(url, timeout=None, retries=0, **options):
    return (url, timeout, retries, options)


def resolve(host, family=None):
    return (host, family)
