"""Benchmarks of the sandbox backends (see run.py)."""
