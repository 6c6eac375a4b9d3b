"""acme: model building blocks."""
