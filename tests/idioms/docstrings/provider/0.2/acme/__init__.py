"""Deprecation notes about one parameter, and one about a whole function.

The warnings are given through a helper, so only the docstrings say which parameter warns."""

import warnings

_DEFAULT = object()


def _deprecated_keyword(name):
    warnings.warn(f"{name} is deprecated and has no effect", FutureWarning, stacklevel=3)


def to_datetime(arg, errors="raise", infer_datetime_format=_DEFAULT):
    """Convert an argument to a datetime.

    Parameters
    ----------
    arg : str
        What to convert.
    errors : str, default 'raise'
        What to do with what cannot be parsed.
    infer_datetime_format : bool, default False
        Guess the format from the first element.

        .. deprecated:: 0.2
            A strict version of this argument is now the default, passing it has
            no effect.

    Returns
    -------
    str
    """
    if infer_datetime_format is not _DEFAULT:
        _deprecated_keyword("infer_datetime_format")
    return arg


def connect(host, timeout=None, retries=_DEFAULT):
    """Open a connection.

    Args:
        host: where to connect.
        timeout (float): seconds to wait.
        retries (int): how many times to try.

            .. deprecated:: 0.2
                Use timeout.
    """
    if retries is not _DEFAULT:
        _deprecated_keyword("retries")
    return host


def load(path, squeeze=_DEFAULT):
    """Read a table.

    .. deprecated:: 0.2
        The ``squeeze`` keyword is deprecated; call ``.squeeze()`` on the result.
    """
    if squeeze is not _DEFAULT:
        _deprecated_keyword("squeeze")
    return path


def render(text, mode=_DEFAULT):
    """Render text.

    Parameters
    ----------
    text : str
    mode : str
        How to render. Deprecated since 0.2: every text is plain.
    """
    if mode is not _DEFAULT:
        _deprecated_keyword("mode")
    return text


def old_api(x):
    """The old entry point.

    .. deprecated:: 0.2
        Use `to_datetime`.
    """
    _deprecated_keyword("old_api")
    return x
