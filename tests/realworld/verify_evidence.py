"""Re-run the run-time evidence of the real-world corpus and rewrite each case's evidence.md.

Not a test (pytest does not collect it) and not part of the audit: it *does* install and import
the provider, which drift-audit never does. For each case folder it makes a scratch venv,
installs the provider at the baseline and then at the target (the pinned provider with its own
dependencies, and the consumer too when the case asks for it), runs the case's `[verify] code`
snippet with each, and writes the commands and their output to `evidence.md`. A breaking case
must run at the baseline and fail at the target; a working pair must run at both.

    python tests/realworld/verify_evidence.py               # every case
    python tests/realworld/verify_evidence.py flask-2.2.2-werkzeug-3.0.0 ...

Needs python3 with venv and pip, and the package index pip is configured with.
"""

from __future__ import annotations

import platform
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

HERE = Path(__file__).parent


def run(cmd: list[str], **kw: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, check=False, **kw)  # type: ignore[call-overload]


def shell(cmd: list[str]) -> str:
    return " ".join(shlex.quote(c) for c in cmd)


def install(venv: Path, args: list[str], log: list[str]) -> dict[str, str]:
    """pip install ARGS; when a pinned provider cannot be built here, put its sdist on the path."""
    cmd = [str(venv / "bin" / "pip"), "install", "--quiet", *args]
    log.append(f"$ {shell(cmd)}")
    done = run(cmd)
    if done.returncode == 0:
        return {}
    # An old sdist whose build breaks with today's Cython (PyYAML 5.4.1 has no wheel for this
    # Python): the known workaround, build it without isolation against Cython < 3.
    log.append("  (failed to build here; retrying without build isolation against Cython < 3)")
    for retry in (["cython<3", "setuptools", "wheel"], ["--no-build-isolation", *args]):
        cmd = [str(venv / "bin" / "pip"), "install", "--quiet", *retry]
        log.append(f"$ {shell(cmd)}")
        again = run(cmd)
        if again.returncode != 0:
            raise SystemExit(f"cannot install {args}:\n{again.stderr[-2000:]}")
    return {}


def attempt(name: str, case: dict, which: str, spec: str, log: list[str]) -> int:
    venv = Path(f"/tmp/rw-venv-{name}")
    shutil.rmtree(venv, ignore_errors=True)
    cmd = [sys.executable, "-m", "venv", str(venv)]
    log.append(f"$ python3 -m venv {venv}")
    run(cmd).check_returncode()
    verify = case.get("verify", {})
    env: dict[str, str] = {}
    # Default: the provider with its own dependencies (pip resolves them for the pinned
    # release), and the consumer too when the case asks for it; `install` overrides the steps.
    default = [["{consumer}", "{provider}"]] if verify.get("with_consumer") else [["{provider}"]]
    for step in verify.get("install", default):
        args = [a.format(consumer=case["consumer"], provider=spec) for a in step]
        env |= install(venv, args, log)
    code = verify["code"].strip() + "\n"
    log.append(f"$ {venv}/bin/python - <<'EOF'")
    log.extend(code.rstrip("\n").splitlines())
    log.append("EOF")
    python = str(venv / "bin" / "python")
    done = run([python, "-"], input=code, env={"PATH": "/usr/bin:/bin", **env})
    out = (done.stdout + done.stderr).rstrip("\n")
    lines = out.splitlines()
    if len(lines) > 25:  # keep the first lines and the end of a traceback
        lines = [*lines[:6], "  ...", *lines[-12:]]
    log.extend(lines)
    log.append(f"[exit status {done.returncode}]")
    shutil.rmtree(venv, ignore_errors=True)
    return done.returncode


def verify_case(folder: Path) -> bool:
    case = tomllib.loads((folder / "case.toml").read_text(encoding="utf-8"))
    breaking = bool(case.get("expect"))
    log = [
        f"# Evidence: {folder.name}",
        "",
        case["evidence"].strip(),
        "",
        f"Consumer `{case['consumer']}`; provider baseline `{case['baseline']}`, target "
        f"`{case['target']}`. Written by `python tests/realworld/verify_evidence.py {folder.name}` "
        f"(Python {platform.python_version()}): a scratch venv per run, the provider installed "
        "with pip (never imported by drift-audit itself), then the snippet from case.toml.",
        "",
    ]
    codes = {}
    for which in ("baseline", "target"):
        log += [f"## With the {which}: `{case[which]}`", "", "```console"]
        codes[which] = attempt(folder.name, case, which, case[which], log)
        log += ["```", ""]
    if breaking:
        ok = codes["baseline"] == 0 and codes["target"] != 0
        verdict = "runs at the baseline and fails at the target: a real break"
    else:
        ok = codes["baseline"] == 0 and codes["target"] == 0
        verdict = "runs with both releases"
    if not ok:
        verdict = "NOT CONFIRMED"
    log += [f"Verdict: {verdict}.", ""]
    (folder / "evidence.md").write_text("\n".join(log), encoding="utf-8")
    print(f"{folder.name}: {verdict}")
    return ok


def main(argv: list[str]) -> int:
    names = argv or sorted(p.name for p in HERE.iterdir() if (p / "case.toml").is_file())
    results = [verify_case(HERE / name) for name in names]
    return 0 if all(results) else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
