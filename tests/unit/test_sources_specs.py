"""Specs and pip configuration: what the user typed, and where the index is."""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path

import pytest
from packaging.specifiers import SpecifierSet

from auditor.errors import BadSpecError, FetchError
from auditor.sources import open_index
from auditor.sources.pipconf import config_files, read_config_values, read_index_settings
from auditor.sources.specs import exact_pin, file_url_path, parse_spec, reference_within


@pytest.fixture(autouse=True)
def _no_pip_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_CONFIG_FILE", "PIP_CERT"):
        monkeypatch.delenv(var, raising=False)


# --------------------------------------------------------------------------- specs


@pytest.mark.parametrize("spec", ["vllm=0.16", "vllm 0.16", "==0.16", "vllm==", "vllm>=1,<"])
def test_text_that_is_not_pep_508_is_a_bad_spec(spec: str) -> None:
    with pytest.raises(BadSpecError) as caught:
        parse_spec(spec)
    assert caught.value.message == f"{spec!r} is not a PEP 508 requirement"
    assert caught.value.hint


def test_single_equals_hint_suggests_the_double_equals_spelling() -> None:
    with pytest.raises(BadSpecError) as caught:
        parse_spec("vllm=0.16")
    assert "'vllm==0.16'" in (caught.value.hint or "")


def test_index_rejects_a_bad_spec_before_any_network(tmp_path: Path) -> None:
    index = open_index("http://127.0.0.1:9/simple", cache_dir=tmp_path, offline=True)
    with pytest.raises(BadSpecError, match="not a PEP 508 requirement"):
        index.releases("vllm=0.16")


@pytest.mark.parametrize(
    ("specifier", "pin"),
    [
        ("==0.17.0", "0.17.0"),
        ("==0.17", "0.17"),
        ("===1.0-custom", "1.0-custom"),
        ("==0.16.*", None),
        (">=0.12,<0.18", None),
        ("", None),
        ("==1.0,!=1.1", None),
    ],
)
def test_exact_pin_only_for_a_single_equality_without_wildcard(
    specifier: str, pin: str | None
) -> None:
    assert exact_pin(SpecifierSet(specifier)) == pin


def test_direct_reference_must_be_a_file_url() -> None:
    req = parse_spec("acme @ https://example.invalid/acme-1.0.tar.gz")
    with pytest.raises(BadSpecError, match=r"not a file:// URL"):
        file_url_path(str(req.url))


def test_file_url_path_decodes_percent_escapes(tmp_path: Path) -> None:
    folder = tmp_path / "with space"
    assert file_url_path(folder.as_uri()) == folder


@pytest.mark.parametrize(
    ("spec", "where"),
    [
        ("acme @ file:vendor/acme", "project/vendor/acme"),  # relative: to the settings' folder
        ("acme @ file:./vendor/../vendor/acme", "project/vendor/acme"),
        ("acme @ file:../elsewhere", "elsewhere"),  # resolved: the caller refuses it
        ("acme[x] @ file:vendor/acme ; python_version > '3'", "project/vendor/acme"),
    ],
)
def test_a_reference_from_a_settings_file_is_resolved_against_its_folder(
    tmp_path: Path, spec: str, where: str
) -> None:
    folder = tmp_path / "project"
    (folder / "vendor" / "acme").mkdir(parents=True)
    resolved, path = reference_within(spec, folder)
    assert path == (tmp_path / where).resolve()
    assert parse_spec(resolved).url == path.as_uri()
    assert parse_spec(resolved).name == "acme"


def test_a_link_in_a_reference_is_followed_before_it_is_checked(tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "vendor").symlink_to(tmp_path / "elsewhere")
    _, path = reference_within("acme @ file:vendor", tmp_path / "project")
    assert path == (tmp_path / "elsewhere").resolve()
    absolute = reference_within(f"acme @ file://localhost{tmp_path}/elsewhere", tmp_path)[1]
    assert absolute == (tmp_path / "elsewhere").resolve()


@pytest.mark.parametrize(
    "spec", ["acme==0.2", "acme>=1", "not a spec @@", "acme @ https://x/a.whl"]
)
def test_what_is_no_file_reference_is_left_as_it_is(tmp_path: Path, spec: str) -> None:
    assert reference_within(spec, tmp_path) == (spec, None)


# --------------------------------------------------------------------------- pip config


def _conf(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_index_url_argument_beats_environment_and_config(tmp_path: Path) -> None:
    conf = _conf(tmp_path / "pip.conf", "[global]\nindex-url = http://conf.invalid/simple\n")
    env = {"PIP_CONFIG_FILE": str(conf), "PIP_INDEX_URL": "http://env.invalid/simple"}
    settings = read_index_settings("http://arg.invalid/simple", environ=env)
    assert settings.index_url == "http://arg.invalid/simple"


def test_pip_index_url_environment_beats_config_file(tmp_path: Path) -> None:
    conf = _conf(tmp_path / "pip.conf", "[global]\nindex-url = http://conf.invalid/simple\n")
    env = {"PIP_CONFIG_FILE": str(conf), "PIP_INDEX_URL": "http://env.invalid/simple"}
    assert read_index_settings(environ=env).index_url == "http://env.invalid/simple"


def test_config_file_sections_download_beats_install_beats_global(tmp_path: Path) -> None:
    conf = _conf(
        tmp_path / "pip.conf",
        "[download]\nindex-url = http://download.invalid/simple\n"
        "[global]\nindex-url = http://global.invalid/simple\n"
        "extra_index_url = file:///nowhere/a\n    file:///nowhere/b\n"
        "[install]\nindex-url = http://install.invalid/simple\n",
    )
    settings = read_index_settings(environ={"PIP_CONFIG_FILE": str(conf)})
    assert settings.index_url == "http://download.invalid/simple"
    assert settings.extra_index_urls == ("file:///nowhere/a", "file:///nowhere/b")


def test_extra_index_url_environment_beats_config(tmp_path: Path) -> None:
    conf = _conf(tmp_path / "pip.conf", "[global]\nextra-index-url = file:///conf\n")
    env = {"PIP_CONFIG_FILE": str(conf), "PIP_EXTRA_INDEX_URL": "file:///x  file:///y"}
    assert read_index_settings(environ=env).extra_index_urls == ("file:///x", "file:///y")


def test_config_files_follow_pips_order_and_skip_user_files_for_pip_config_file(
    tmp_path: Path,
) -> None:
    home, xdg = tmp_path / "home", tmp_path / "xdg"
    env = {"HOME": str(home), "XDG_CONFIG_DIRS": str(xdg), "VIRTUAL_ENV": str(tmp_path / "venv")}
    files = config_files(env)
    expected_user = [home / ".pip" / "pip.conf", home / ".config" / "pip" / "pip.conf"]
    assert files[:2] == [xdg / "pip" / "pip.conf", Path("/etc/pip.conf")]
    assert files[2:4] == expected_user
    assert files[-1] == tmp_path / "venv" / "pip.conf"
    conf = _conf(tmp_path / "env.conf", "[global]\n")
    with_env_file = config_files({**env, "PIP_CONFIG_FILE": str(conf)})
    assert with_env_file[-1] == conf
    assert not set(expected_user) & set(with_env_file)


def test_later_config_file_overrides_an_earlier_one(tmp_path: Path) -> None:
    first = _conf(tmp_path / "a.conf", "[global]\nindex-url = http://first.invalid/\ncert = /a\n")
    second = _conf(tmp_path / "b.conf", "[global]\nindex-url = http://second.invalid/\n")
    values = read_config_values([first, tmp_path / "missing.conf", second])
    assert values == {"index-url": "http://second.invalid/", "cert": "/a"}


def test_unreadable_config_file_is_ignored(tmp_path: Path) -> None:
    broken = _conf(tmp_path / "broken.conf", "index-url = no section header\n")
    assert read_config_values([broken]) == {}


def test_devnull_pip_config_file_turns_files_off() -> None:
    assert config_files({"PIP_CONFIG_FILE": os.devnull}) == []


def test_default_index_comes_from_the_installed_pip(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    expected = importlib.import_module("pip._internal.models.index").PyPI.simple_url
    assert open_index(cache_dir=tmp_path).urls == (expected,)


def test_without_pip_and_without_configuration_the_error_asks_for_index_url(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    monkeypatch.setitem(sys.modules, "pip._internal.models.index", None)
    index = open_index(cache_dir=tmp_path)
    with pytest.raises(FetchError) as caught:
        index.versions("acme")
    assert "--index-url" in (caught.value.hint or "")
