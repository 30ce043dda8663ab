"""Shipped problems: data structures."""
