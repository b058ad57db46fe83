"""The UI-free core (never imports Textual), in layers; a part imports only its own layer and
those below it (tests/test_architecture.py checks it):

- values and small helpers, flat here: errors, lectures (cues, segments, lectures), records
  (what --json prints), paths, settings, language, citing, conversation, lexical, timefmt...
- storage/: the SQLite library, its schema, the history and the transcriptions
- models/: the model files, their offline preparation, the hardware, the embedding model
- ingest/: files to stored segments (formats, repairs, segmenting, audio and video, yt-dlp)
- retrieval/: vector indexes, BM25, fusion, re-ranking, scopes
- study/: bookmarks, moments, saved answers and their export
- library.py (the Library every face uses; what it holds in library_contents.py, its embedding
  model in library_embedder.py) and watch.py (a watched folder)
- pack/: course packs, a library's lectures shared as one file and imported safely
- requests/words.py: the front door's words (the settings, the model source, the events every
  request yields), below the pipelines that use them
- answer/: the question's path: evidence, the verdict, prompts, the cited answer
  (answer/question.py)
- summary/: a lecture's summary: which lecture a request names, writing it, the pending ones,
  folding its events and showing it (its parts and key phrases are study/'s, found at ingest)
- requests/: the one front door (door.py): a typed request (a question, a lecture's summary, a
  course's overview) answered as events, and why it is answered that way; the kinds of request
  (kinds.py), each what it is asked with, yields, keeps and shows
- session.py: the one door to the models
- evaluation/: the evaluation of questions, as the seed reports do it
"""
