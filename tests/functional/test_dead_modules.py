"""A module shadowed by a package of the same name never runs: no finding comes from it.

The consumer is written here, in tmp_path: `widget/shadow.py` (calls a name acme 0.2 no
longer has) beside `widget/shadow/__init__.py` (calls one it has). Python imports the
package; the test runs that import in a subprocess, then audits the same consumer.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from auditor.model import Status
from auditor.pipeline import audit

PROVIDER = Path(__file__).resolve().parents[1] / "idioms" / "consumer-guards" / "provider"


def _consumer(root: Path) -> Path:
    widget = root / "widget"
    (widget / "shadow").mkdir(parents=True)
    (widget / "__init__.py").write_text("", encoding="utf-8")
    (widget / "shadow.py").write_text("import acme\n\nVALUE = acme.legacy(1)\n", encoding="utf-8")
    (widget / "shadow" / "__init__.py").write_text(
        "import acme\n\nVALUE = acme.modern(1)\n", encoding="utf-8"
    )
    (widget / "live.py").write_text("import acme\n\nVALUE = acme.legacy(2)\n", encoding="utf-8")
    return widget


def _runs(root: Path, module: str) -> bool:
    code = f"import sys; sys.path[:0] = [{str(root)!r}, {str(PROVIDER / '0.2')!r}]; import {module}"
    done = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, timeout=60)
    return done.returncode == 0


def test_a_module_shadowed_by_its_package_gives_no_finding(tmp_path: Path) -> None:
    widget = _consumer(tmp_path / "src")
    assert _runs(tmp_path / "src", "widget.shadow")  # the package ran, not shadow.py
    assert not _runs(tmp_path / "src", "widget.live")  # the same call in a live module fails
    report = audit(
        str(widget),
        [f"acme @ {(PROVIDER / '0.2').as_uri()}"],
        cache_dir=tmp_path / "cache",
        offline=True,
    )
    new = {(f.location.path, f.kind.slug) for f in report.findings if f.status is Status.NEW}
    assert ("widget/live.py", "removed-symbol") in new
    assert not any(path == "widget/shadow.py" for path, _ in new)
