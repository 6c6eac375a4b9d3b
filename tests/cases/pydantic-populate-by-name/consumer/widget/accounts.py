"""Builds acme's Account, a model that forbids extras but populates fields by name too.

In 0.2 Account lost `region`. Its `account_id` field can be passed as `accountId` (the
alias) or as `account_id` (populate_by_name=True), against both versions.
"""

from __future__ import annotations

from acme.models import Account


def by_alias() -> Account:
    return Account(accountId=7)  # near-miss: the alias


def by_name() -> Account:
    return Account(account_id=7, owner="ops")  # near-miss: populate_by_name accepts the name


def with_region() -> Account:
    return Account(accountId=7, region="us")  # expect: unexpected-keyword
