"""A lecture's outline: the video's own chapters, kept from yt-dlp's info file at ingest (or read
from it later, once, for a lecture ingested before), printed as YouTube's chapter lines or JSON."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from lecturetui.cli import cli
from lecturetui.core.ingest.ytdlp import chapters_of
from lecturetui.core.lectures import Chapter, chapter_at

FOLDER = Path(__file__).parents[1] / "fixtures" / "ytdlp"
CHAPTERS = [
    {"start_time": 0.0, "end_time": 5.0, "title": "Abertura"},
    {"start_time": 5.0, "end_time": 3700.0, "title": "Por que  GPUs?"},
    {
        "start_time": 3700.0,
        "end_time": 5412.0,
        "title": "Convolução como multiplicação de matrizes",
    },
]
LINES = ["0:00 Abertura", "0:05 Por que GPUs?", "1:01:40 Convolução como multiplicação de matrizes"]


def test_yt_dlp_chapters_are_read_in_order_and_bad_entries_skipped() -> None:
    raw = [{"start_time": 60, "title": "B"}, {"start_time": 0, "title": " A "},
           {"start_time": "x", "title": "bad"}, {"start_time": 90}, "junk",
           {"start_time": 60, "title": "B again"}, {"start_time": True, "title": "bool"}]  # fmt: skip
    assert chapters_of(raw) == (Chapter(0.0, "A"), Chapter(60.0, "B"))
    assert chapters_of(None) == () and chapters_of({"start_time": 0}) == ()
    found = list(chapters_of(raw))
    assert chapter_at(found, 59.0) == Chapter(0.0, "A") and chapter_at(found, 75) == found[1]


def _downloads(tmp_path: Path, chapters: object) -> Path:
    downloads = tmp_path / "downloads"
    shutil.copytree(FOLDER, downloads)
    info = next(downloads.glob("*.info.json"))
    data = json.loads(info.read_text("utf-8"))
    data["chapters"] = chapters
    info.write_text(json.dumps(data, ensure_ascii=False), "utf-8")
    return downloads


@pytest.mark.slow
def test_the_outline_of_a_downloaded_lecture(tmp_path: Path, models_env: Path, home: Path) -> None:
    downloads = _downloads(tmp_path, CHAPTERS)
    runner = CliRunner()
    done = runner.invoke(cli, ["ingest", str(downloads)], catch_exceptions=False)
    assert done.exit_code == 0 and "3 chapters read from" in done.output, done.output
    shown = runner.invoke(cli, ["outline", "aula 1"], env={"COLUMNS": "200"})
    assert shown.exit_code == 0, shown.output
    assert shown.stdout.splitlines() == [
        "# Aula 1 - Introdução ao aprendizado profundo",
        "",
        *LINES,
    ]
    data = json.loads(runner.invoke(cli, ["outline", "aula 1", "--json"]).stdout)
    assert [c["title"] for c in data["chapters"]] == ["Abertura", "Por que GPUs?",
                                                      CHAPTERS[2]["title"]]  # fmt: skip
    first, second, last = data["chapters"]
    assert (first["start_s"], first["end_s"], first["source"]) == (0.0, 5.0, "author")
    assert second["start"] == "00:00:05" and second["url"].endswith("t=5s")
    assert last["end_s"] >= last["start_s"] == 3700.0
    # the same outline in Portuguese: only the messages change, never the author's titles
    pt = runner.invoke(cli, ["--language", "pt", "outline", "aula 1"], env={"COLUMNS": "200"})
    assert pt.stdout.splitlines()[2:] == LINES
    # a bookmarked moment is exported with its chapter
    shown = json.loads(runner.invoke(cli, ["show", "aula 1", "--json"]).stdout)
    segment = shown["segments"][-1]
    assert runner.invoke(cli, ["bookmarks", "add", str(segment["id"])]).exit_code == 0
    notes = runner.invoke(cli, ["export", "--bookmarks", "--md", "-"]).stdout
    expected = "Abertura" if segment["start_s"] < 5 else "Por que GPUs?"
    assert f"· {expected}" in notes, notes


@pytest.mark.slow
def test_a_lecture_ingested_before_gets_its_chapters_once_and_one_without_shows_its_parts(
    tmp_path: Path, models_env: Path, home: Path
) -> None:
    from lecturetui.core.library import Library
    from lecturetui.core.paths import DataHome

    downloads = _downloads(tmp_path, None)  # no chapters when it was ingested
    runner = CliRunner()
    assert runner.invoke(cli, ["ingest", str(downloads)]).exit_code == 0
    made = runner.invoke(cli, ["outline", "aula 1"])  # no chapters of its author's: its parts
    assert made.exit_code == 0 and "parts cut by lecturetui" in made.stderr, made.output
    assert made.stdout.splitlines()[2].startswith("0:00 ")
    made_json = json.loads(runner.invoke(cli, ["outline", "aula 1", "--json"]).stdout)
    assert {c["source"] for c in made_json["chapters"]} == {"lecturetui"}
    pt = runner.invoke(cli, ["--language", "pt", "outline", "aula 1"])
    assert "cortadas pelo lecturetui" in pt.stderr
    info = next(downloads.glob("*.info.json"))  # the info file gets chapters later
    data = json.loads(info.read_text("utf-8"))
    data["chapters"] = CHAPTERS
    info.write_text(json.dumps(data), "utf-8")
    store = Library(DataHome.resolve()).store
    # as a library stored before chapters were kept: one pass reads every older lecture's
    store.connection.execute("UPDATE lectures SET chapters_read = 0")
    store.connection.commit()
    shown = runner.invoke(cli, ["outline", "aula 1"])
    assert shown.stdout.splitlines()[2:] == LINES
    assert "Chapters read for 1 older lecture." in shown.stderr
    assert store.chapters_unread() == []
    [lecture] = store.lectures()
    assert [c.title for c in store.chapters(lecture.id)] == [
        c["title"].replace("  ", " ") for c in CHAPTERS
    ]  # kept now
    info.unlink()
    assert runner.invoke(cli, ["outline", "aula 1"]).stdout.splitlines()[2:] == LINES
    assert runner.invoke(cli, ["remove", "aula 1", "--yes"]).exit_code == 0
    assert store.chapters(lecture.id) == []  # removed with its lecture
