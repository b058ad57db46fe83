"""Where lecturetui keeps its data: a data home (one library) and the user's models folder.

A data home holds the library and its vector indexes (`index/`), the settings, the answer
model's measured speed and its saved prompt start, and the app's log; this module names every
file in it, and every other module asks `DataHome` for them. The models are the user's, not a
library's: one folder, shared by every data home (see `DataHome.resolve`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from lecturetui.core.settings import ROOT, load_settings

ENV_HOME = "LECTURETUI_HOME"
ENV_MODELS = "LECTURETUI_MODELS"
#: the settings key (above the tables of settings.toml) naming the models folder
MODELS_SETTING = "models"
#: the data home's files and folders
SETTINGS_FILE = "settings.toml"
SPEED_FILE = "llm_speed.json"
PREFIX_FOLDER = "llm_prefix"
LOG_FILE = "lecturetui.log"
INDEX_FOLDER = "index"
MODELS_FOLDER = "models"


def default_home() -> Path:
    from platformdirs import user_data_path  # lazy: 12 ms; the library loads this module

    return user_data_path("lecturetui", appauthor=False)


def shared_models() -> Path:
    """The user's models folder: the one in the default data home (the platform's data folder)."""
    return default_home() / MODELS_FOLDER


@dataclass(frozen=True, slots=True)
class DataHome:
    root: Path
    models_dir: Path

    @classmethod
    def resolve(cls, home: str | os.PathLike[str] | None = None) -> DataHome:
        """`home` (from --home) wins, then $LECTURETUI_HOME, then the per-user data folder.

        The models folder: $LECTURETUI_MODELS, else `models = "PATH"` above the tables of the
        home's settings.toml, else the home's own `models/` where one is already there (a data
        home from before the models were shared keeps its copy), else the user's models folder,
        shared by every data home. Nothing is created here.
        """
        raw = home if home is not None else os.environ.get(ENV_HOME)
        root = (Path(raw).expanduser() if raw else default_home()).resolve()
        return cls(root, _models_folder(root).resolve())

    @property
    def settings_file(self) -> Path:
        return self.root / SETTINGS_FILE

    @property
    def model_state(self) -> Path:
        """Where the answer model's prompt speed and its saved prompt start are kept: the models
        folder, which every data home shares (they depend on the model, the prompt and the
        machine, never on the library: a first question in a fresh data home reads nothing
        again), else, where that folder cannot be written, the data home."""
        folder = self.models_dir
        return folder if folder.is_dir() and os.access(folder, os.W_OK) else self.root

    @property
    def speed_file(self) -> Path:
        """The answer model's measured prompt speed (core/answer/prompt_speed.py)."""
        return self.model_state / SPEED_FILE

    @property
    def prefix_dir(self) -> Path:
        """The answer model's saved prompt start (core/llm/prefix_state.py)."""
        return self.model_state / PREFIX_FOLDER

    @property
    def log_file(self) -> Path:
        """The app's log: a failure's traceback, what the models wrote on stderr."""
        return self.root / LOG_FILE

    @property
    def index_dir(self) -> Path:
        """The library and E5's window index (core/indexes.py)."""
        return self.root / INDEX_FOLDER

    @property
    def db_path(self) -> Path:
        return self.index_dir / "library.sqlite3"

    @property
    def units_dir(self) -> Path:
        """E5's index of small units (core/retrieval/small_unit_index.py)."""
        return self.index_dir / "units"

    @property
    def rerank_dir(self) -> Path:
        """EmbeddingGemma's vectors for re-ranking (core/retrieval/rerank.py)."""
        return self.index_dir / "rerank"

    @property
    def sentences_db(self) -> Path:
        """Sentence vectors, cached by model and text (core/retrieval/sentences.py)."""
        return self.index_dir / "sentences.sqlite3"


def _models_folder(root: Path) -> Path:
    env = os.environ.get(ENV_MODELS)
    if env:
        return Path(env).expanduser()

    setting = load_settings(root / SETTINGS_FILE).get(ROOT, {}).get(MODELS_SETTING)
    if setting:
        path = Path(str(setting)).expanduser()
        return path if path.is_absolute() else root / path
    own = root / MODELS_FOLDER
    return own if own.is_dir() else shared_models()
