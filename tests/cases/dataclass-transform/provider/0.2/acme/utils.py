"""The `config` decorator (vLLM 0.17 style): makes a pydantic dataclass that forbids extras."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import ConfigDict, Field
from pydantic.dataclasses import dataclass
from typing_extensions import dataclass_transform

ConfigT = TypeVar("ConfigT")


@dataclass_transform(field_specifiers=(Field,))
def config(cls: type[ConfigT] | None = None, *, config: ConfigDict | None = None, **kwargs: Any):
    """Makes `cls` a pydantic dataclass; unknown keywords are rejected unless `config` says so."""

    def decorator(cls: type[ConfigT]) -> type[ConfigT]:
        merged = ConfigDict(arbitrary_types_allowed=True, extra="forbid")
        merged.update(config or {})
        return dataclass(cls, config=merged, **kwargs)

    if cls is None:
        return decorator
    return decorator(cls)
