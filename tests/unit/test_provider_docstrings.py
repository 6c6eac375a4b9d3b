"""docstrings.notes: what each deprecation note of a docstring is about."""

from __future__ import annotations

import inspect

import pytest

from auditor.provider.docstrings import Notes, notes

NUMPYDOC_ENTRY = """
Convert.

Parameters
----------
arg : str
    What to convert.
infer : bool, default False
    Guess the format.

    .. deprecated:: 2.0.0
        Passing it has no effect.

Returns
-------
str
"""

GOOGLE_ENTRY = """
Open.

Args:
    host: where.
    retries (int): how many times.

        .. deprecated:: 0.2
            Use timeout.

Returns:
    A connection.
"""

NAMED_AT_THE_TOP = """
Read.

.. deprecated:: 0.2
    The ``squeeze`` keyword is deprecated.
"""

WHOLE = """
The old entry point.

.. deprecated:: 0.2
    Use ``new``, which takes the same ``x`` parameter.
"""

WHOLE_UNNAMED = """
Old.

.. deprecated:: 1.0
    Use something else.

Parameters
----------
x : int
"""

SINCE_IN_ENTRY = """
Parameters
----------
text : str
mode : str
    How to render. Deprecated since 0.2.
"""

SINCE_AT_THE_TOP = """
Render text. Deprecated since 0.2.
"""

DEPRECATED_PARAGRAPH = """
Deprecated: use new() instead.
"""


@pytest.mark.parametrize(
    ("text", "params", "expected"),
    [
        (NUMPYDOC_ENTRY, ["arg", "infer"], Notes(False, ("infer",))),
        (GOOGLE_ENTRY, ["host", "retries"], Notes(False, ("retries",))),
        (NAMED_AT_THE_TOP, ["path", "squeeze"], Notes(False, ("squeeze",))),
        (WHOLE, ["x"], Notes(True)),
        (WHOLE_UNNAMED, ["x"], Notes(True)),
        (SINCE_IN_ENTRY, ["text", "mode"], Notes(False, ("mode",))),
        (SINCE_AT_THE_TOP, ["text"], Notes(False)),
        (DEPRECATED_PARAGRAPH, [], Notes(True)),
    ],
    ids=[
        "numpydoc-entry",
        "google-entry",
        "named-at-the-top",
        "whole-naming-a-parameter-without-saying-it-is-deprecated",
        "whole-before-the-parameters",
        "since-in-an-entry",
        "since-at-the-top-is-nothing",
        "deprecated-paragraph",
    ],
)
def test_a_note_is_about_what_it_sits_under_or_names(
    text: str, params: list[str], expected: Notes
) -> None:
    assert notes(inspect.cleandoc(text), params) == expected


def test_an_entry_the_function_does_not_take_counts_only_with_kwargs() -> None:
    text = inspect.cleandoc(NUMPYDOC_ENTRY)
    assert notes(text, ["arg"]) == Notes(False)
    assert notes(text, ["arg"], catch_all=True) == Notes(False, ("infer",))
