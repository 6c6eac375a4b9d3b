"""Builds acme's attrs classes.

In 0.2: Legacy lost `ttl`; Entry gained the required keyword-only `source`; Conn's private
`_retries` (passed as `retries`) became `_attempts`; Version lost `patch`; Pool's `limit` got
the alias `max_items`; Store's `cache` became init=False; Opts became kw_only; Request's
`timeout` became keyword-only.
"""

from __future__ import annotations

from acme.records import Conn, Entry, Legacy, Opts, Pool, Request, Store, Version


def legacy_ttl() -> Legacy:
    return Legacy("k", ttl=5)  # expect: unexpected-keyword


def legacy() -> Legacy:
    return Legacy("k", "v")  # near-miss: key and value are still attr.ib fields


def legacy_note() -> Legacy:
    # `note` is annotated but not an attr.ib, and the class has no auto_attribs
    return Legacy("k", note="x")  # expect-preexisting: unexpected-keyword


def entry() -> Entry:
    return Entry("k", 2.0)  # expect: missing-argument


def entry_with_source() -> Entry:
    return Entry("k", source="feed")  # near-miss: passes the new field by keyword


def conn_retries() -> Conn:
    return Conn("h", retries=5)  # expect: unexpected-keyword


def conn_attempts() -> Conn:
    return Conn("h", attempts=5)  # near-miss: `_attempts` is passed as `attempts`


def conn_private() -> Conn:
    return Conn("h", _retries=5)  # expect-preexisting: unexpected-keyword


def version_patch() -> Version:
    return Version(1, patch=3)  # expect: unexpected-keyword


def version_positional() -> Version:
    return Version(1, 2, 3)  # expect: too-many-positional


def version_minor() -> Version:
    return Version(1, minor=2)  # near-miss


def pool_capacity() -> Pool:
    return Pool(capacity=8)  # near-miss: the alias of `_size`


def pool_size() -> Pool:
    return Pool(size=8)  # expect-preexisting: unexpected-keyword


def pool_limit() -> Pool:
    return Pool(limit=2)  # expect: unexpected-keyword


def pool_max_items() -> Pool:
    return Pool(max_items=2)  # near-miss: the new alias


def store_cache() -> Store:
    return Store("s", cache={})  # expect: unexpected-keyword


def store() -> Store:
    return Store("s")  # near-miss: `cache` still exists, only not in __init__


def opts_positional() -> Opts:
    return Opts(True)  # expect: too-many-positional


def opts() -> Opts:
    return Opts(verbose=True, level=2)  # near-miss: keywords still fit kw_only


def request_positional() -> Request:
    return Request("u", 2.0)  # expect: too-many-positional


def request() -> Request:
    return Request("u", timeout=2.0)  # near-miss
