"""The time budget of an answer (kept apart so the command line reads it without importing more)."""

from __future__ import annotations

#: the default time from a question to its answer's first token, seconds (--ttft, the app's t)
DEFAULT_TTFT_S = 8.0
#: what the app's t key cycles through (0: no time budget, only the context window)
TTFT_CHOICES = (8.0, 15.0, 30.0, 0.0, 4.0)
