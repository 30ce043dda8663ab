"""Single-turn procedural reasoning tasks."""
