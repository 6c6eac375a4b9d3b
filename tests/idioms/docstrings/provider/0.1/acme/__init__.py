"""Before the deprecations: plain functions, plain docstrings."""


def to_datetime(arg, errors="raise", infer_datetime_format=False):
    """Convert an argument to a datetime.

    Parameters
    ----------
    arg : str
        What to convert.
    errors : str, default 'raise'
        What to do with what cannot be parsed.
    infer_datetime_format : bool, default False
        Guess the format from the first element.

    Returns
    -------
    str
    """
    return arg


def connect(host, timeout=None, retries=None):
    """Open a connection.

    Args:
        host: where to connect.
        timeout (float): seconds to wait.
        retries (int): how many times to try.
    """
    return host


def load(path, squeeze=False):
    """Read a table."""
    return path


def render(text, mode="plain"):
    """Render text.

    Parameters
    ----------
    text : str
    mode : str
        How to render.
    """
    return text


def old_api(x):
    """The old entry point."""
    return x
