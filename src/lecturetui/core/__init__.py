"""The UI-free core: parsing, segmenting, storage, retrieval. Never imports Textual."""
