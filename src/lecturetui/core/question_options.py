"""The options a question is asked with: search mode, the lecturer's guess, the time budget. A
module of their own, so the command line's options import nothing else (the time budget itself
is computed in core/answer/budget.py)."""

MODES = ("hybrid", "dense", "lexical")
DEFAULT_MODE = "hybrid"
#: `--guess`: search with the lecturer's guess (core/answer/guess.py) when the model is on a GPU, always,
#: or never
GUESS_SETTINGS = ("auto", "on", "off")
DEFAULT_GUESS = "auto"
#: the default time from a question to its answer's first token, seconds (--ttft, the app's t)
DEFAULT_TTFT_S = 8.0
#: what the app's t key cycles through (0: no time budget, only the context window)
TTFT_CHOICES = (8.0, 15.0, 30.0, 0.0, 4.0)
