"""Induction: infer a hidden rule from examples and apply it.

1-D ARC-like grids, list functions and number sequences. Shared pieces are in
`palaestra.envs.tasks._logic`.
"""
