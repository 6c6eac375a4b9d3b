"""acme: engine configuration."""
