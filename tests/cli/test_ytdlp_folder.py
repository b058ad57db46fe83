"""A folder as yt-dlp leaves it (`--write-subs --write-info-json`, files in yt-dlp's real format):
ingested with the real E5 model, each lecture carries the video's title, link, course and date."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from lecturetui.cli import cli

FOLDER = Path(__file__).parents[1] / "fixtures" / "ytdlp"


@pytest.mark.slow
def test_a_folder_of_yt_dlp_downloads(tmp_path: Path, models_env: Path, home: Path) -> None:
    downloads = tmp_path / "downloads"
    shutil.copytree(FOLDER, downloads)
    runner = CliRunner()
    done = runner.invoke(cli, ["ingest", str(downloads)], catch_exceptions=False)
    assert done.exit_code == 0, done.output
    assert "1 added" in done.output and "info.json" in done.output  # said where it came from
    assert "blank line" not in done.output  # YouTube's " " line above a cue's text is no repair
    [lecture] = json.loads(runner.invoke(cli, ["lectures", "--json"]).stdout)["lectures"]
    assert lecture["title"] == "Aula 1 - Introdução ao aprendizado profundo"
    assert lecture["id"] == "aula-1-introdução-ao-aprendizado-profundo"  # no [video id], no .pt-BR
    assert lecture["source_url"] == "https://www.youtube.com/watch?v=Xk3v9qLm2Ts"
    assert lecture["course"] == "Aprendizado Profundo 2025/1"  # the playlist
    assert lecture["date"] == "2025-03-14" and lecture["language"] == "pt"
    assert not any("info.json" in n for n in lecture["notes"])  # its notes are repairs only
    table = runner.invoke(cli, ["lectures"], env={"COLUMNS": "200"}).stdout
    assert "2025-03-14" in table and "date" in table
    found = json.loads(runner.invoke(cli, ["search", "GPU acelera o treinamento", "--json"]).stdout)
    top = found["hits"][0]
    assert (
        top["url"].startswith("https://www.youtube.com/watch?v=Xk3v9qLm2Ts") and "t=" in top["url"]
    )
