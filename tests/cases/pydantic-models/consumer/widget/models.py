"""Builds acme's pydantic models.

In 0.2 Strict, Endpoint and Mount (all forbidding extras: model_config, a class keyword, a
base) lost a field; Loose and Open lost one too, but they ignore or keep unknown keywords;
Job gained the required `priority`; Profile's `displayName` alias became `screenName` (and
its `user_id` field became `uid`, keeping the alias `userId`).
"""

from __future__ import annotations

from acme.models import Endpoint, Job, Loose, Mount, Open, Profile, Strict


def strict_legacy() -> Strict:
    return Strict(name="s", legacy=True)  # expect: unexpected-keyword


def strict_retries() -> Strict:
    return Strict(name="s", retries=5)  # near-miss: `retries` is still a field


def endpoint_timeout() -> Endpoint:
    return Endpoint(host="h", port=8080, timeout=2.5)  # expect: unexpected-keyword


def endpoint_port() -> Endpoint:
    return Endpoint(host="h", port=8080)  # near-miss


def mount_mode() -> Mount:
    return Mount(path="/data", mode="rw")  # expect: unexpected-keyword


def mount_path() -> Mount:
    return Mount(path="/data")  # near-miss: the base forbids extras, but none are passed


def loose_color() -> Loose:
    return Loose(label="l", color="blue")  # near-miss: extras are ignored by default


def open_ttl() -> Open:
    return Open(key="k", ttl=5)  # near-miss: extra="allow" keeps `ttl`


def job() -> Job:
    return Job(name="nightly")  # expect: missing-argument


def job_with_queue() -> Job:
    return Job(name="nightly", queue="slow")  # expect: missing-argument


def job_prioritised() -> Job:
    return Job(name="nightly", priority=1)  # near-miss: passes the new field


def profile_display() -> Profile:
    return Profile(userId=1, displayName="ann")  # expect: unexpected-keyword


def profile_by_alias() -> Profile:
    return Profile(userId=1)  # near-miss: the alias `userId` survived the field's rename


def profile_by_name() -> Profile:
    # only the alias is accepted (no populate_by_name): already broken against 0.1
    return Profile(user_id=1)  # expect-preexisting: unexpected-keyword, missing-argument
