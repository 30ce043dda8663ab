"""Adapters between Palaestra and the RL frameworks people already run."""
