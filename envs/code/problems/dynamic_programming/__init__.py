"""Shipped problems: dynamic programming."""
