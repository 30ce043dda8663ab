"""Shipped problems: simulation."""
