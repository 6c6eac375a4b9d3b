"""acme: file helpers."""
