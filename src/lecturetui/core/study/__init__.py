"""What a student keeps: bookmarks, notes on moments, saved answers, and their
export (Markdown, Anki, CSV)."""
