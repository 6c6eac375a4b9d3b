"""A validating decorator whose helper takes legacy keywords out of **kwargs."""

import functools
import warnings


def _smooth(fn_name, kwargs):
    new_kwargs = kwargs.copy()  # do not mutate the caller's
    legacy = new_kwargs.pop("legacy_token", None)
    if legacy is not None:
        warnings.warn("legacy_token is deprecated, use token", FutureWarning, stacklevel=3)
        new_kwargs["token"] = legacy
    return new_kwargs


def validated(fn):
    @functools.wraps(fn)
    def inner(*args, **kwargs):
        kwargs = _smooth(fn_name=fn.__name__, kwargs=kwargs)
        return fn(*args, **kwargs)

    return inner


@validated
def download(repo, token=None, proxies=None):
    return repo
