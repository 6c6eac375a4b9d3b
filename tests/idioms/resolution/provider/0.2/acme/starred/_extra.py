__all__ = ["added_at_run_time"]


def added_at_run_time():
    return 3
