"""Reaches acme.text.clean.normalize through every import form.

`strip_accents` is gone in 0.2: every call passing it must be found, whatever the import.
"""

from __future__ import annotations

import acme
import acme.text.clean
import acme.text.clean as clean_mod
from acme import text
from acme.text import clean
from acme.text.clean import normalize as norm


def via_package_reexport() -> str:
    return acme.normalize("Ä", strip_accents=True)  # expect: unexpected-keyword


def via_package_attributes() -> str:
    return acme.text.clean.normalize("Ä", strip_accents=True)  # expect: unexpected-keyword


def via_module_alias() -> str:
    return clean_mod.normalize("Ä", strip_accents=True)  # expect: unexpected-keyword


def via_from_module() -> str:
    return clean.normalize("Ä", strip_accents=True)  # expect: unexpected-keyword


def via_from_package() -> str:
    return text.clean.normalize("Ä", strip_accents=True)  # expect: unexpected-keyword


def via_function_alias() -> str:
    return norm("Ä", strip_accents=True)  # expect: unexpected-keyword


def local_from_import() -> str:
    from acme.text.clean import normalize

    return normalize("Ä", strip_accents=True)  # expect: unexpected-keyword


def local_import_as() -> str:
    import acme.text.clean as local_clean

    return local_clean.normalize("Ä", strip_accents=True)  # expect: unexpected-keyword


def lowercase_everywhere() -> list[str]:
    return [
        acme.normalize("A", lowercase=True),  # near-miss: `lowercase` is still there
        acme.text.clean.normalize("A", lowercase=True),  # near-miss
        clean_mod.normalize("A"),  # near-miss
        clean.normalize("A", lowercase=False),  # near-miss
        text.clean.normalize("A"),  # near-miss
        norm("A", lowercase=True),  # near-miss
    ]
