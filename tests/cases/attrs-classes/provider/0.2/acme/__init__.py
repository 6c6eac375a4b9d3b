"""acme: attrs records."""
