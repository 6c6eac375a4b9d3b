"""acme: record codecs and utilities."""
