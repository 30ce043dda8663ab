"""Core benchmark: import cost and env reset/step throughput beside GEM."""
