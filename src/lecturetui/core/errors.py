"""Errors a user can cause: one clear sentence and a hint, never a traceback."""

from __future__ import annotations


class LectureTuiError(Exception):
    """An error with a message meant for the user and an optional hint on what to do."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return self.message if not self.hint else f"{self.message} ({self.hint})"


class TranscriptError(LectureTuiError):
    """A transcript file that cannot be read or parsed; `line` is 1-based when known."""

    def __init__(self, message: str, hint: str | None = None, line: int | None = None) -> None:
        super().__init__(message, hint)
        self.line = line


class StoreError(LectureTuiError):
    """The library database cannot be opened or used."""
