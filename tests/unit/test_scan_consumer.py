"""Consumer scan as a whole: files, bad files, suppressions, excludes, definitions, edges."""

from __future__ import annotations

from dataclasses import dataclass
from textwrap import dedent
from typing import TYPE_CHECKING

import pytest

from auditor.model import ConsumerScan, Definition, Edge, Location, Unparsable
from auditor.scan import scan_consumer
from auditor.scan.source import excluded_paths

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence


@dataclass
class MemoryTree:
    """A SourceTree over a dict of posix path -> text (or an exception to raise)."""

    files: dict[str, str | Exception]
    order: Sequence[str] | None = None

    def read_text(self, path: str) -> str | None:
        value = self.files.get(path)
        if isinstance(value, Exception):
            raise value
        return value

    def is_dir(self, path: str) -> bool:
        return any(p.startswith(path.rstrip("/") + "/") for p in self.files)

    def walk(self) -> Iterator[str]:
        return iter(self.order if self.order is not None else sorted(self.files))


def scan(files: dict[str, str | Exception], exclude: Sequence[str] = ()) -> ConsumerScan:
    texts = {p: dedent(t) if isinstance(t, str) else t for p, t in files.items()}
    return scan_consumer(MemoryTree(texts), ["pkg"], ["vllm"], exclude=exclude)


GOOD = "import vllm\nvllm.f(1)\n"


# --------------------------------------------------------------------------- bad files


@pytest.mark.parametrize(
    ("text", "reason", "line", "column"),
    [
        ("x = (\n", "SyntaxError", 1, 5),
        ("def f(:\n    pass\n", "SyntaxError", 1, 7),
        ("if x:\npass\n", "IndentationError", 2, 1),
        ("a = 1\nb = '\0'\n", "", 2, 6),  # SyntaxError or ValueError, by Python version
    ],
    ids=["unclosed", "bad-def", "indentation", "nul-byte"],
)
def test_unparsable_file_is_reported_and_the_scan_goes_on(
    text: str, reason: str, line: int, column: int
) -> None:
    result = scan({"pkg/bad.py": text, "pkg/good.py": GOOD})
    (bad,) = result.unparsable
    assert (bad.path, bad.line, bad.column) == ("pkg/bad.py", line, column)
    assert bad.reason.startswith(reason)
    assert [s.location.path for s in result.sites] == ["pkg/good.py", "pkg/good.py"]
    assert result.files == ("pkg/bad.py", "pkg/good.py")


def test_undecodable_file_is_unparsable() -> None:
    error = UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte")
    result = scan({"pkg/bad.py": error, "pkg/good.py": GOOD})
    assert result.unparsable == (
        Unparsable("pkg/bad.py", "UnicodeDecodeError: invalid start byte"),
    )
    assert len(result.sites) == 2


def test_too_deeply_nested_file_is_unparsable() -> None:
    deep = "x = " + "[" * 150 + "]" * 150 + "\n" + "y = " + "f(" * 400 + ")" * 400
    result = scan({"pkg/deep.py": deep, "pkg/good.py": GOOD})
    assert [u.path for u in result.unparsable] == ["pkg/deep.py"]
    assert len(result.sites) == 2


def test_long_operator_chains_are_walked() -> None:
    source = "import vllm\nx = " + " + ".join(["vllm.a"] * 2000) + "\n"
    result = scan({"pkg/mod.py": source})
    assert result.unparsable == ()
    assert len(result.sites) == 2001


# --------------------------------------------------------------------------- text


def test_lines_are_kept_for_every_scanned_file() -> None:
    result = scan({"pkg/a.py": "x = 1\r\ny = 2\r\n", "pkg/bad.py": "x = (\n", "pkg/e.py": ""})
    assert result.lines == {
        "pkg/a.py": ("x = 1", "y = 2"),
        "pkg/bad.py": ("x = (",),
        "pkg/e.py": (),
    }


def test_byte_order_mark_is_dropped() -> None:
    result = scan({"pkg/mod.py": "\ufeffimport vllm\n"})
    assert result.sites[0].location.column == 8  # `vllm` in `import vllm`
    assert result.unparsable == ()


def test_suppression_comments() -> None:
    source = """\
        import vllm  # drift-audit: ignore[unexpected-keyword, removed-symbol]
        vllm.f(1)  # drift-audit: ignore
        x = "# drift-audit: ignore"
        y = 1  # noqa: E501  # drift-audit: ignore[missing-argument]
        z = '''
        # drift-audit: ignore
        '''
        """
    assert scan({"pkg/mod.py": source}).suppressions == {
        "pkg/mod.py": {
            1: frozenset({"unexpected-keyword", "removed-symbol"}),
            2: frozenset(),
            4: frozenset({"missing-argument"}),
        }
    }


def test_suppression_comments_of_an_unparsable_file_are_still_read() -> None:
    result = scan({"pkg/bad.py": "x = 1  # drift-audit: ignore[unparsable]\ndef (:\n"})
    assert result.suppressions == {"pkg/bad.py": {1: frozenset({"unparsable"})}}


# --------------------------------------------------------------------------- selection


@pytest.mark.parametrize(
    ("patterns", "kept"),
    [
        ((), ["pkg/mod.py", "pkg/tests/test_x.py", "test_top.py", "tests/t.py"]),
        (("tests/**",), ["pkg/mod.py", "pkg/tests/test_x.py", "test_top.py"]),
        (("**/test_*.py",), ["pkg/mod.py", "tests/t.py"]),
        (("pkg/tests",), ["pkg/mod.py", "test_top.py", "tests/t.py"]),
        (("pkg/*.py", "./tests/*"), ["test_top.py"]),  # fnmatch: `*` crosses `/`
    ],
)
def test_exclude_globs(patterns: tuple[str, ...], kept: list[str]) -> None:
    files: dict[str, str | Exception] = dict.fromkeys(
        ("pkg/mod.py", "pkg/tests/test_x.py", "test_top.py", "tests/t.py"), GOOD
    )
    files["README.txt"] = "not python"
    result = scan(files, exclude=patterns)
    assert list(result.files) == kept
    assert sorted({s.location.path for s in result.sites}) == kept


def test_package_and_files() -> None:
    tree = MemoryTree({"b/x.py": "", "a/y.py": ""}, order=["b/x.py", "a/y.py"])
    result = scan_consumer(tree, ["a", "b"], ["vllm"])
    assert (result.package, result.files) == ("a,b", ("a/y.py", "b/x.py"))


# --------------------------------------------------------------------------- graph


def test_definitions() -> None:
    source = """\
        def top():
            def inner():
                pass
        class C:
            class Inner:
                pass
            async def meth(self):
                pass
        """
    result = scan({"pkg/__init__.py": "", "pkg/mod.py": source})
    assert [(d.name, d.kind) for d in result.definitions] == [
        ("pkg", "module"),
        ("pkg.mod", "module"),
        ("pkg.mod.C", "class"),
        ("pkg.mod.C.Inner", "class"),
        ("pkg.mod.C.meth", "function"),
        ("pkg.mod.top", "function"),
        ("pkg.mod.top.inner", "function"),
    ]
    by_name = {d.name: d for d in result.definitions}
    assert by_name["pkg.mod"] == Definition(
        "pkg.mod", "module", Location("pkg/mod.py", 1, 1, 8, 13)
    )
    assert by_name["pkg.mod.C.meth"].location == Location("pkg/mod.py", 7, 5, 8, 13)


def test_edges() -> None:
    files: dict[str, str | Exception] = {
        "pkg/__init__.py": "",
        "pkg/logging_utils.py": "class PipelineLogger:\n    def info(self): ...\n",
        "pkg/mod.py": """\
            from .logging_utils import PipelineLogger

            log = PipelineLogger(__name__)

            def helper():
                return 1

            class Gen:
                def run(self):
                    self.step()
                    self.tokenizer.encode()
                    return helper()

                def step(self):
                    log.info()  # `log` holds a PipelineLogger

            def unused():
                pass
            """,
    }
    edges = set(scan(files).edges)
    expected = {
        Edge("pkg.mod", "pkg.logging_utils"),  # importing a module runs it
        Edge("pkg.mod", "pkg"),
        Edge("pkg.mod", "pkg.logging_utils.PipelineLogger"),  # module-level code
        Edge("pkg.mod.Gen.run", "pkg.mod.Gen.step"),  # self.method()
        Edge("pkg.mod.Gen.run", "pkg.mod.helper"),
        Edge("pkg.mod", "pkg.mod.helper"),  # containment
        Edge("pkg.mod", "pkg.mod.Gen"),
        Edge("pkg.mod", "pkg.mod.unused"),
        Edge("pkg.mod.Gen", "pkg.mod.Gen.run"),
        Edge("pkg.mod.Gen", "pkg.mod.Gen.step"),
        Edge("pkg.logging_utils", "pkg.logging_utils.PipelineLogger"),
        Edge("pkg.logging_utils.PipelineLogger", "pkg.logging_utils.PipelineLogger.info"),
        Edge("pkg.mod.Gen.step", "pkg.logging_utils.PipelineLogger.info"),  # through `log`
    }
    assert edges == expected


def test_edges_to_inherited_methods_and_callbacks() -> None:
    source = """\
        def callback():
            pass

        class Base:
            def shared(self): ...

        class Child(Base):
            def go(self):
                register(callback)
                return self.shared()
        """
    edges = scan({"pkg/mod.py": source}).edges
    assert Edge("pkg.mod.Child.go", "pkg.mod.callback") in edges
    assert Edge("pkg.mod.Child.go", "pkg.mod.Base.shared") in edges


def test_provider_references_are_sites_not_edges() -> None:
    result = scan({"pkg/mod.py": "from vllm import F\ndef f():\n    F()\n"})
    assert {e.callee for e in result.edges} == {"pkg.mod.f"}


# --------------------------------------------------------------------------- determinism


def test_same_input_gives_the_same_scan_whatever_the_walk_order() -> None:
    files: dict[str, str | Exception] = {
        "pkg/b.py": "from .a import F\nF(1)\nclass C(F):\n    def m(self): ...\n",
        "pkg/a.py": "from vllm.x import F\nimport vllm\nvllm.g()\n",
        "pkg/c.py": "from . import b\nb.F(x=1)\n",
    }
    forward = scan_consumer(MemoryTree(files, order=sorted(files)), ["pkg"], ["vllm"])
    backward = scan_consumer(
        MemoryTree(files, order=sorted(files, reverse=True)), ["pkg"], ["vllm"]
    )
    assert forward == backward
    assert list(forward.sites) == sorted(
        forward.sites, key=lambda s: (s.location.path, s.location.line, s.location.column, s.target)
    )


def test_fifty_files_scan_quickly() -> None:
    module = dedent(
        """\
        from vllm.config import CacheConfig, ModelConfig
        from .m0 import helper

        class Worker:
            def __init__(self, n):
                self.config = CacheConfig(block_size=n, gpu_memory_utilization=0.9)

            def run(self, items):
                out = []
                for item in items:
                    if item.ok and not item.skip:
                        out.append(ModelConfig(model=item.name, dtype="auto"))
                    else:
                        out.append(helper(item, [x * 2 for x in item.values]))
                return out
        """
    )
    files: dict[str, str | Exception] = {f"pkg/m{i}.py": module * 5 for i in range(50)}
    result = scan(files)  # speed is measured by `make bench`, not asserted here
    assert len(result.sites) == 50 * 5 * 4  # per copy: two imports, two calls


def test_excluded_paths_are_the_python_files_the_scan_would_read_and_unlisted_folders() -> None:
    """What a report names as left out by `exclude`: the files select_paths would keep without
    it (a `.pyi` beside its `.py` is no file of its own), and folders that could not be
    listed, as `folder/` (their files are not known)."""
    walked = ["w/__init__.py", "w/a.py", "w/a.pyi", "w/legacy/__init__.py", "w/legacy/b.py"]
    excluded = excluded_paths(walked, ["w/locked", "w/open"], ["w/a.py*", "w/legacy", "w/locked"])
    assert excluded == ("w/a.py", "w/legacy/__init__.py", "w/legacy/b.py", "w/locked/")
    assert excluded_paths(walked, ["w/locked"], []) == ()
