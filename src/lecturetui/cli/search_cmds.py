"""search, reindex."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import click

from lecturetui.cli.context import Context, pass_ctx
from lecturetui.cli.options import mode_option, scope_options
from lecturetui.cli.output import console, end_quickly, escape, segment_count
from lecturetui.cli.progress import progress_bars, segment_rate
from lecturetui.cli.shared import json_text
from lecturetui.core.asking import Scope, retriever_tag
from lecturetui.core.i18n import _, decimal
from lecturetui.core.study.aids import format_span, format_timestamp, grid, heading, labels, legend

if TYPE_CHECKING:
    from lecturetui.core.asking import Hit
    from lecturetui.core.study.aids import MapRow


@click.command("search")
@click.argument("question")
@click.option("-k", "k", type=click.IntRange(1, 200), default=10, show_default=True, help="Hits.")
@click.option("--json", "as_json", is_flag=True, help="Print the hits as JSON.")
@click.option(
    "--exact/--ann",
    default=None,
    help="Force exact (brute-force) or approximate (hnswlib) search. Default: by library size.",
)
@click.option(
    "--map",
    "as_map",
    is_flag=True,
    help="Also show where the question comes up across the course: a row per lecture, time across.",
)
@mode_option
@scope_options
@pass_ctx
def search_cmd(
    obj: Context,
    question: str,
    k: int,
    as_json: bool,
    exact: bool | None,
    mode: str,
    courses: tuple[str, ...],
    lectures: tuple[str, ...],
    as_map: bool = False,
) -> None:
    """Find the lecture segments that answer QUESTION, best first.

    Each hit shows the score that ranked it (EmbeddingGemma's cosine when it re-ranks) and
    which retrievers found it: E (E5) and/or B (BM25 over the words), G when EmbeddingGemma
    re-scored it.
    """
    obj.first_run()
    end_quickly()  # a search writes nothing: its process need not free its models
    library = obj.library()
    scope = Scope(courses, lectures)
    result = library.search(question, k, exact=exact, mode=mode, scope=scope)
    rows = []
    if as_map:
        rows = library.course_map(question, [h.record() for h in result.hits])
    if as_json:
        payload: dict[str, object] = {
            "question": question,
            "mode": mode,
            "hits": [h.record() for h in result.hits],
        }
        if as_map:
            payload["map"] = [r.record() for r in rows]
        click.echo(json_text(payload))
        return
    out = console()
    emb = library.embedder
    stage = library.rerank_stage()
    pending = library.rerank_pending() if stage is not None and mode != "lexical" else 0
    parts = [
        _("{n} hits").format(n=len(result.hits)),
        mode,
        _("{model} on {device}").format(model=emb.model_id, device=emb.device),
    ]
    if stage is not None and stage.loaded:
        reranked = _("re-ranked by EmbeddingGemma on {device}").format(device=stage.embedder.device)
        if pending:
            reranked += " " + _("({n} segments still without its vector)").format(n=pending)
        parts.append(reranked)
    if scope:
        parts.append(escape(scope.label()))
    parts.append(_("exact") if result.exact else "hnswlib")
    parts.append(f"{decimal(result.timings_ms['total_ms'], 0, grouping=False)} ms")
    out.print(f"[dim]{' · '.join(parts)}[/]")
    for h in result.hits:
        cid = f"  #{h.segment.corpus_id}" if h.segment.corpus_id is not None else ""
        span = f"{format_span(h.segment.start, h.segment.end)}"
        out.print(
            f"\n[bold]{h.rank:>2}[/]  [green]{h.score:.4f}[/] [dim]{retriever_tag(h.retrievers)}[/]"
            f"  [bold]{escape(h.lecture.title)}[/]"
            f"  [cyan]{span}[/][dim]{cid}[/]",
            soft_wrap=True,
        )
        out.print("    " + excerpt(h), soft_wrap=True)
        if h.url:
            out.print(f"    [dim]{escape(h.url)}[/]", soft_wrap=True)
    if as_map:
        print_map(rows, len(result.hits))


def print_map(rows: list[MapRow], n_hits: int) -> None:
    """The course map as text: readable without colour (shades and numbers are characters)."""
    out = console()
    if not rows:
        return
    out.print(f"\n[bold]{escape(heading(len(rows), n_hits))}[/]", soft_wrap=True)
    out.print(f"[dim]{escape(legend(rows))}[/]", soft_wrap=True)
    for row, cells, label in zip(rows, grid(rows), labels(rows), strict=True):
        out.print(
            f"{escape(label)}  {cells}  [dim]{format_timestamp(row.lecture.duration)}[/]",
            soft_wrap=True,
            highlight=False,
        )


def excerpt(hit: Hit, context: int = 90) -> str:
    """Rich markup: the hit's text around its matching unit, the unit in bold (or its start)."""
    text = hit.segment.text
    if hit.match is None:
        return escape(text[:240] + ("…" if len(text) > 240 else ""))
    lo = max(0, hit.match.start - context)
    hi = min(len(text), hit.match.end + context)
    before = ("…" if lo else "") + text[lo : hit.match.start]
    after = text[hit.match.end : hi] + ("…" if hi < len(text) else "")
    return f"[dim]{escape(before)}[/][bold]{escape(hit.match.text)}[/][dim]{escape(after)}[/]"


@click.command("reindex")
@pass_ctx
def reindex_cmd(obj: Context) -> None:
    """Rebuild the search index from the library (after a model change, or a damaged index)."""
    obj.first_run()
    library = obj.library()
    t0 = time.perf_counter()
    with progress_bars() as bar:
        task = bar.add_task(_("embedding"), total=None, rate="")
        n = library.reindex(segment_rate(bar, task))
    console().print(
        _("Indexed {segments} with {model} in {seconds} s.").format(
            segments=segment_count(n),
            model=library.embedder.model_id,
            seconds=decimal(time.perf_counter() - t0, grouping=False),
        )
    )
