"""acme: request handlers."""
