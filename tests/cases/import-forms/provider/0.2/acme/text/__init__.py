"""Text processing."""
