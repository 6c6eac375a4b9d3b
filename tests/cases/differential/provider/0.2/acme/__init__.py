"""acme: a job queue."""
