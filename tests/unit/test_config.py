"""[tool.drift-audit] -> Settings: keys, types, typos, paths, and finding the project root."""

from __future__ import annotations

from pathlib import Path

import pytest

from auditor.config import (
    Settings,
    entry_points_from_pyproject,
    entry_points_from_txt,
    find_project_root,
    load_settings,
)
from auditor.errors import AuditError, ConfigError


def write_pyproject(folder: Path, body: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "pyproject.toml"
    path.write_text(body, encoding="utf-8")
    return path


def test_config_without_pyproject_is_empty_settings(tmp_path: Path) -> None:
    assert load_settings(tmp_path) == Settings()


def test_config_without_the_table_is_empty_settings(tmp_path: Path) -> None:
    write_pyproject(tmp_path, '[project]\nname = "widget"\n\n[tool.ruff]\nline-length = 99\n')
    assert load_settings(tmp_path) == Settings()


def test_config_reads_every_key(tmp_path: Path) -> None:
    path = write_pyproject(
        tmp_path,
        """
[tool.drift-audit]
against = ["vllm==0.17.*", "vllm==0.16.0"]
baseline = ["vllm==0.11.0"]
fail-on = "warning"
format = "sarif"
output = "drift.sarif"
exclude = ["tests/**", "docs/**"]
baseline-file = ".drift-baseline.json"
""",
    )
    assert load_settings(tmp_path) == Settings(
        against=("vllm==0.17.*", "vllm==0.16.0"),
        baseline=("vllm==0.11.0",),
        fail_on="warning",
        format="sarif",
        output=str(tmp_path / "drift.sarif"),
        exclude=("tests/**", "docs/**"),
        baseline_file=str(tmp_path / ".drift-baseline.json"),
        source=path,
        root=tmp_path,
    )


def test_config_accepts_a_single_string_for_against_and_baseline(tmp_path: Path) -> None:
    write_pyproject(
        tmp_path, '[tool.drift-audit]\nagainst = "vllm==0.17"\nbaseline = "vllm==0.11"\n'
    )
    settings = load_settings(tmp_path)
    assert settings.against == ("vllm==0.17",)
    assert settings.baseline == ("vllm==0.11",)


def test_config_paths_are_relative_to_the_project_not_the_cwd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    write_pyproject(project, '[tool.drift-audit]\noutput = "out/drift.json"\n')
    monkeypatch.chdir(tmp_path)
    assert load_settings(Path("project")).output == str(Path("project") / "out" / "drift.json")


@pytest.mark.parametrize(
    ("key", "suggestion"),
    [("fail_on", "fail-on"), ("againts", "against"), ("baseline_file", "baseline-file")],
)
def test_config_unknown_key_is_named_with_the_closest_valid_key(
    tmp_path: Path, key: str, suggestion: str
) -> None:
    write_pyproject(tmp_path, f'[tool.drift-audit]\n{key} = "x"\n')
    with pytest.raises(ConfigError, match=f"unknown key '{key}'") as info:
        load_settings(tmp_path)
    assert info.value.hint is not None
    assert f"did you mean '{suggestion}'?" in info.value.hint


def test_config_unknown_key_without_a_close_match_lists_valid_keys(tmp_path: Path) -> None:
    write_pyproject(tmp_path, "[tool.drift-audit]\nzzz = 1\n")
    with pytest.raises(ConfigError, match="unknown key 'zzz'") as info:
        load_settings(tmp_path)
    assert info.value.hint is not None
    assert info.value.hint.startswith("valid keys: against, baseline, fail-on")


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("exclude = 'tests/**'", r"exclude in \[tool.+ must be a list of strings, not a string"),
        ("against = [1, 2]", "against .* must be a string or a list of strings, not an array"),
        ("fail-on = 1", "fail-on .* must be a string, not an integer"),
        ("format = ['json']", "format .* must be a string, not an array"),
        ("output = true", "output .* must be a string, not a boolean"),
        ("baseline-file = {a = 1}", "baseline-file .* must be a string, not a table"),
        ("baseline = 0.11", "baseline .* must be a string or a list of strings, not a float"),
    ],
)  # fmt: skip
def test_config_wrong_type_names_the_key_and_expected_type(
    tmp_path: Path, line: str, message: str
) -> None:
    write_pyproject(tmp_path, f"[tool.drift-audit]\n{line}\n")
    with pytest.raises(ConfigError, match=message):
        load_settings(tmp_path)


def test_config_fail_on_must_be_a_known_severity(tmp_path: Path) -> None:
    write_pyproject(tmp_path, '[tool.drift-audit]\nfail-on = "fatal"\n')
    with pytest.raises(ConfigError, match=r"fail-on = 'fatal' .* is not one of error, warning"):
        load_settings(tmp_path)


def test_config_invalid_toml_is_a_config_error(tmp_path: Path) -> None:
    write_pyproject(tmp_path, "[tool.drift-audit\nagainst = \n")
    with pytest.raises(ConfigError, match="is not valid TOML"):
        load_settings(tmp_path)


def test_config_table_that_is_not_a_table_is_a_config_error(tmp_path: Path) -> None:
    write_pyproject(tmp_path, '[tool]\ndrift-audit = "vllm"\n')
    with pytest.raises(ConfigError, match="must be a table"):
        load_settings(tmp_path)


def test_config_error_is_an_audit_error() -> None:
    assert issubclass(ConfigError, AuditError)


# --------------------------------------------------------------------------- project root


def test_config_project_root_is_the_folder_with_pyproject(tmp_path: Path) -> None:
    write_pyproject(tmp_path, "")
    assert find_project_root(str(tmp_path)) == tmp_path


def test_config_project_root_of_a_package_folder_is_its_parent(tmp_path: Path) -> None:
    write_pyproject(tmp_path, "")
    package = tmp_path / "widget"
    package.mkdir()
    (package / "__init__.py").write_text("")
    assert find_project_root(str(package)) == tmp_path.resolve()


def test_config_project_root_of_a_src_layout_package_is_above_src(tmp_path: Path) -> None:
    write_pyproject(tmp_path, "")
    package = tmp_path / "src" / "widget"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    assert find_project_root(str(package)) == tmp_path.resolve()


def test_config_project_root_is_none_for_non_folders_and_loose_folders(tmp_path: Path) -> None:
    write_pyproject(tmp_path, "")
    loose = tmp_path / "docs"
    loose.mkdir()
    orphan = tmp_path / "elsewhere" / "pkg"
    orphan.mkdir(parents=True)
    (orphan / "__init__.py").write_text("")
    assert find_project_root(str(loose)) is None
    assert find_project_root(str(tmp_path / "missing")) is None
    assert find_project_root("vllm==0.17.0") is None
    assert find_project_root(str(orphan)) is None


# --------------------------------------------------------------------------- entry points


def test_entry_points_from_pyproject_read_scripts_gui_scripts_and_groups() -> None:
    text = (
        '[project]\nname = "widget"\n'
        '[project.scripts]\nwidget = "widget.cli:main"\n'
        '[project.gui-scripts]\nwidget-gui = "widget.gui:run"\n'
        '[project.entry-points."acme.plugins"]\nwidget = "widget.plugin"\n'
    )
    assert entry_points_from_pyproject(text) == (
        "widget.cli:main",
        "widget.gui:run",
        "widget.plugin",
    )


@pytest.mark.parametrize(
    "text", ["", "not = [toml", '[project]\nname = "w"\n', 'project = "odd"\n', "[tool.x]\n"]
)
def test_entry_points_from_pyproject_without_any_are_empty(text: str) -> None:
    assert entry_points_from_pyproject(text) == ()


def test_entry_points_from_a_dist_info_entry_points_txt() -> None:
    text = (
        "[console_scripts]\nwidget = widget.cli:main\nWidget-Up = widget.cli:up [extra]\n\n"
        "[acme.plugins]\nwidget = widget.plugin\n"
    )
    assert entry_points_from_txt(text) == (
        "widget.cli:main",
        "widget.cli:up [extra]",
        "widget.plugin",
    )
    assert entry_points_from_txt("no section here\n") == ()
