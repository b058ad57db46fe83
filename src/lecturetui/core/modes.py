"""The search modes: a module of their own, so the command line's options import nothing else."""

MODES = ("hybrid", "dense", "lexical")
DEFAULT_MODE = "hybrid"
