"""``python -m bench.sandbox``: see run.py."""

from bench.sandbox.run import main

main()
