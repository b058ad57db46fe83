"""The model files (E5, EmbeddingGemma, the GGUF answer models, Whisper): where they
are, how they are prepared offline, the hardware they run on, and the embedding model itself."""
