"""A validating decorator whose helper takes legacy keywords out of **kwargs."""

import functools
import warnings


def _smooth(fn_name, kwargs):
    new_kwargs = kwargs.copy()  # do not mutate the caller's
    new_kwargs.pop("proxies", None)  # 0.2 drops proxies= (the function lost it)
    return new_kwargs


def validated(fn):
    @functools.wraps(fn)
    def inner(*args, **kwargs):
        kwargs = _smooth(fn_name=fn.__name__, kwargs=kwargs)
        return fn(*args, **kwargs)

    return inner


@validated
def download(repo, token=None):
    return repo
