"""The one family of errors that means "the audit could not run", and the exit codes.

Every stage raises an `AuditError` subclass for bad input (a spec that does not parse, a
package or version the index does not have, an unreadable archive, an unreachable index).
Only `cli/` turns them into text: one line, a hint, exit status 2.
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """Exit statuses, as DESIGN.md fixes them."""

    CLEAN = 0  # nothing at or above --fail-on
    FINDINGS = 1
    ERROR = 2  # the audit could not run


class AuditError(Exception):
    """The audit could not run. The message is for the user; `hint` says what to do."""

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


class BadSpecError(AuditError):
    """A requirement that is not PEP 508, or a direct reference that cannot be read."""


class PackageNotFoundError(AuditError):
    """The index has no project of that name."""


class VersionNotFoundError(AuditError):
    """The project exists, but no release matches the specifier."""


class ConsumerNotFoundError(AuditError):
    """CONSUMER is neither a folder, an installed distribution nor a requirement."""


class FetchError(AuditError):
    """The index is unreachable, answered with an error, or --offline met a cold cache."""


class ArchiveError(AuditError):
    """A wheel or sdist is corrupt, truncated or does not match its hash."""


class UnreadableError(AuditError):
    """A consumer file or folder exists but cannot be read: auditing around it would pass
    over whatever it holds."""


class ConfigError(AuditError):
    """A setting that cannot work: an unknown or mistyped key in [tool.drift-audit], an index
    URL that is not one (from --index-url, PIP_INDEX_URL or pip's configuration)."""


class StoreError(AuditError):
    """An ecosystem run's `--store` cannot be used: not a regular file, not a SQLite
    database, a database of another schema, or one that cannot be read or written."""


class NotACacheError(AuditError):
    """`drift-audit cache clear` was pointed at a folder that is not drift-audit's cache."""
