"""Pydantic models that accept a field by its alias and, with populate_by_name, by its name."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class Account(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    account_id: int = Field(alias="accountId")
    owner: str = "root"
    region: str = "eu"
