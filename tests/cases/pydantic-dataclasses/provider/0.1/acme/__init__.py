"""acme: pydantic dataclasses."""
