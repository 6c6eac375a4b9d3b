"""Wheels and sdists built in the test, honest or hostile (nothing binary is committed).

`wheel()` and `sdist()` write a release of a package from a {path: text} mapping; `Member`
lets a test add what no honest build produces: `..` and absolute names, links, duplicates,
huge or highly compressible content, a RECORD that lies.
"""

from __future__ import annotations

import base64
import hashlib
import io
import stat
import tarfile
import zipfile
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from pathlib import Path


@dataclass(frozen=True)
class Member:
    """One archive member: a file (data), a symlink or hardlink (link), or a folder."""

    name: str
    data: bytes = b""
    kind: str = "file"  # "file", "symlink", "hardlink", "dir", "fifo"
    link: str = ""

    @classmethod
    def text(cls, name: str, text: str) -> Member:
        return cls(name, text.encode())


def record_digest(data: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def metadata(name: str, version: str, requires: Iterable[str] = ()) -> str:
    lines = [f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"]
    lines += [f"Requires-Dist: {r}\n" for r in requires]
    return "".join(lines)


def wheel(
    folder: Path,
    name: str,
    version: str,
    files: Mapping[str, str],
    *,
    extra: Iterable[Member] = (),
    tamper: str | None = None,
    requires: Iterable[str] = (),
    compression: int = zipfile.ZIP_DEFLATED,
    top_level: Iterable[str] = (),
) -> Path:
    """name-version-py3-none-any.whl: `files`, then `extra`, then .dist-info with a RECORD
    (whose hash for `tamper` lies) and a top_level.txt naming `top_level` (else `name`)."""
    info = f"{name}-{version}.dist-info"
    members = [Member.text(p, t) for p, t in files.items()] + list(extra)
    members += [
        Member.text(f"{info}/METADATA", metadata(name, version, requires)),
        Member.text(f"{info}/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\n"),
        Member.text(f"{info}/top_level.txt", "".join(f"{t}\n" for t in list(top_level) or [name])),
    ]
    rows = [
        f"{m.name},sha256={record_digest(b'x' if m.name == tamper else m.data)},{len(m.data)}"
        for m in members
        if m.kind == "file"
    ]
    members.append(Member.text(f"{info}/RECORD", "\n".join([*rows, f"{info}/RECORD,,"]) + "\n"))
    path = folder / f"{name}-{version}-py3-none-any.whl"
    write_zip(path, members, compression=compression)
    return path


def sdist(
    folder: Path,
    name: str,
    version: str,
    files: Mapping[str, str],
    *,
    extra: Iterable[Member] = (),
    top: str | None = None,
) -> Path:
    """name-version.tar.gz with PKG-INFO, `files` under the top folder, then `extra` as named."""
    prefix = top if top is not None else f"{name}-{version}"
    members = [Member.text(f"{prefix}/PKG-INFO", metadata(name, version))]
    members += [Member.text(f"{prefix}/{p}", t) for p, t in files.items()]
    members += list(extra)
    path = folder / f"{name}-{version}.tar.gz"
    write_tar(path, members)
    return path


def write_zip(path: Path, members: Iterable[Member], *, compression: int) -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns about duplicate names
        with zipfile.ZipFile(path, "w", compression) as zf:
            for member in members:
                info = zipfile.ZipInfo(member.name, date_time=(2024, 1, 1, 0, 0, 0))
                info.compress_type = compression
                if member.kind == "symlink":
                    info.external_attr = (stat.S_IFLNK | 0o777) << 16
                    zf.writestr(info, member.link)
                elif member.kind == "dir":
                    info.external_attr = (stat.S_IFDIR | 0o755) << 16
                    zf.writestr(info, b"")
                else:
                    info.external_attr = (stat.S_IFREG | 0o644) << 16
                    zf.writestr(info, member.data)


def write_tar(path: Path, members: Iterable[Member]) -> None:
    kinds = {
        "file": tarfile.REGTYPE,
        "symlink": tarfile.SYMTYPE,
        "hardlink": tarfile.LNKTYPE,
        "dir": tarfile.DIRTYPE,
        "fifo": tarfile.FIFOTYPE,
    }
    with tarfile.open(path, "w:gz", format=tarfile.PAX_FORMAT) as tf:
        for member in members:
            info = tarfile.TarInfo(member.name)
            info.type = kinds[member.kind]
            info.linkname = member.link
            info.mtime = 1_700_000_000
            if member.kind == "file":
                info.size = len(member.data)
                tf.addfile(info, io.BytesIO(member.data))
            else:
                tf.addfile(info)
