"""Code scoring benchmark: `python -m bench.code` (see __main__.py)."""
