"""The app's responsiveness, headless: launch to first frame and to "ready to type", time until
the models are loaded, and the longest UI stall while an answer streams and while a folder is
ingested (a 10 ms interval timer in the app; the stall is the largest gap between its ticks).

    .venv/bin/python bench/tui_bench.py [--llm qwen2.5-coder-0.5b] [--files 12] [--quick]

`--quick`: two demo lectures, one 2-minute file to ingest, an answer of at most 16 tokens, no
summaries written while idle (the whole path in seconds: a check, no figures).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import SEED_CORPUS, answer_model, model_dir, quick_corpus, seed_texts

QUESTION = "O TensorFlow prioriza a execução de operações em qual dispositivo?"


def write_folder(folder: Path, n: int, cues: int = 120) -> None:
    """n WebVTT lectures of `cues` 5-second cues each (120: 10 minutes), from the seed text."""
    words = " ".join(seed_texts()).split()
    folder.mkdir(parents=True, exist_ok=True)
    for f in range(n):
        lines = ["WEBVTT", ""]
        for c in range(cues):
            a, b = c * 5, c * 5 + 5
            chunk = " ".join(words[(f * 997 + c * 12) % (len(words) - 12) :][:12])
            lines += [
                f"00:{a // 60:02d}:{a % 60:02d}.000 --> 00:{b // 60:02d}:{b % 60:02d}.000",
                chunk,
                "",
            ]
        (folder / f"aula{f:02d}.vtt").write_text("\n".join(lines), encoding="utf-8")


async def settle(app: Any) -> None:
    """Wait for the app's workers; one cancelled on the way (an exclusive worker replaced by
    another) is no failure."""
    from textual.worker import WorkerCancelled

    for _ in range(100):
        try:
            await app.workers.wait_for_complete()
            return
        except WorkerCancelled:
            continue


async def run(args: argparse.Namespace) -> None:
    from textual.widgets import Input

    from lecturetui.core.library import Library
    from lecturetui.core.paths import DataHome
    from lecturetui.tui.app import AppServices, LectureApp
    from lecturetui.tui.screens import LibraryScreen

    models = model_dir().parent
    with tempfile.TemporaryDirectory() as tmp:
        home = DataHome(Path(tmp), models)
        # the library exists before launch, as for a student
        Library(home).ingest([quick_corpus(Path(tmp)) if args.quick else SEED_CORPUS])
        folder = Path(tmp) / "new-lectures"
        write_folder(folder, args.files, 24 if args.quick else 120)

        def load_generator() -> Any:
            """The answer model as the app runs it: its own process, the fixed start read."""
            generator = answer_model(args.llm, 4096, home=home.root)
            if args.quick:  # a short answer: --quick checks the path, no figures
                stream = generator.stream

                def capped(messages: Any, max_tokens: int, *more: Any, **kw: Any) -> Any:
                    return stream(messages, min(max_tokens, 16), *more, **kw)

                generator.stream = capped
            return generator

        t0 = time.perf_counter()
        library = Library(home)
        # --quick: no summaries written while the app is idle (they would hold up the wait)
        app = LectureApp(AppServices(library, load_generator, args.llm,
                                     summaries=not args.quick))  # fmt: skip
        gaps: list[float] = []
        last = [0.0]

        def tick() -> None:
            now = time.perf_counter()
            if last[0]:
                gaps.append(now - last[0])
            last[0] = now

        async with app.run_test(size=(120, 32)) as pilot:
            await pilot.pause()
            first_frame = time.perf_counter() - t0
            ready_to_type = first_frame if isinstance(app.focused, Input) else float("nan")
            while not app.models.settled:  # the answer model loaded, or failed to
                await asyncio.sleep(0.05)
            models_ready = time.perf_counter() - t0
            app.set_interval(0.01, tick)
            await pilot.pause(0.2)
            idle = list(gaps)
            gaps.clear()
            await pilot.press("slash")
            app.query_one("#question", Input).value = QUESTION
            await pilot.press("enter")
            await settle(app)
            answer_gaps = list(gaps)
            gaps.clear()
            app.push_screen(LibraryScreen())
            await pilot.pause()
            screen = app.screen
            screen.query_one("#ingest-path", Input).value = str(folder)
            screen.query_one("#ingest-path", Input).focus()
            await pilot.press("enter")
            await pilot.pause(0.2)
            await settle(app)
            ingest_gaps = list(gaps)
        print(f"launch to first frame: {first_frame:.2f} s; ready to type: {ready_to_type:.2f} s;"
              f" models loaded (E5 + {args.llm}): {models_ready:.1f} s")  # fmt: skip
        print("| phase | ticks | median gap ms | longest stall ms |")
        print("|---|---|---|---|")
        for name, g in (
            ("idle", idle),
            ("answer streaming", answer_gaps),
            (f"ingest {args.files} files", ingest_gaps),
        ):
            if g:
                print(
                    f"| {name} | {len(g)} | {statistics.median(g) * 1000:.1f} | {max(g) * 1000:.0f} |"
                )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--llm", default="qwen2.5-coder-0.5b")
    ap.add_argument("--files", type=int, default=12)
    ap.add_argument("--quick", action="store_true",
                    help="two demo lectures, one file, a short answer: a check, no figures")  # fmt: skip
    args = ap.parse_args()
    if args.quick:
        args.files = 1
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
