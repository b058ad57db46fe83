"""Where lecturetui keeps its data: one data home with `index/` (library + vectors) and `models/`."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

ENV_HOME = "LECTURETUI_HOME"
ENV_MODELS = "LECTURETUI_MODELS"


def default_home() -> Path:
    from platformdirs import user_data_path

    return user_data_path("lecturetui", appauthor=False)


@dataclass(frozen=True, slots=True)
class DataHome:
    root: Path
    models_dir: Path

    @classmethod
    def resolve(cls, home: str | os.PathLike[str] | None = None) -> DataHome:
        """`home` (from --home) wins, then $LECTURETUI_HOME, then the per-user data folder.

        Model files live in `<home>/models` unless $LECTURETUI_MODELS points elsewhere (so several
        libraries can share one copy of the models). Nothing is created here.
        """
        raw = home if home is not None else os.environ.get(ENV_HOME)
        root = Path(raw).expanduser() if raw else default_home()
        models_env = os.environ.get(ENV_MODELS)
        models = Path(models_env).expanduser() if models_env else root / "models"
        return cls(root.resolve(), models.resolve())

    @property
    def index_dir(self) -> Path:
        return self.root / "index"

    @property
    def db_path(self) -> Path:
        return self.index_dir / "library.sqlite3"
