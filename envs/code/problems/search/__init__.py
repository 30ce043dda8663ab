"""Shipped problems: search."""
