def run(a, b=1, old=2):
    return a
