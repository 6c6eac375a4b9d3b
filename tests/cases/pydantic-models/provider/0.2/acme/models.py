"""Pydantic models: their constructors come from their fields and their `extra` policy."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class Strict(BaseModel):
    """Forbids unknown keywords through model_config."""

    model_config = ConfigDict(extra="forbid")

    name: str
    retries: int = 3


class Endpoint(BaseModel, extra="forbid"):
    """Forbids unknown keywords through a class keyword."""

    host: str
    port: int = 80


class StrictBase(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Mount(StrictBase):
    """Forbids unknown keywords through its base."""

    path: str


class Loose(BaseModel):
    """The default policy: unknown keywords are ignored."""

    label: str


class Open(BaseModel, extra="allow"):
    """Unknown keywords are kept as extra attributes."""

    key: str


class Job(BaseModel):
    name: str
    priority: int
    queue: str = "default"


class Profile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    uid: int = Field(alias="userId")
    screen_name: str = Field("anon", alias="screenName")
