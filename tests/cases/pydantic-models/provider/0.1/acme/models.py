"""Pydantic models: their constructors come from their fields and their `extra` policy."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class Strict(BaseModel):
    """Forbids unknown keywords through model_config."""

    model_config = ConfigDict(extra="forbid")

    name: str
    retries: int = 3
    legacy: bool = False


class Endpoint(BaseModel, extra="forbid"):
    """Forbids unknown keywords through a class keyword."""

    host: str
    port: int = 80
    timeout: float = 1.0


class StrictBase(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Mount(StrictBase):
    """Forbids unknown keywords through its base."""

    path: str
    mode: str = "r"


class Loose(BaseModel):
    """The default policy: unknown keywords are ignored."""

    label: str
    color: str = "red"


class Open(BaseModel, extra="allow"):
    """Unknown keywords are kept as extra attributes."""

    key: str
    ttl: int = 60


class Job(BaseModel):
    name: str
    queue: str = "default"


class Profile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    user_id: int = Field(alias="userId")
    display_name: str = Field("anon", alias="displayName")
