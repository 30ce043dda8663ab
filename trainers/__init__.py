"""palaestra.trainers"""
