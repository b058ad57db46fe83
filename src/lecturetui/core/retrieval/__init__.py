"""Finding the moments: the vector indexes, BM25, their fusion, EmbeddingGemma's
re-ranking, scopes, and the sentence vectors the evidence is scored with."""
