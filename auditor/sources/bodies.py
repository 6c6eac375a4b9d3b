# Maintainers: bodies read with a cap: gzip pages, and file:// downloads copied and hashed.
#
# Owns: decoding a gzip page without ever inflating past its limit, and copying a local
#       archive (a file:// index) into the cache while hashing it, refusing one that grows
#       past MAX_DOWNLOAD_BYTES while it is copied. Reads local files through files.py.
# Takes: chunks or a file:// URL, and where to write. Gives: bytes, or the sha256 written;
# FetchError when the body is corrupt or the file is missing.
"""Capped bodies for fetch.py: gzip pages and local downloads."""

from __future__ import annotations

import hashlib
from typing import IO, TYPE_CHECKING

from auditor.errors import FetchError
from auditor.files import open_regular
from auditor.sources import limits
from auditor.sources.specs import local_path
from auditor.sources.urls import NETWORK_HINT

if TYPE_CHECKING:
    from collections.abc import Iterable
    from pathlib import Path

CHUNK_BYTES = 1 << 20


def _gunzip(chunks: Iterable[bytes], url: str, limit: int) -> bytes:
    """A gzip body decoded, never to more than `limit` bytes (a small answer that inflates
    without end is refused as it grows, not after); FetchError when it is not gzip or ends
    early."""
    import zlib

    decoder = zlib.decompressobj(16 + zlib.MAX_WBITS)
    out: list[bytes] = []
    size = 0
    try:
        for chunk in chunks:
            piece = decoder.decompress(chunk, limit - size + 1)
            size += len(piece)
            if size > limit or decoder.unconsumed_tail:
                raise FetchError(
                    f"{url}: the page is over {limit} bytes once decompressed",
                    hint="check the index URL; a project page is far smaller",
                )
            out.append(piece)
        out.append(decoder.flush())
    except zlib.error as exc:
        raise FetchError(f"{url}: the gzip answer is corrupt ({exc})", hint=NETWORK_HINT) from exc
    if not decoder.eof:
        raise FetchError(f"{url}: the gzip answer ends early", hint=NETWORK_HINT)
    return b"".join(out)


def _copy_local(url: str, dest: Path) -> str:
    path = local_path(url)
    try:
        with open_regular(path, limit=limits.MAX_DOWNLOAD_BYTES) as source, dest.open("wb") as out:
            digest = _stream(source, out)
    except FileNotFoundError as exc:
        raise FetchError(
            f"the index lists {path} but the file is missing", hint=NETWORK_HINT
        ) from exc
    except OSError as exc:
        raise FetchError(f"cannot read {path}: {exc.strerror or exc}", hint=NETWORK_HINT) from exc
    return digest


def _stream(source: IO[bytes], out: IO[bytes]) -> str:
    digest = hashlib.sha256()
    size = 0
    while chunk := source.read(CHUNK_BYTES):
        size += len(chunk)
        if size > limits.MAX_DOWNLOAD_BYTES:  # a file that grows while it is copied
            raise OSError(27, "over the download limit")
        out.write(chunk)
        digest.update(chunk)
    return digest.hexdigest()
