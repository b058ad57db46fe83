"""doctor: what the machine offers and where each model runs, and why a GPU is not used."""

from __future__ import annotations

import dataclasses

import click

from lecturetui.cli.base import Context, console, json_text, pass_ctx


@click.command("doctor")
@click.option("--llm", metavar="MODEL", help="Answer model to load (default qwen2.5-coder-1.5b).")
@click.option("--no-load", is_flag=True, help="Do not load the models (faster; less said).")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@pass_ctx
def doctor_cmd(obj: Context, llm: str | None, no_load: bool, as_json: bool) -> None:
    """Show the GPU, torch's device and dtype, llama.cpp's backend and offloaded layers."""
    from lecturetui.core.answer.guess import guess_planned
    from lecturetui.core.errors import LectureTuiError
    from lecturetui.core.models.hardware import diagnose
    from lecturetui.core.modes import DEFAULT_GUESS

    embedder = generator = None
    failures: list[str] = []
    if not no_load:
        try:
            embedder = obj.library().embedder
        except LectureTuiError as exc:
            failures.append(f"{exc.message} {exc.hint or ''}".strip())
        try:
            from lecturetui.core.answer.generation import LlamaGenerator
            from lecturetui.core.models.gguf import resolve_llm

            path = resolve_llm(obj.home.models_dir, llm)
            generator = LlamaGenerator(path, n_ctx=512, device=obj.device)
        except LectureTuiError as exc:
            failures.append(f"{exc.message} {exc.hint or ''}".strip())
    rerank = rerank_line(obj, load=not no_load)
    report = diagnose(embedder, generator, obj.device)
    if generator is not None:
        generator.close()
    # --guess auto: the lecturer's guess is searched with every question when the model is on a GPU
    guessing = guess_planned(DEFAULT_GUESS, obj.device)
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
    if report.gpus:
        for gpu in report.gpus:
            out.print(
                f"GPU          {gpu.name}, {gpu.free_mib:,} of {gpu.total_mib:,} MiB free"
                + (
                    f", compute capability {gpu.compute_capability}"
                    if gpu.compute_capability
                    else ""
                )
            )
    else:
        out.print("GPU          no NVIDIA GPU found (nvidia-smi)")
    out.print(f"CUDA nvcc    {report.nvcc or 'not installed'}")
    if report.torch:
        t = report.torch
        kinds = [k for k, ok in (("CUDA", t.cuda_available), ("MPS", t.mps_available)) if ok]
        out.print(
            f"torch        {t.version}"
            + (f", CUDA {t.cuda_build} build" if t.cuda_build else ", CPU build")
            + f"; can use: {', '.join([*kinds, 'CPU'])}"
        )
    if report.llama:
        out.print(
            f"llama.cpp    llama-cpp-python {report.llama.version}, {report.llama.backend} backend"
            + ("" if report.llama.gpu_offload else " (no GPU offload in this build)")
        )
    out.print(f"embeddings   {report.embedder_device}")
    out.print(f"re-ranking   {rerank}")
    out.print(f"answers      {report.llm_device}")
    out.print(
        "guess        "
        + ("on: questions are searched with the lecturer's guess (--guess auto)" if guessing
           else "off on the CPU (--guess on adds it: finds more, ~7 s a question on 2 cores)")
    )  # fmt: skip
    out.print(f"speech       {report.asr_device}")
    for line in report.problems + failures:
        out.print(f"[yellow]![/] {line}", soft_wrap=True)
    if not report.problems and not failures:
        out.print("[green]Nothing to fix.[/]")


def rerank_line(obj: Context, load: bool) -> str:
    """EmbeddingGemma: where it is, its size, device and dtype, its licence; or why it is off."""
    from lecturetui.core.errors import LectureTuiError
    from lecturetui.core.models import gemma

    library = obj.library()
    problem = library.rerank_status()
    if problem:
        return f"off: {problem} (hint: lecturetui models setup)"
    found = gemma.status(obj.home.models_dir)
    where = "not loaded"
    if load:
        stage = library.rerank_stage()
        try:
            emb = stage.embedder if stage else None
        except LectureTuiError as exc:
            return f"off: {exc.message}"
        if emb:
            from lecturetui.core.models.runtime import runtime_of

            where = (
                f"{getattr(emb, 'planned', emb.device)}, {getattr(emb, 'dtype', 'float32')},"
                f" {runtime_of(emb)}"
            )
    return (
        f"EmbeddingGemma-300M ({found.size / 1e9:.1f} GB, {where}); "
        f"{gemma.LICENCE}: {gemma.LICENCE_URL}"
    )
