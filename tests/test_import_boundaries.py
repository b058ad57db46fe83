"""The core never pulls in the UI or the heavy ML stacks at import time."""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys

import lecturetui.core

HEAVY = ("textual", "torch", "sentence_transformers", "llama_cpp", "transformers", "hnswlib",
         "faster_whisper", "ctranslate2", "av", "onnxruntime")  # fmt: skip
#: the modules that import a heavy stack at their top: each is imported only inside a function
#: (its one lazy boundary), so no other core module brings them in
STACKS = ("lecturetui.core.models.torch_embedder", "lecturetui.core.models.torch_export",
          "lecturetui.core.models.sentence_export", "lecturetui.core.models.e5build")  # fmt: skip


def _loaded_after(code: str) -> list[str]:
    probe = f"{code}\nimport sys, json\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    mods = json.loads(out.stdout.strip().splitlines()[-1])
    return [m for m in mods if m.split(".")[0] in HEAVY or m in STACKS]


def test_every_core_module_imports_without_ui_or_ml_stacks() -> None:
    names = [m.name for m in pkgutil.walk_packages(lecturetui.core.__path__, "lecturetui.core.")]
    assert "lecturetui.core.storage.store" in names and "lecturetui.core.ingest.formats" in names
    code = "\n".join(f"import {n}" for n in names if n not in STACKS)
    assert _loaded_after(code) == []


def test_package_and_cli_import_light() -> None:
    assert _loaded_after("import lecturetui, lecturetui.cli") == []


def test_help_runs_without_heavy_imports() -> None:
    code = (
        "import sys\nfrom lecturetui.cli import cli\n"
        "try:\n    cli.main(['--help'], standalone_mode=False)\nexcept SystemExit:\n    pass"
    )
    assert _loaded_after(code) == []
