"""Process operations: configuration, structured logs, Prometheus metrics."""
