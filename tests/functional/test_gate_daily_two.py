"""Issue 35, the day-to-day gate, round two: items 2, 5, 6 and 9, through the CLI.

Each test writes a provider at 0.1 (the baseline) and 0.2 (the target) as local folders and a
consumer `widget`, runs drift-audit on it, and where the item is about what Python does, runs
the consumer in a subprocess against each release, before and after `--fix`:
- item 2: a parameter renamed in its own slot (gensim's `iter` -> `epochs`) is suggested and
  fixed as a rename, and a keyword gone with a value other than its old default is never
  dropped (the call would run, doing something else);
- item 5: `f(1, 2)` against `f(*, a, b)` is one finding, with its fix by keyword;
- item 6: `def g` gone from `pkg.util` with the module, and in `pkg.net` now, which nothing
  imports: "now lives in pkg.net", and a fix to `from pkg.net import g`;
- item 9: a misspelt kind in `# drift-audit: ignore[...]` is an unknown kind, with the kind
  it was most likely meant to be.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import TYPE_CHECKING, Any

import pytest

from tests.trust import machine
from tests.trust.cli import invoke

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from pathlib import Path

    from click.testing import Result

    MakeTree = Callable[[Path, Mapping[str, str]], Path]


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch) -> None:
    machine.isolate(monkeypatch)


class Case:
    """A provider `name` at 0.1 and 0.2 and a consumer `widget`, under one folder."""

    def __init__(self, root: Path, make_tree: MakeTree, name: str) -> None:
        self.root, self.make_tree, self.name = root, make_tree, name

    def provider(self, version: str, files: Mapping[str, str]) -> None:
        self.make_tree(self.root / "prov" / version, files)

    def consumer(self, files: Mapping[str, str]) -> None:
        self.make_tree(self.root / "consumer", files)

    def audit(self, *args: str, baseline: bool = True) -> Result:
        argv = [
            str(self.root / "consumer" / "widget"),
            "--against", f"{self.name} @ {(self.root / 'prov' / '0.2').as_uri()}",
            "--offline", "--cache-dir", str(self.root / "cache"), *args,
        ]  # fmt: skip
        if baseline:
            argv += ["--baseline", f"{self.name} @ {(self.root / 'prov' / '0.1').as_uri()}"]
        return invoke(*argv)

    def findings(self, *args: str) -> list[dict[str, Any]]:
        result = self.audit("--format", "json", *args)
        assert result.exit_code in (0, 1), result.output
        found: list[dict[str, Any]] = json.loads(result.stdout)["findings"]
        return found

    def run(self, version: str, code: str) -> str:
        """What `code` prints, run by the interpreter with the consumer and the provider at
        `version` on its path (the exception's class name when it raises)."""
        program = (
            "import sys\n"
            f"sys.path[:0] = [{str(self.root / 'prov' / version)!r}, "
            f"{str(self.root / 'consumer')!r}]\n"
            f"try:\n    print({code})\nexcept Exception as exc:\n    print(type(exc).__name__)\n"
        )
        done = subprocess.run(
            [sys.executable, "-c", program], capture_output=True, text=True, check=True
        )
        return done.stdout.strip()

    def read(self, rel: str) -> str:
        return (self.root / "consumer" / rel).read_text(encoding="utf-8")


@pytest.fixture
def case(tmp_path: Path, make_tree: MakeTree) -> Callable[[str], Case]:
    return lambda name: Case(tmp_path, make_tree, name)


# --------------------------------------------------------------------------- item 2

EMB_01 = """\
class Word2Vec:
    def __init__(self, sentences=None, size=100, alpha=0.025, window=5, iter=5, null_word=0):
        self.vector_size, self.epochs = size, iter


def fit(data, hs=0):
    return ("hs", hs)
"""
EMB_02 = """\
class Word2Vec:
    def __init__(self, sentences=None, vector_size=100, alpha=0.025, window=5, epochs=5,
                 null_word=0, comment=None, shrink_windows=True):
        self.vector_size, self.epochs = vector_size, epochs


def fit(data):
    return ("hs", 0)
"""
TRAIN = """\
import emb


def train():
    model = emb.Word2Vec([["a"]], size=50, iter=3)
    return (model.vector_size, model.epochs)


def softmax():
    return emb.fit([1], hs=1)


def plain():
    return emb.fit([1], hs=0)
"""


def test_a_rename_in_its_own_slot_is_fixed_as_a_rename_and_trains_as_asked(
    case: Callable[[str], Case],
) -> None:
    """gensim 4's Word2Vec: `size` -> `vector_size` and `iter` -> `epochs`, each in its own
    slot, of its kind and with its default. The fix renamed `size` and dropped `iter=3`, so
    the model trained 5 epochs, not 3; now both are renamed."""
    emb = case("emb")
    emb.provider("0.1", {"emb/__init__.py": EMB_01})
    emb.provider("0.2", {"emb/__init__.py": EMB_02})
    emb.consumer({"widget/__init__.py": TRAIN})
    assert emb.run("0.1", "__import__('widget').train()") == "(50, 3)"
    assert emb.run("0.2", "__import__('widget').train()") == "TypeError"
    by_keyword = {f["parameter"]: f for f in emb.findings() if f["line"] == 5}
    assert by_keyword["iter"]["suggestion"] == "was it renamed to 'epochs'? pass epochs=... instead"
    assert by_keyword["iter"]["fix"]["description"] == "pass epochs= instead of iter="
    assert by_keyword["size"]["fix"]["description"] == "pass vector_size= instead of size="
    assert {f["fix"]["safe"] for f in by_keyword.values()} == {False}  # guesses: unsafe
    fixed = emb.audit("--fix", "--unsafe-fixes")
    assert 'emb.Word2Vec([["a"]], vector_size=50, epochs=3)' in emb.read("widget/__init__.py")
    assert emb.run("0.2", "__import__('widget').train()") == "(50, 3)"  # 3 epochs, as asked
    assert "'iter'" not in fixed.stdout and "'size'" not in fixed.stdout


def test_a_keyword_gone_with_a_value_not_its_default_is_never_dropped(
    case: Callable[[str], Case],
) -> None:
    """`fit(data, hs=1)` against a `fit(data)` that always does `hs=0`: dropping `hs=1` would
    run and do the other thing. A suggestion says so; no fix is offered, even unsafe. At the
    old default, `hs=0`, the drop keeps what the call does and is a safe fix."""
    emb = case("emb")
    emb.provider("0.1", {"emb/__init__.py": EMB_01})
    emb.provider("0.2", {"emb/__init__.py": EMB_02})
    emb.consumer({"widget/__init__.py": TRAIN})
    found = {f["line"]: f for f in emb.findings() if f["parameter"] == "hs"}
    assert set(found) == {10, 14}
    assert "fix" not in found[10]
    assert found[10]["suggestion"] == (
        "'hs' is gone: dropping it keeps what the call does only if its value is the "
        "baseline's default, 0"
    )
    assert found[14]["fix"]["safe"] is True
    emb.audit("--fix", "--unsafe-fixes")
    text = emb.read("widget/__init__.py")
    assert "return emb.fit([1], hs=1)" in text and "return emb.fit([1])\n" in text
    assert emb.run("0.1", "__import__('widget').softmax()") == "('hs', 1)"
    assert emb.run("0.2", "__import__('widget').softmax()") == "TypeError"  # not ('hs', 0)
    assert emb.run("0.2", "__import__('widget').plain()") == "('hs', 0)"


# --------------------------------------------------------------------------- item 5

PLACE = "import acme\n\n\ndef go():\n    return acme.f(1, 2)\n"


def test_one_cause_one_finding_with_its_fix_by_keyword(case: Callable[[str], Case]) -> None:
    """`f(1, 2)` against `f(*, a, b)`: CPython raises one TypeError ("takes 0 positional
    arguments but 2 were given"), mypy reports one error; so does the tool, in every format,
    with the fix that passes them by keyword; the fixed call runs as it did at the baseline."""
    acme = case("acme")
    acme.provider("0.1", {"acme/__init__.py": "def f(a, b):\n    return a - b\n"})
    acme.provider("0.2", {"acme/__init__.py": "def f(*, a, b):\n    return a - b\n"})
    acme.consumer({"widget/__init__.py": PLACE})
    assert acme.run("0.1", "__import__('widget').go()") == "-1"
    assert acme.run("0.2", "__import__('widget').go()") == "TypeError"
    (finding,) = acme.findings()
    assert finding["kind"] == "too-many-positional" and finding["parameter"] is None
    assert finding["suggestion"] == "a, b are keyword-only now: pass a=..., b=..."
    assert finding["fix"]["safe"] is True
    sarif = json.loads(acme.audit("--format", "sarif").stdout)
    assert [r["ruleId"] for r in sarif["runs"][0]["results"]] == ["too-many-positional"]
    text = acme.audit().stdout
    assert "1 new error," in text and "missing-argument" not in text
    (absolute,) = json.loads(acme.audit("--format", "json", baseline=False).stdout)["findings"]
    assert absolute["suggestion"] == "it requires a, b by keyword: pass a=..., b=..."
    assert "fix" not in absolute  # which argument was meant for which name is not known
    fixed = acme.audit("--fix")
    assert "fixed 1 finding in 1 file" in fixed.stderr and "no drift found" in fixed.stdout
    assert "return acme.f(a=1, b=2)\n" in acme.read("widget/__init__.py")
    assert acme.run("0.2", "__import__('widget').go()") == "-1"


# --------------------------------------------------------------------------- item 9

TYPO = """\
import acme


def go():
    return acme.run(1, old=5)  # drift-audit: ignore[unexpected-keywrd]


def both():
    return acme.run(1, old=5)  # drift-audit: ignore[unexpected-keyword, removed-symbl]
"""


def test_a_misspelt_kind_in_an_ignore_comment_is_unknown_with_did_you_mean(
    case: Callable[[str], Case],
) -> None:
    """`ignore[unexpected-keywrd]` suppresses nothing (the finding stays, the gate fails);
    it was reported only as "unused". It is an unknown kind, with the kind it was meant to be,
    as `--select unexpected-keywrd` says it: on stderr on every run, and in the finding's
    suggestion when unused-suppression is selected."""
    acme = case("acme")
    acme.provider("0.1", {"acme/__init__.py": "def run(a, b=1, old=2):\n    return a\n"})
    acme.provider("0.2", {"acme/__init__.py": "def run(a, b=1):\n    return a\n"})
    acme.consumer({"widget/__init__.py": TYPO})
    result = acme.audit()
    assert result.exit_code == 1  # line 5 is not suppressed: its comment names no kind
    assert "error[unexpected-keyword]" in result.stdout and "1 suppressed" in result.stdout
    warnings = [line for line in result.stderr.splitlines() if "unused suppression" in line]
    assert warnings == [
        "drift-audit: warning: widget/__init__.py:5: unused suppression: unknown kind "
        "'unexpected-keywrd' (did you mean 'unexpected-keyword'?); "
        "`drift-audit --list-kinds` lists them",
        "drift-audit: warning: widget/__init__.py:9: unused suppression: unknown kind "
        "'removed-symbl' (did you mean 'removed-symbol'?); `drift-audit --list-kinds` lists them",
    ]
    selected = acme.findings("--select", "unused-suppression")
    assert [(f["line"], f["parameter"], f["suggestion"]) for f in selected] == [
        (5, "ignore[unexpected-keywrd]", "unknown kind 'unexpected-keywrd' (did you mean "
         "'unexpected-keyword'?); `drift-audit --list-kinds` lists them"),
        (9, "ignore[removed-symbl]", "unknown kind 'removed-symbl' (did you mean "
         "'removed-symbol'?); `drift-audit --list-kinds` lists them"),
    ]  # fmt: skip
    select = acme.audit("--select", "unexpected-keywrd")
    assert select.exit_code == 2
    assert "did you mean 'unexpected-keyword'?" in select.stderr  # the same words


# --------------------------------------------------------------------------- item 6

UTIL = "def g(x, y=1):\n    return x + y\n"
NET = "import socket\n\n\ndef g(x, y=1):\n    return (x + y) * (socket.AF_INET > 0)\n"
USES_G = "from pkg.util import g\n\n\ndef go():\n    return g(1)\n"


def test_a_module_gone_whose_definition_moved_beside_it_says_where_with_a_fix(
    case: Callable[[str], Case], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`pkg.util` is gone and the same `def g` is in `pkg.net`, which nothing imports: the
    search went only through what the surviving packages import, and said nothing. Now the
    package's folder is listed: "now lives in pkg.net.g: `from pkg.net import g`", with a
    safe fix, after which the consumer runs at 0.2 as it did at 0.1."""
    monkeypatch.setenv("DRIFT_AUDIT_NO_REPLAY", "1")  # each run audits
    pkg = case("pkg")
    pkg.provider("0.1", {"pkg/__init__.py": "", "pkg/util.py": UTIL})
    pkg.provider("0.2", {"pkg/__init__.py": "", "pkg/other.py": "X = 1\n"})
    pkg.consumer({"widget/__init__.py": USES_G})
    (before,) = pkg.findings()  # no definition anywhere yet: nothing to say
    assert before["kind"] == "removed-module" and before["suggestion"] is None
    pkg.provider("0.2", {"pkg/net.py": NET})  # the same cache: a kept answer must not hold
    assert pkg.run("0.1", "__import__('widget').go()") == "2"
    assert pkg.run("0.2", "__import__('widget').go()") == "ModuleNotFoundError"
    (finding,) = pkg.findings()
    assert finding["suggestion"] == (
        "a definition of that name now lives in pkg.net.g: `from pkg.net import g`"
    )
    assert finding["fix"]["safe"] is True
    assert finding["fix"]["description"] == "import g from pkg.net"
    fixed = pkg.audit("--fix")
    assert "fixed 1 finding in 1 file" in fixed.stderr and "no drift found" in fixed.stdout
    assert pkg.read("widget/__init__.py") == USES_G.replace("pkg.util", "pkg.net")
    assert pkg.run("0.2", "__import__('widget').go()") == "2"


def test_a_definition_beside_it_of_another_signature_is_named_but_not_fixed(
    case: Callable[[str], Case],
) -> None:
    pkg = case("pkg")
    pkg.provider("0.1", {"pkg/__init__.py": "", "pkg/util.py": UTIL})
    pkg.provider("0.2", {"pkg/__init__.py": "", "pkg/net.py": "def g(x, *, y):\n    return x\n"})
    pkg.consumer({"widget/__init__.py": USES_G})
    (finding,) = pkg.findings()
    assert finding["suggestion"].endswith("`from pkg.net import g`")
    assert "fix" not in finding  # moving the import would not keep the call's meaning
