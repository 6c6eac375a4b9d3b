# Maintainers: how much an archive may make us inflate, read or write (zip and tar bombs).
#
# Owns: the limits (module constants, read at each use, so a test or an embedding program can
#       change them): the size of one source member, the total of a release's members, the
#       compression ratio, and the size of a zip central directory; `SizeBudget`, which adds
#       members up as an archive is read and raises ArchiveError past a limit.
# A member over the per-file limit is skipped with a warning (no source file is that big, the
# rest of the release is still worth reading); a ratio or total over its limit is an error:
# the archive is hostile or broken. Sizes are the ones the archive declares, and every reader
# stops inflating at the declared size, so a member cannot hide behind a small declaration.
"""Limits on what an archive may make us inflate (zip and tar bombs)."""

from __future__ import annotations

from auditor.errors import ArchiveError

MAX_FILE_BYTES = 64 << 20  # one source member, uncompressed
MAX_TOTAL_BYTES = 1 << 30  # every member read from one archive, uncompressed
MAX_RATIO = 200  # uncompressed / compressed, for a member (zip) or a whole stream (tar)
RATIO_FLOOR_BYTES = 1 << 20  # below this size the ratio is not checked (tiny files vary)
MAX_DIRECTORY_BYTES = 64 << 20  # a zip central directory fetched by ranges
MAX_DOWNLOAD_BYTES = 1 << 30  # one archive downloaded whole (a body past it is cut off)
MAX_PAGE_BYTES = 64 << 20  # one project page of the index (the biggest real ones are ~20 MB)

BOMB_HINT = "the archive looks like a decompression bomb; check where it comes from"


def too_big(size: int) -> bool:
    """Whether one member is over the per-file limit (it is then skipped with a warning)."""
    return size > MAX_FILE_BYTES


def check_ratio(name: str, filename: str, size: int, compressed: int) -> None:
    """ArchiveError when `size` bytes came from `compressed` at more than MAX_RATIO to one."""
    if size > RATIO_FLOOR_BYTES and size > MAX_RATIO * max(compressed, 1):
        ratio = size // max(compressed, 1)
        raise ArchiveError(
            f"{name} in {filename} inflates {_mib(compressed)} to {_mib(size)}: a compression "
            f"ratio of {ratio}:1, over the limit of {MAX_RATIO}:1",
            hint=BOMB_HINT,
        )


class SizeBudget:
    """The members of one archive, added up as they are read."""

    def __init__(self, filename: str) -> None:
        self.filename = filename
        self.total = 0

    def add(self, size: int) -> None:
        """Count `size` more uncompressed bytes; ArchiveError past MAX_TOTAL_BYTES."""
        self.total += max(size, 0)
        if self.total > MAX_TOTAL_BYTES:
            raise ArchiveError(
                f"{self.filename} holds more than {_mib(MAX_TOTAL_BYTES)} uncompressed",
                hint=BOMB_HINT,
            )

    def check_stream(self, compressed: int) -> None:
        """For a stream inflated whole (a .tar.gz): the ratio of everything so far."""
        check_ratio("the archive", self.filename, self.total, compressed)


def _mib(size: int) -> str:
    if size < 1 << 20:
        return f"{size} bytes"
    return f"{size / (1 << 20):.1f} MiB"
