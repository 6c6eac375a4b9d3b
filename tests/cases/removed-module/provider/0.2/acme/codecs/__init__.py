"""Record codecs."""
