"""A lecture's summary: which lecture a request names (named.py), writing it part by part then
the gist (writing.py), the summaries not written yet (pending.py), its events folded as they
come (fold.py), its text (text.py) and how the faces show it (render.py)."""
