"""acme: msgspec wire messages."""
