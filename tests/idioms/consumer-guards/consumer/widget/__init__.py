import acme  # noqa: F401
