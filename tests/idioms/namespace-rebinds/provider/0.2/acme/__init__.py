"""acme 0.2: each module rebinds run (or seems to) through its namespace."""
