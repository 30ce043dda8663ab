"""Environment families: procedural tasks, games, tool use, code.

Nothing here is imported by `import palaestra`; `palaestra.make` imports an env's module
when it is first made (see `registry.yaml`).
"""
