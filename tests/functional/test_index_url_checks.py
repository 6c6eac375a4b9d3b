"""An index URL that is not one is a one-line error (exit 2) naming where it came from.

`--index-url`, PIP_INDEX_URL, PIP_EXTRA_INDEX_URL and pip's configuration file are checked
where the index is opened, before anything is fetched or written to the cache. The audits
use folder providers, so a good URL would not even be asked: the check alone decides.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.trust import acme, machine
from tests.trust.cli import error_line, invoke

if TYPE_CHECKING:
    from pathlib import Path

    from click.testing import Result

BAD = [  # (the URL, how the error line ends after naming it and where it came from)
    ("notaurl", "is neither a URL nor a folder"),
    ("ftp://x", "is not http(s) or file"),
    ("http://", "has no host"),
    ("https:///simple", "has no host"),
    ("http://:8080/simple", "has no host"),
    ("http://ci:tok@/simple", "has no host"),
    ("http://127.0.0.1/my simple", "contains a space"),
    ("http://127.0 .0.1/simple", "contains a space"),
    ("http://127.0.0.1/sim\tple", "contains a blank character ('\\t')"),
    ("http://127.0.0.1/sim\x00ple", "contains a control character ('\\x00')"),
    ("file:///no such/folder", "contains a space"),
]


def expected(url: str, origin: str, problem: str) -> str:
    what = "index" if url == "notaurl" else "index URL"
    shown = url.replace("ci:tok@", "ci:***@")
    return f"the {what} {shown!r} (from {origin}) {problem}"


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch) -> None:
    machine.isolate(monkeypatch)


def audit(tmp_path: Path, *more: str, env: dict[str, str] | None = None) -> Result:
    project = acme.consumer(tmp_path / "project")
    cache = tmp_path / "cache"
    return invoke(
        str(project), *acme.folder_args(tmp_path), "--cache-dir", str(cache), *more, env=env
    )


@pytest.mark.parametrize(("url", "message"), BAD)
def test_a_bad_index_url_on_the_command_line_is_one_line(
    tmp_path: Path, url: str, message: str
) -> None:
    line = error_line(audit(tmp_path, "--index-url", url))
    assert line == expected(url, "--index-url", message)
    assert "tok" not in line
    assert not (tmp_path / "cache").exists()  # refused before anything was written


@pytest.mark.parametrize(("url", "message"), BAD[:7])
def test_a_bad_index_url_from_pip_index_url_names_it(
    tmp_path: Path, url: str, message: str
) -> None:
    line = error_line(audit(tmp_path, env={"PIP_INDEX_URL": url}))
    assert line == expected(url, "PIP_INDEX_URL", message)


def test_a_bad_extra_index_url_names_it(tmp_path: Path) -> None:
    line = error_line(audit(tmp_path, env={"PIP_EXTRA_INDEX_URL": "ftp://mirror"}))
    assert line.startswith("the index URL 'ftp://mirror' (from PIP_EXTRA_INDEX_URL) is not"), line


@pytest.mark.parametrize("key", ["index-url", "extra-index-url"])
def test_a_bad_index_url_in_pip_config_names_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, key: str
) -> None:
    conf = tmp_path / "pip.conf"
    conf.write_text(f"[global]\n{key} = ftp://x\n")
    monkeypatch.setenv("PIP_CONFIG_FILE", str(conf))
    line = error_line(audit(tmp_path))
    assert line == f"the index URL 'ftp://x' (from {key} in {conf}) is not http(s) or file", line


def test_the_command_line_wins_over_a_bad_pip_index_url(tmp_path: Path) -> None:
    """A good --index-url is used, so a bad PIP_INDEX_URL is never looked at."""
    result = audit(
        tmp_path, "--index-url", "http://127.0.0.1:1/simple", env={"PIP_INDEX_URL": "ftp://x"}
    )
    assert result.exit_code == 1, result.output  # folder providers: the index is not asked


def test_a_folder_path_with_a_space_is_a_local_index(tmp_path: Path) -> None:
    """A path is not a URL: spaces in it are fine, it becomes a file:// URL."""
    folder = tmp_path / "my index"
    folder.mkdir()
    result = audit(tmp_path, "--index-url", str(folder))
    assert result.exit_code == 1, result.output
