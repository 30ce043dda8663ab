"""palaestra.verifiers"""
