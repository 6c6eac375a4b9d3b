"""acme 0.1: what the consumer was written against."""


def run(model, retries=3, verbose=False):
    return model


def build(model, block, dtype):
    return (model, block, dtype)


def start(job, timeout=10):
    return (job, timeout)


def fetch(url, timeout=30):
    return url


def plan(jobs, limit=1):
    return jobs


def stream(items, window=4):
    return items


def train(data, size=100, iter=5):
    return (size, iter)
