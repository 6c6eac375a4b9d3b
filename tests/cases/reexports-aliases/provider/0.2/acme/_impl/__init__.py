"""Implementation details; import from `acme` instead."""
