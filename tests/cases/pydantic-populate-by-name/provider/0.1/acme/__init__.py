"""acme: pydantic settings models."""
