"""lecturetui: search and question answering over lecture transcripts, in the terminal."""

__version__ = "0.1.0"
