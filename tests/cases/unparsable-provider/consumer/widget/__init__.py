"""widget: a consumer of acme."""
