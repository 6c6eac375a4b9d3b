"""acme: background tasks."""
