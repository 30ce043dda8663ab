"""palaestra.agents"""
