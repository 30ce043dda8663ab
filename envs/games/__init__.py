"""Interactive text games."""
