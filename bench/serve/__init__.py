"""Serve benchmark: `palaestra serve` beside in-process stepping and OpenEnv's own server."""
