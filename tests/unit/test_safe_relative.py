"""safe_relative()'s one-regex fast path and all_clean() agree with normalising by parts."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.sources.trees import all_clean, safe_relative

# the characters that matter to the rules, and one that does not
PATHS = st.text(alphabet=st.sampled_from(list("ab./\\:\x00\n")), max_size=12)


def by_parts(path: str) -> str | None:
    """The normalisation safe_relative() did before its fast path, part by part."""
    if "\x00" in path or path.startswith(("/", "\\")):
        return None
    parts = [p for p in path.replace("\\", "/").split("/") if p not in ("", ".")]
    if ".." in parts or (parts and ":" in parts[0]):
        return None
    return "/".join(parts)


@settings(max_examples=3000, deadline=None)
@given(PATHS)
def test_safe_relative_is_the_normalisation_by_parts(path: str) -> None:
    assert safe_relative(path) == by_parts(path)


@settings(max_examples=3000, deadline=None)
@given(st.lists(PATHS, max_size=5))
def test_all_clean_is_every_path_left_as_it_is(paths: list[str]) -> None:
    """Sound always; complete for paths without a newline (with one: asked one by one)."""
    same = all(p and by_parts(p) == p for p in paths)
    if all_clean(paths):
        assert same
    elif not any("\n" in p for p in paths):
        assert not same


def test_all_clean_on_real_shapes() -> None:
    assert all_clean(["vllm/__init__.py", "vllm/model_executor/layers/linear.py", "a/c:d"])
    assert all_clean([])
    for bad in ("a/../b", "..", "a/./b", "a//b", "c:x", "/a", "a/", "a\\b", "a\x00"):
        assert not all_clean(["ok.py", bad]), bad
