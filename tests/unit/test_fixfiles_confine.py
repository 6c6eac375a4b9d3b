"""The fix stage stays inside the folder named (issue 22 item 9), whatever a report says.

A package folder's import root is its parent; ConsumerInfo.confine is the folder itself. A
finding (here made by hand, as a replayed or edited report could hold it) whose file lies
through a link out of that folder is never read nor written by --fix.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from auditor.errors import AuditError
from auditor.fixfiles import fixed_files
from auditor.kinds import Kind
from auditor.model import (
    ConsumerInfo,
    Edit,
    Finding,
    Fix,
    Location,
    ProviderInfo,
    Report,
    text_digest,
)

if TYPE_CHECKING:
    from pathlib import Path

TEXT = "import acme\nacme.run(1, old=5)\n"


def _report(root: Path, confine: Path, module_path: str) -> Report:
    edit = Edit(module_path, 2, 13, 2, 16, "new")
    finding = Finding(
        kind=Kind.UNEXPECTED_KEYWORD,
        location=Location(module_path, 2, 1, 2, 19),
        scope="widget",
        symbol="acme.run",
        parameter="old",
        broken_in=("0.2",),
        baseline_signature=None,
        target_signature=None,
        fix=Fix(True, "pass new= instead of old=", (edit,), text_digest(TEXT)),
    )
    consumer = ConsumerInfo("widget", None, f"folder {confine}", str(root), str(confine))
    return Report(consumer, ProviderInfo("acme", "0.1", ("0.2",)), (finding,))


def test_a_fix_through_a_link_out_of_the_package_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "m.py").write_text(TEXT)
    package = tmp_path / "widget"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "sub").symlink_to("../lib", target_is_directory=True)
    with pytest.raises(AuditError, match="cannot fix"):
        fixed_files(_report(tmp_path, package, "widget/sub/m.py"), unsafe=True, option="--fix")
    assert (tmp_path / "lib" / "m.py").read_text() == TEXT


def test_without_a_confine_the_same_file_is_read(tmp_path: Path) -> None:
    """The near miss: a report of a folder whose confine is its root (a project folder) reads
    the linked file, which lies inside that root."""
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "m.py").write_text(TEXT)
    package = tmp_path / "widget"
    package.mkdir()
    (package / "sub").symlink_to("../lib", target_is_directory=True)
    report = _report(tmp_path, tmp_path, "widget/sub/m.py")
    assert fixed_files(report, unsafe=True, option="--fix") == []  # read; no hint: no edit
