"""acme: a network client."""
