"""The world harness: real provider upgrades against their real dependents, judged by the
interpreter (see README.md beside this file, and docs/world.md for the results)."""
