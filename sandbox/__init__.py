"""palaestra.sandbox"""
