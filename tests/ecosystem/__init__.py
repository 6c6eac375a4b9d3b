"""Synthetic ecosystems: one provider, many consumers, each consumer's outcome known."""
