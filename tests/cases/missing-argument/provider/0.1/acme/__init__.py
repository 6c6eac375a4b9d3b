"""acme: a tiny scheduler and block allocator."""
