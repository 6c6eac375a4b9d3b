"""acme: audio mixing primitives."""
