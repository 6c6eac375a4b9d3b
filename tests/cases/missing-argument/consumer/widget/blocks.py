"""Block bookkeeping."""

from __future__ import annotations

import acme.blocks

SIZES: tuple[int, int] = (4, 16)
OPTIONS: dict[str, object] = {"block_size": 16}


def grab() -> list[int]:
    return acme.blocks.allocate(4)  # expect: missing-argument


def grab_sized() -> list[int]:
    return acme.blocks.allocate(4, block_size=16)  # near-miss: passes the new parameter


def grab_from_options() -> list[int]:
    return acme.blocks.allocate(4, **OPTIONS)  # near-miss: **OPTIONS may supply it


def grab_from_sizes() -> list[int]:
    return acme.blocks.allocate(*SIZES)  # near-miss: *SIZES may supply it


def give_back() -> int:
    return acme.blocks.release([1, 2])  # expect: missing-argument


def give_back_unpacked() -> int:
    # *args can never fill a keyword-only parameter: still certain
    return acme.blocks.release(*[[1, 2]])  # expect: missing-argument


def start_over() -> None:
    acme.blocks.reset()  # near-miss: the new `hard` has a default
