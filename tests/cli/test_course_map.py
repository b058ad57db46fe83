"""Where a topic lives across the course: a row per lecture with a hit, time across, every window
shaded by its closeness to the question and the hits numbered where they sit; text that reads
without colour, in English and Portuguese (`lecturetui search --map`)."""

from __future__ import annotations

from typing import Any

import pytest

from lecturetui.cli.search_cmds import print_map
from lecturetui.core.i18n import set_language
from lecturetui.core.study.course_map import MARKS, SHADES, course_map, grid

QUESTION = "O TensorFlow prioriza a execução de operações em qual dispositivo?"


def _map(library: Any) -> tuple[Any, list[Any]]:
    result = library.search(QUESTION, 10)
    hits = [h.record() for h in result.hits]
    return result, course_map(library.store, hits, lambda ids: library.window_scores(QUESTION, ids))


def test_every_lecture_with_a_hit_has_a_row_with_its_hits_marked(seed_library: Any) -> None:
    result, rows = _map(seed_library)
    lectures = list(dict.fromkeys(h.lecture.id for h in result.hits))
    assert [r.lecture.id for r in rows] == lectures  # in the order of their best hit
    lines = grid(rows)
    assert all(len(line) == 60 for line in lines)
    for row, line in zip(rows, lines, strict=True):
        assert len(row.windows) == len(seed_library.store.segments(row.lecture.id))
        for rank, _start in row.hits:
            assert MARKS[rank - 1] in line
        assert set(line) <= set(SHADES) | set(MARKS[: len(result.hits)])
    assert any(SHADES[-1] in line for line in lines)  # the closest window is the darkest
    assert [r.record().lecture for r in rows] == lectures


def test_a_window_closer_to_the_question_is_drawn_darker(seed_library: Any) -> None:
    from lecturetui.core.study.course_map import MapRow

    lecture = seed_library.lectures()[0]
    rows = [MapRow(lecture, ((0.0, 600.0, 0.1), (600.0, 1200.0, 0.9)), ((1, 900.0),))]
    [line] = grid(rows, width=12)
    assert line == "······███1██"  # the far window faint, the close one dark, hit 1 inside it


@pytest.mark.parametrize("language", ["en", "pt"])
def test_the_map_as_printed(seed_library: Any, capsys: pytest.CaptureFixture[str],
                            language: str) -> None:  # fmt: skip
    result, rows = _map(seed_library)
    set_language(language)
    try:
        print_map(rows, len(result.hits))
    finally:
        set_language("en")
    out = capsys.readouterr().out.splitlines()
    n = len(rows)
    assert n > 1
    heading = {"en": f"Where it comes up: {n} lectures, 10 hits",
               "pt": f"Onde aparece: {n} aulas, 10 resultados"}  # fmt: skip
    assert out[1] == heading[language]
    legend = {"en": "one column ≈ 1 min; █▓▒░ closer to the question, · farther; 1, 2, 3… (then"
                    " a, b…) the hits by rank",
              "pt": "uma coluna ≈ 1 min; █▓▒░ mais perto da pergunta, · mais longe; 1, 2, 3…"
                    " (depois a, b…) os resultados por posição"}  # fmt: skip
    assert out[2] == legend[language]
    assert [line.split("  ")[0].strip() for line in out[3:]] == [r.lecture.title for r in rows]
    assert [line[len("Aula A  ") :][:60] for line in out[3:]] == grid(rows)


@pytest.mark.slow
def test_search_map_from_the_command_line(models_env: Any, home: Any) -> None:
    import json

    from click.testing import CliRunner

    from lecturetui.cli import cli
    from tests.conftest import SEED_CORPUS

    runner = CliRunner()
    assert runner.invoke(cli, ["ingest", str(SEED_CORPUS)]).exit_code == 0
    data = json.loads(runner.invoke(cli, ["search", QUESTION, "--map", "--json"]).stdout)
    lectures = list(dict.fromkeys(h["lecture"] for h in data["hits"]))
    assert [row["lecture"] for row in data["map"]] == lectures
    assert all(row["windows"] and row["hits"] for row in data["map"])
    shown = runner.invoke(cli, ["search", QUESTION, "--map"], env={"COLUMNS": "200"})
    assert shown.exit_code == 0 and "Where it comes up" in shown.stdout
    grid_lines = shown.stdout.splitlines()[-len(lectures) :]
    assert all("1" in line for line in grid_lines[:1])  # the best hit in the first row
