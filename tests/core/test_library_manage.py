"""A student's own downloads and edits: yt-dlp's info file, re-ingesting with new metadata."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from lecturetui.core.ingest.pipeline import IngestOptions
from lecturetui.core.ingest.ytdlp import info_path, read_info
from lecturetui.core.library import Library
from lecturetui.core.paths import DataHome
from tests.fakes import FakeEmbedder

FIXTURES = Path(__file__).parents[1] / "fixtures"
INFO = {
    "id": "abc123", "title": "Aula 3 - Redes neurais", "webpage_url": "https://youtu.be/abc123",
    "channel": "Canal do Professor", "playlist_title": "Aprendizado de Máquina 2026",
    "upload_date": "20260314", "formats": [{"format_id": "18"}],
}  # fmt: skip


def downloaded(folder: Path, info: dict[str, object] | None = INFO) -> Path:
    """A lecture as `yt-dlp --write-subs --write-info-json` leaves it."""
    folder.mkdir(parents=True, exist_ok=True)
    vtt = folder / "Aula 3 - Redes neurais [abc123].pt-BR.vtt"
    shutil.copy(FIXTURES / "lecture.vtt", vtt)
    if info is not None:
        (folder / "Aula 3 - Redes neurais [abc123].info.json").write_text(
            json.dumps(info), encoding="utf-8"
        )
    return vtt


def vtt_name() -> str:
    return "Aula 3 - Redes neurais [abc123].pt-BR.vtt"


def test_the_info_file_beside_captions_is_found_and_read(tmp_path: Path) -> None:
    vtt = downloaded(tmp_path)
    info = read_info(vtt)
    assert info is not None and info.path == info_path(vtt)
    assert info.title == "Aula 3 - Redes neurais" and info.url == "https://youtu.be/abc123"
    assert info.course == "Aprendizado de Máquina 2026" and info.upload_date == "2026-03-14"
    no_playlist = {k: v for k, v in INFO.items() if k != "playlist_title"}
    assert read_info(downloaded(tmp_path / "b", no_playlist)).course == "Canal do Professor"  # type: ignore[union-attr]
    assert read_info(downloaded(tmp_path / "c", None)) is None
    broken = downloaded(tmp_path / "d")
    info_path(broken).write_text("{not json", encoding="utf-8")  # type: ignore[union-attr]
    assert read_info(broken) is None  # skipped, never fatal


def test_ingest_uses_the_info_file_and_the_command_line_wins(home: Path, tmp_path: Path) -> None:
    lib = Library(DataHome.resolve(), embedder=FakeEmbedder())
    [result] = lib.ingest([downloaded(tmp_path / "a")]).results
    assert result.status == "added", result.message
    lec = lib.store.lecture(result.lectures[0])
    assert lec is not None and lec.title == "Aula 3 - Redes neurais"
    assert lec.source_url == "https://youtu.be/abc123"
    assert lec.course == "Aprendizado de Máquina 2026"
    assert any("info.json" in n for n in result.notes)
    [same] = lib.ingest([tmp_path / "a" / vtt_name()], IngestOptions(course="Minha")).results
    lec = lib.store.lecture(result.lectures[0])
    assert same.status == "updated" and lec is not None and lec.course == "Minha"  # it wins
    assert lec.title == "Aula 3 - Redes neurais"  # and what it did not give is kept
    lib.close()


def test_reingesting_with_new_metadata_embeds_nothing_and_clears_nothing(home: Path) -> None:
    emb = FakeEmbedder()
    lib = Library(DataHome.resolve(), embedder=emb)
    vtt = FIXTURES / "lecture.vtt"
    [first] = lib.ingest([vtt], IngestOptions(course="Redes", title="Aula 1")).results
    embedded = len(emb.embedded)
    [again] = lib.ingest([vtt], IngestOptions(url="https://v.example/1")).results
    assert again.status == "updated" and len(emb.embedded) == embedded  # nothing re-embedded
    lec = lib.store.lecture(first.lectures[0])
    assert lec is not None and lec.source_url == "https://v.example/1"
    assert lec.course == "Redes" and lec.title == "Aula 1"  # not given, so kept
    [renamed] = lib.ingest([vtt], IngestOptions(title="Aula 1: camadas")).results
    lec = lib.store.lecture(first.lectures[0])
    assert renamed.status == "updated" and lec is not None and lec.title == "Aula 1: camadas"
    assert lec.course == "Redes" and lec.source_url == "https://v.example/1"
    assert lib.ingest([vtt]).results[0].status == "unchanged"
    lib.close()


def test_a_yt_dlp_folder_gives_one_lecture_in_the_language_asked(tmp_path: Path) -> None:
    from lecturetui.core.ingest.pipeline import discover

    folder = tmp_path / "downloads"
    pt = downloaded(folder, {**INFO, "language": "pt"})
    en = pt.with_name("Aula 3 - Redes neurais [abc123].en.vtt")
    shutil.copy(pt, en)
    other = folder / "outra aula.srt"
    shutil.copy(FIXTURES / "lecture_bom_crlf.srt", other)
    files, missing = discover([folder])
    assert not missing and sorted(files) == sorted([pt, other])  # no info.json, one language
    assert sorted(discover([folder], "en")[0]) == sorted([en, other])
    assert sorted(discover([folder], "pt-BR")[0]) == sorted([pt, other])
    (folder / "Aula 3 - Redes neurais [abc123].info.json").unlink()
    assert len(discover([folder])[0]) == 3  # without yt-dlp's info, every file is read


def test_ingesting_a_yt_dlp_folder_reads_no_metadata_as_a_transcript(
    home: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "downloads"
    downloaded(folder)
    lib = Library(DataHome.resolve(), embedder=FakeEmbedder())
    report = lib.ingest([folder])
    assert [r.status for r in report.results] == ["added"], [r.message for r in report.results]
    lib.close()
