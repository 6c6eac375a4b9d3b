"""acme: run settings."""
