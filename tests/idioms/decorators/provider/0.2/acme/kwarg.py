"""A keyword-renaming decorator factory: the names come from the factory's arguments, bound
at the decoration site (the shape of transformers' `deprecate_kwarg`)."""

import functools
import warnings

__version__ = (0, 2)


def deprecate_keyword(old_name, version, new_name=None, raise_if_both_names=False):
    removed = __version__ >= version
    when = "removed" if removed else "to be removed"

    def decorate(func):
        @functools.wraps(func)
        def wrapped(*args, **kwargs):
            message = None
            if old_name in kwargs and new_name in kwargs:
                if raise_if_both_names:
                    raise ValueError(f"both {old_name} and {new_name} given")
                message = f"{old_name} is ignored: {new_name} is given"
                kwargs.pop(old_name)
            elif old_name in kwargs and new_name is not None:
                message = f"{old_name} is deprecated ({when} in {version}): use {new_name}"
                kwargs[new_name] = kwargs.pop(old_name)
            elif old_name in kwargs:
                message = f"{old_name} is deprecated ({when} in {version})"
            if message is not None:
                warnings.warn(message, FutureWarning, stacklevel=2)
            return func(*args, **kwargs)

        return wrapped

    return decorate


class Trainer:
    @deprecate_keyword("tokenizer", new_name="processing_class", version=(5, 0), raise_if_both_names=True)
    def __init__(self, model=None, processing_class=None):
        self.model = model
        self.processing_class = processing_class


@deprecate_keyword("tokenizer", new_name="processing_class", version=(5, 0))
def encode(text, processing_class=None):
    return text


@deprecate_keyword("max_size", version=(1, 0))
def pad(x, max_size=None):
    return x
