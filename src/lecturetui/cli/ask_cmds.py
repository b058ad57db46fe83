"""ask: a streamed, cited answer from the local llama.cpp model."""

from __future__ import annotations

import json
import sys

import click

from lecturetui.cli.base import Context, console, llm_options, mode_option, note, pass_ctx


@click.command("ask")
@click.argument("question")
@click.option(
    "-k", "k", type=click.IntRange(1, 50), default=10, show_default=True, help="Segments retrieved."
)
@llm_options
@click.option(
    "--max-tokens",
    "answer_tokens",
    type=click.IntRange(16, 4096),
    default=512,
    show_default=True,
    help="Longest answer, tokens.",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print question, answer, citations, hits and timings as JSON.",
)
@click.option("--verbose", is_flag=True, help="Show llama.cpp's own log.")
@mode_option
@pass_ctx
def ask_cmd(
    obj: Context,
    question: str,
    k: int,
    llm: str | None,
    n_ctx: int,
    answer_tokens: int,
    as_json: bool,
    verbose: bool,
    mode: str,
) -> None:
    """Answer QUESTION from your lectures, citing the segments as [1], [2]."""
    from rich.markup import escape

    from lecturetui.core.answering import ask
    from lecturetui.core.generation import LlamaGenerator
    from lecturetui.core.llmstore import resolve_llm
    from lecturetui.core.timefmt import format_timestamp

    library = obj.library()
    path = resolve_llm(obj.home.models_dir, llm, note)
    generator = LlamaGenerator(path, n_ctx=n_ctx, verbose=verbose)
    if generator.notice:
        note(generator.notice)
    out = console()

    def on_token(piece: str) -> None:
        if not as_json:
            sys.stdout.write(piece)
            sys.stdout.flush()

    try:
        answer = ask(library, generator, question, k, answer_tokens, on_token=on_token, mode=mode)
    finally:
        generator.close()
    if as_json:
        click.echo(json.dumps(answer.to_json(), ensure_ascii=False, indent=2))
        return
    sys.stdout.write("\n")
    if answer.stopped:
        note("(stopped)")
    if answer.citation_source == "similarity":
        note("The model cited no segment; each sentence is cited with its most similar segment:")
        out.print(escape(answer.text), soft_wrap=True)
    if answer.citations:
        out.print("\n[bold]Referências / References[/]")
        for p in answer.citations:
            ids = ", ".join(f"#{c}" for c in p.corpus_ids)
            link = f"  [dim]{escape(p.url)}[/]" if p.url else ""
            out.print(
                f"[{p.number}] {escape(p.lecture_title)}, {format_timestamp(p.start)}–{format_timestamp(p.end)}"
                f" [dim]{ids}[/]{link}",
                soft_wrap=True,
            )
    elif answer.text:
        note("(no segment supports the answer closely enough to cite it)")
    out.print("\n[bold]Segments[/]")
    for h in answer.hits:
        mark = next((f"[{p.number}]" for p in answer.passages if h in p.hits), "")
        cid = f"#{h.segment.corpus_id}" if h.segment.corpus_id is not None else ""
        out.print(
            f"{h.rank:>2}  [green]{h.score:.4f}[/]  {escape(h.lecture.title)}  "
            f"[cyan]{format_timestamp(h.segment.start)}–{format_timestamp(h.segment.end)}[/]  [dim]{cid}[/] {escape(mark)}",
            soft_wrap=True,
        )
    t = answer.timings
    note(
        f"retrieval {t['retrieval_ms']:.0f} ms · first token {t['time_to_first_token_ms'] / 1000:.1f} s · "
        f"{t['tokens_per_s']:.1f} tok/s · {int(t['prompt_tokens'])} prompt tokens · {generator.name}"
        + (" (GPU)" if generator.gpu else " (CPU)")
    )
