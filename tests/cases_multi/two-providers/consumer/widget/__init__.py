"""A consumer of two providers."""
