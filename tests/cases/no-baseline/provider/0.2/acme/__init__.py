"""acme: image thumbnails."""
