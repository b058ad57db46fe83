"""What speech recognition made of a media file (the `transcriptions` table), so a file is
never transcribed twice: keyed by the file's sha256, the speech model and the --lang asked."""

from __future__ import annotations

import json

from lecturetui.core.lectures import Cue, Transcription
from lecturetui.core.storage.store import Store
from lecturetui.core.timefmt import utc_now


class Transcriptions:
    """The transcriptions table of a library's store."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def get(self, media_hash: str, model: str, asked_language: str | None) -> Transcription | None:
        row = self.store.connection.execute(
            "SELECT language, language_probability, duration, cues FROM transcriptions"
            " WHERE media_hash = ? AND model = ? AND asked_language = ?",
            (media_hash, model, asked_language or ""),
        ).fetchone()
        if row is None:
            return None
        cues = tuple(Cue(float(a), float(b), str(t)) for a, b, t in json.loads(row[3]))
        return Transcription(cues, str(row[0]), float(row[1]), float(row[2]), model)

    def save(self, media_hash: str, asked_language: str | None, t: Transcription) -> None:
        cues = json.dumps([[c.start, c.end, c.text] for c in t.cues], ensure_ascii=False)
        with self.store.transaction():
            self.store.connection.execute(
                "INSERT OR REPLACE INTO transcriptions (media_hash, model, asked_language, language,"
                " language_probability, duration, cues, made_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    media_hash,
                    t.model,
                    asked_language or "",
                    t.language,
                    t.language_probability,
                    t.duration,
                    cues,
                    utc_now(),
                ),
            )
