"""The app's main screen as an SVG, for the README: the demo library, the real default models,
a seed question asked, the answer complete.

    .venv/bin/python scripts/screenshot.py [--language en|pt] [--out docs/img/main-screen.svg]

Runs the app headless (Textual's test driver) on the clone's own data home (`make run`'s demo
library must exist); takes about a minute on 2 cores.
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
QUESTIONS = {
    "pt": "O TensorFlow prioriza a execução de operações em qual dispositivo?",
    "en": "Which device does TensorFlow prefer to run operations on?",
}


async def shoot(language: str, out: Path) -> None:
    from textual.widgets import Input

    from lecturetui.core.library import Library
    from lecturetui.core.llm.process import open_model
    from lecturetui.core.models.gguf import DEFAULT_LLM, resolve_llm
    from lecturetui.core.paths import DataHome
    from lecturetui.tui.app import AppServices, LectureApp

    home = DataHome.resolve(str(ROOT))
    library = Library(home)
    model = resolve_llm(home.models_dir, None)
    services = AppServices(library, lambda: open_model(model, n_ctx=4096), language=language,
                           llm_label=DEFAULT_LLM.split("/")[-1])  # fmt: skip
    app = LectureApp(services)
    async with app.run_test(size=(140, 44)) as pilot:
        question = app.query_one("#question", Input)
        question.cursor_blink = False
        while not app.models.settled:
            await pilot.pause(0.5)
        await app.workers.wait_for_complete()
        question.value = QUESTIONS[language]
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause(0.5)
        out.parent.mkdir(parents=True, exist_ok=True)
        app.save_screenshot(out.name, str(out.parent))
    library.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--language", choices=sorted(QUESTIONS), default="en")
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "img" / "main-screen.svg")
    args = ap.parse_args()
    asyncio.run(shoot(args.language, args.out))
    print(args.out)


if __name__ == "__main__":
    main()
