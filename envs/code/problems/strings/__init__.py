"""Shipped problems: strings."""
