"""The models' management, gathered for the faces (the command line reaches the models' part of
the core through here): where the models run (placement.py), preparing and downloading them
(setup.py, locate.py), which they are (the embedders' list, the answer and speech models'
names: embedders.py, gguf.py, whisper.py), the doctor's report (doctor.py), and the data home
and settings file they are kept by (core/paths.py, core/settings.py).

Light by design: `lecturetui --help` imports it (the --device choices), so nothing here loads
numpy or a model's library. The list of embedders is re-exported as its module, `embedders`, and
read as `embedders.EMBEDDERS` when a command runs (a test swaps the list)."""

from __future__ import annotations

from lecturetui.core.models import embedders
from lecturetui.core.models.doctor import Doctor, diagnose, where_line
from lecturetui.core.models.embedders import FIRST_STAGE, RERANKING, reranker
from lecturetui.core.models.gguf import BUNDLED, DEFAULT_LLM, resolve_llm
from lecturetui.core.models.locate import Notify, pull
from lecturetui.core.models.placement import BULK, DEVICES, ONE_SHOT, Placement
from lecturetui.core.models.setup import DOWNLOAD_GB, Prepared, first_run_done, prepare
from lecturetui.core.models.whisper import BUNDLED_ASR, DEFAULT_ASR
from lecturetui.core.paths import MODELS_SETTING, SETTINGS_FILE, DataHome
from lecturetui.core.settings import ROOT, ROOT_KEYS, load_settings, save_setting

__all__ = [
    "BULK",
    "BUNDLED",
    "BUNDLED_ASR",
    "DEFAULT_ASR",
    "DEFAULT_LLM",
    "DEVICES",
    "DOWNLOAD_GB",
    "FIRST_STAGE",
    "MODELS_SETTING",
    "ONE_SHOT",
    "RERANKING",
    "ROOT",
    "ROOT_KEYS",
    "SETTINGS_FILE",
    "DataHome",
    "Doctor",
    "Notify",
    "Placement",
    "Prepared",
    "diagnose",
    "embedders",
    "first_run_done",
    "load_settings",
    "prepare",
    "pull",
    "reranker",
    "resolve_llm",
    "save_setting",
    "where_line",
]
