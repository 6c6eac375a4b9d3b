"""acme 0.1: every module defines run(a, b=1, old=2) and nothing rebinds it."""
