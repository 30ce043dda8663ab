"""Shipped problems: arithmetic."""
