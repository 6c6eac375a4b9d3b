"""Gallery previews. Audited without a baseline, so every break is reported as new."""

from __future__ import annotations

from acme.thumbs import crop, thumbnail


def preview() -> bytes:
    return thumbnail("cat.png", quality=70)  # expect: unexpected-keyword


def preview_small() -> bytes:
    return thumbnail("cat.png", size=64)  # near-miss


def square() -> bytes:
    # broken against 0.1 as well; with no baseline it is still "new"
    return crop("cat.png")  # expect: missing-argument


def square_box() -> bytes:
    return crop("cat.png", (0, 0, 64, 64))  # near-miss
