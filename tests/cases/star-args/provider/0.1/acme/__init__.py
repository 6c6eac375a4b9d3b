"""acme: vector drawing."""
