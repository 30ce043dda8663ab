"""Benchmarks. Run each from the repository root with ``python -m bench.<name>``."""
