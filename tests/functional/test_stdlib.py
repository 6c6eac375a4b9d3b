"""The standard library decides through the CLI: a provider class built on unittest.TestCase,
dict or Exception, a name re-exported from the stdlib, a str a function returns. What the
stdlib gives is found (decided, never undecided); what the provider dropped and the stdlib
does not give is a new break; what both releases leave to the stdlib is never new."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from auditor.cli import cli
from auditor.sources.stdlib import typeshed_root

IDIOM = Path(__file__).resolve().parents[1] / "idioms" / "stdlib"
pytestmark = pytest.mark.skipif(typeshed_root() is None, reason="typeshed_client missing")

CONSUMER = """\
import acme


def check():
    acme.Case().assertEqual(1, 1)
    acme.Case().assertSame(1, 1)
    acme.Failure("boom", code=2)
    acme.Failure("boom").args
    acme.dedent("  a")
"""


def test_stdlib_bases_and_re_exports_decide_and_a_dropped_method_is_new(tmp_path: Path) -> None:
    (tmp_path / "widget").mkdir()
    (tmp_path / "widget" / "__init__.py").write_text(CONSUMER, encoding="utf-8")
    result = CliRunner().invoke(
        cli,
        [
            str(tmp_path / "widget"),
            "--against", f"acme @ {(IDIOM / 'provider' / '0.2').as_uri()}",
            "--baseline", f"acme @ {(IDIOM / 'provider' / '0.1').as_uri()}",
            "--format", "json", "--show-unknown", "--offline",
            "--cache-dir", str(tmp_path / "cache"),
        ],
    )  # fmt: skip
    assert result.exit_code == 1, result.output
    data = json.loads(result.stdout)
    found = [(f["line"], f["kind"], f["symbol"]) for f in data["findings"]]
    assert found == [
        (6, "removed-symbol", "acme.Case.assertSame"),
        (7, "unexpected-keyword", "acme.Failure"),
    ]
    assert data["undecided"] == []  # TestCase, Exception and textwrap decide the rest
    for version, failure in (("0.1", ""), ("0.2", "AttributeError")):
        provider = IDIOM / "provider" / version
        code = f"import sys; sys.path[:0] = [{str(provider)!r}, {str(tmp_path)!r}]; "
        ran = subprocess.run(
            [sys.executable, "-I", "-c", code + "import widget; widget.check()"],
            capture_output=True, text=True, check=False, timeout=60,
        )  # fmt: skip
        assert (ran.returncode != 0) == bool(failure), ran.stderr
        assert failure in ran.stderr and (not failure or "assertSame" in ran.stderr)
