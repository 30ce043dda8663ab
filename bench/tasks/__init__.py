"""Task benchmark: generation latency per family and level, and a side-by-side with reasoning-gym.

Run from the repository root with ``python -m bench.tasks`` (see ``bench/tasks/README.md``).
"""
