"""acme: a request scheduler."""
