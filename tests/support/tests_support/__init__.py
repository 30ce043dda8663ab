"""Importable helpers for the test suite (broken and minimal envs)."""
