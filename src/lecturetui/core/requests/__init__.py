"""The one front door (door.py): every face sends a typed request there and reads its events;
the door's words (words.py: the settings, the model source, the events every request yields,
the question) sit below the pipeline that uses them, and the kinds of request, each with what
it is asked with, what it yields, its record and how it is kept, are listed once (kinds.py)."""
