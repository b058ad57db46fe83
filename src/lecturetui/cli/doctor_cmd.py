"""doctor: what the machine offers and where each model runs, and why a GPU is not used."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import click

from lecturetui.cli.context import Context, pass_ctx
from lecturetui.cli.output import console
from lecturetui.cli.shared import json_text
from lecturetui.core.asking import DEFAULT_GUESS, AnswerChoice, guess_planned, runtime_of
from lecturetui.core.errors import LectureTuiError
from lecturetui.core.i18n import N_, _, decimal
from lecturetui.core.models.management import (
    FIRST_STAGE,
    RERANKING,
    diagnose,
    embedders,
    reranker,
    where_line,
)

if TYPE_CHECKING:
    from rich.console import Console

    from lecturetui.core.asking import AnswerModel, Embedder
    from lecturetui.core.models.management import Doctor


def labels() -> tuple[str, ...]:
    """The report's row labels, in the order printed (the names of software are not
    translated); the embedders' rows are their roles' (core/models/embedders.py)."""
    return (
        "GPU",
        "CUDA nvcc",
        "torch",
        "llama.cpp",
        *embedders.ROLE_LABELS.values(),
        N_("answers"),
        N_("guess"),
        N_("speech"),
    )


def label(name: str) -> str:
    """A row's label, translated and padded to the longest + 3, so that the values line up."""
    width = max(len(_(x)) for x in labels()) + 3
    return f"{_(name):{width}}"


@click.command("doctor")
@click.option("--llm", metavar="MODEL", help="Answer model to load (default qwen2.5-coder-1.5b).")
@click.option("--no-load", is_flag=True, help="Do not load the models (faster; less said).")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@pass_ctx
def doctor_cmd(obj: Context, llm: str | None, no_load: bool, as_json: bool) -> None:
    """Show the GPU, torch's device and dtype, llama.cpp's backend and offloaded layers, where
    each model runs and why."""
    embedder, generator, failures = (None, None, []) if no_load else _load(obj, llm)
    rerank = rerank_line(obj, load=not no_load, human=not as_json)
    report = diagnose(embedder, generator, obj.placement, obj.home.models_dir)
    if generator is not None:
        generator.close()
    # --guess auto: the lecturer's guess is searched with every question when the model is on a GPU
    guessing = guess_planned(DEFAULT_GUESS, obj.placement)
    if as_json:
        data = dataclasses.asdict(report)
        data["guess_auto"] = guessing
        data["rerank"] = rerank
        data["problems"] = report.problems + failures
        if data["llama"]:
            data["llama"].pop("system_info", None)
        click.echo(json_text(data))
        return
    out = console()
    _print_machine(out, report)
    out.print(label(embedders.ROLE_LABELS[FIRST_STAGE]) + report.embedder_device)
    out.print(label(embedders.ROLE_LABELS[RERANKING]) + rerank)
    out.print(label("answers") + report.llm_device)
    out.print(
        label("guess")
        + (
            _("on: questions are searched with the lecturer's guess (--guess auto)")
            if guessing
            else _("off on the CPU (--guess on adds it: finds more, ~7 s a question on 2 cores)")
        )
    )
    out.print(label("speech") + report.asr_device)
    print_verdict(out, report, failures)


def _load(obj: Context, llm: str | None) -> tuple[Embedder | None, AnswerModel | None, list[str]]:
    """The first stage's embedder and the answer model (loaded small, not kept), and why either
    could not be loaded."""
    embedder = generator = None
    failures: list[str] = []
    try:
        embedder = obj.library().embedder
    except LectureTuiError as exc:
        failures.append(f"{exc.message} {exc.hint or ''}".strip())
    try:
        # where the answer model would run
        generator = obj.session(AnswerChoice(llm), quiet=True).probe(512)
    except LectureTuiError as exc:
        failures.append(f"{exc.message} {exc.hint or ''}".strip())
    return embedder, generator, failures


def _print_machine(out: Console, report: Doctor) -> None:
    """The GPU, CUDA's compiler, torch's build and llama.cpp's backend."""
    if report.gpus:
        for gpu in report.gpus:
            free = _("{name}, {free} of {total} MiB free").format(
                name=gpu.name, free=decimal(gpu.free_mib, 0), total=decimal(gpu.total_mib, 0)
            )
            if gpu.compute_capability:
                free += ", " + _("compute capability {version}").format(
                    version=gpu.compute_capability
                )
            out.print(label("GPU") + free)
    else:
        out.print(label("GPU") + _("no NVIDIA GPU found (nvidia-smi)"))
    out.print(label("CUDA nvcc") + (report.nvcc or _("not installed")))
    if report.torch:
        t = report.torch
        kinds = [k for k, ok in (("CUDA", t.cuda_available), ("MPS", t.mps_available)) if ok]
        build = (
            _("CUDA {version} build").format(version=t.cuda_build)
            if t.cuda_build
            else _("CPU build")
        )
        uses = _("can use: {devices}").format(devices=", ".join([*kinds, "CPU"]))
        out.print(label("torch") + f"{t.version}, {build}; {uses}")
    if report.llama:
        backend = _("llama-cpp-python {version}, {backend} backend").format(
            version=report.llama.version, backend=report.llama.backend
        )
        if not report.llama.gpu_offload:
            backend += " " + _("(no GPU offload in this build)")
        out.print(label("llama.cpp") + backend)


def print_verdict(out: Console, report: Doctor, failures: list[str]) -> None:
    """Where each model runs and why, then what to fix (or that nothing is)."""
    out.print(_("Where each model runs, and why:"))
    for row in report.where:
        out.print("  " + where_line(row), soft_wrap=True, markup=False, highlight=False)
    for line in report.problems + failures:
        out.print(f"[yellow]![/] {line}", soft_wrap=True)
    if not report.problems and not failures:
        out.print("[green]" + _("Nothing to fix.") + "[/]")


def rerank_line(obj: Context, load: bool, human: bool = True) -> str:
    """The re-ranking model (core/models/embedders.py): where it is, its size, device and dtype,
    its licence; or why it is off (in the current language for people, `human`; in English for
    --json)."""
    say = _ if human else N_
    library = obj.library()
    problem = library.rerank_status()
    if problem:
        return say(N_("off: {problem} (hint: lecturetui models setup)")).format(problem=problem)
    spec = reranker()
    found = spec.module().status(obj.home.models_dir)
    where = say(N_("not loaded"))
    if load:
        stage = library.rerank_stage()
        try:
            emb = stage.embedder if stage else None
        except LectureTuiError as exc:
            return say(N_("off: {problem}")).format(problem=exc.message)
        if emb:
            where = (
                f"{getattr(emb, 'planned', emb.device)}, {getattr(emb, 'dtype', 'float32')},"
                f" {runtime_of(emb)}"
            )
    size = decimal(found.size / 1e9, grouping=False) if human else f"{found.size / 1e9:.1f}"
    return f"{spec.title} ({size} GB, {where}); {spec.licence}: {spec.licence_url}"
