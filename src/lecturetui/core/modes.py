"""The search modes and the guess settings: a module of their own, so the command line's
options import nothing else."""

MODES = ("hybrid", "dense", "lexical")
DEFAULT_MODE = "hybrid"
#: `--guess`: search with the lecturer's guess (core/answer/guess.py) when the model is on a GPU, always,
#: or never
GUESS_SETTINGS = ("auto", "on", "off")
DEFAULT_GUESS = "auto"
