"""app: the Textual interface (also what `lecturetui` with no command opens in a terminal)."""

from __future__ import annotations

import click

from lecturetui.cli.base import Context, llm_options, pass_ctx


@click.command("app")
@llm_options
@pass_ctx
def app_cmd(obj: Context, llm: str | None, n_ctx: int) -> None:
    """Open the app: ask, browse the segments, follow the citations."""
    from lecturetui.core.generation import LlamaGenerator
    from lecturetui.core.llmstore import DEFAULT_LLM, resolve_llm
    from lecturetui.core.service import Library
    from lecturetui.tui.app import AppServices, LectureApp

    library = Library(obj.home, obj.embed_model, obj.device)
    models = obj.home.models_dir

    def load_generator() -> LlamaGenerator:
        return LlamaGenerator(resolve_llm(models, llm), n_ctx=n_ctx)

    LectureApp(
        AppServices(library, load_generator, llm_label=(llm or DEFAULT_LLM).split("/")[-1])
    ).run()
    library.close()
