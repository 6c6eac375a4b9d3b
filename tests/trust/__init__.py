"""Helpers for the trust tests (tests/*/test_trust_*.py): hostile archives, a fake index."""
