def assert_close(a, b, tol=1e-9):
    return abs(a - b) <= tol
