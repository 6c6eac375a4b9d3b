"""acme: image operations."""
