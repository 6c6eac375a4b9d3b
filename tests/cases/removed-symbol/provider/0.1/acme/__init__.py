"""acme: a small HTTP-ish client."""
