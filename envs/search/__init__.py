"""Search and research environments over a generated encyclopedia and real retrieval backends."""
