# Maintainers: `python -m auditor` runs the same command as the `drift-audit` script.
"""python -m auditor -> auditor.cli.script."""

from __future__ import annotations

from auditor.cli import script

if __name__ == "__main__":
    script()
