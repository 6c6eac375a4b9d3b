"""acme: geometry types."""
