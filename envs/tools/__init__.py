"""Multi-turn environments where the model uses tools."""
