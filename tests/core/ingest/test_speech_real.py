"""The real Whisper base model (faster-whisper, int8 on the CPU, offline) on two spoken fixtures,
then a search over what it heard with the real E5 model."""

from __future__ import annotations

import itertools
import shutil
from pathlib import Path

import pytest

from lecturetui.core.ingest.media import probe
from lecturetui.core.ingest.speech import WhisperTranscriber
from lecturetui.core.lectures import Transcription
from lecturetui.core.library import Library
from lecturetui.core.models.parts import join_checked
from lecturetui.core.models.placement import Placement
from lecturetui.core.models.whisper import BUNDLED_ASR, DEFAULT_ASR, assemble_whisper
from lecturetui.core.paths import DataHome
from tests.conftest import MODELS_DIR

pytestmark = pytest.mark.slow
SPEECH = Path(__file__).parents[2] / "fixtures" / "speech"


@pytest.fixture(scope="session")
def whisper() -> WhisperTranscriber:
    """Loaded once for the session (about half a second; the first run also assembles it)."""
    transcriber = WhisperTranscriber(MODELS_DIR, placement=Placement("cpu"))
    transcriber.load()
    return transcriber


def words_of(t: Transcription) -> str:
    return " ".join(c.text for c in t.cues).lower()


def check_times(t: Transcription, audio: Path) -> None:
    duration = probe(audio).duration
    assert t.cues and abs(t.duration - duration) < 0.1
    starts = [c.start for c in t.cues]
    assert starts == sorted(starts) and starts[0] < 1.0
    assert all(0.0 <= c.start < c.end <= t.duration for c in t.cues)
    assert all(a.end <= b.start + 0.5 for a, b in itertools.pairwise(t.cues))
    assert t.cues[-1].end > 0.6 * duration  # the whole sentence was heard, not its start


def test_the_assembled_model_is_the_checked_one(whisper: WhisperTranscriber) -> None:
    model = BUNDLED_ASR[DEFAULT_ASR]
    path = assemble_whisper(model, MODELS_DIR)
    assert (path / "model.bin").stat().st_size == model.size
    assert whisper.device is not None and whisper.device.compute_type in ("int8", "float16")


def test_portuguese_speech_comes_out_with_its_times(whisper: WhisperTranscriber) -> None:
    audio = SPEECH / "pt_gpu.ogg"
    seen: list[float] = []
    t = whisper.transcribe(audio, "pt", progress=lambda done, total: seen.append(done))
    text = words_of(t)
    assert t.language == "pt" and t.model == "whisper-base"
    for word in ("memória", "gpu", "modelo", "processador"):
        assert word in text, text
    check_times(t, audio)
    assert seen == sorted(seen) and seen[-1] == t.duration
    # word timestamps cut the two sentences apart: the first ends at "pequena."
    assert any(c.text.lower().rstrip(".").endswith("pequena") for c in t.cues), t.cues


def test_english_speech_is_detected_and_comes_out_with_its_times(
    whisper: WhisperTranscriber,
) -> None:
    audio = SPEECH / "en_gradient.mp3"
    t = whisper.transcribe(audio)
    text = words_of(t)
    assert t.language == "en" and t.language_probability > 0.5
    for word in ("descent", "algorithm", "network"):
        assert word in text, text
    check_times(t, audio)


def test_transcribed_lectures_answer_a_search(
    home: Path, tmp_path: Path, e5, whisper: WhisperTranscriber
) -> None:  # type: ignore[no-untyped-def]
    folder = tmp_path / "aulas"
    folder.mkdir()
    for f in SPEECH.glob("*.*"):
        if f.suffix != ".md":
            shutil.copy(f, folder / f.name)
    library = Library(DataHome.resolve(), embedder=e5)
    library.set_transcriber(whisper)
    try:
        pt = library.ingest([folder / "pt_gpu.ogg"], _options(language="pt"))
        en = library.ingest([folder / "en_gradient.mp3"])
        assert [r.status for r in pt.results + en.results] == ["added", "added"]
        hits = library.search("Qual é o tamanho da memória da GPU?", k=2).hits
        assert hits[0].lecture.id == "pt_gpu" and hits[0].lecture.language == "pt"
        assert hits[0].url is not None and hits[0].url.startswith("file://")
        hits = library.search("how does gradient descent update the weights?", k=2).hits
        assert hits[0].lecture.id == "en_gradient"
    finally:
        library.close()


def _options(language: str):  # type: ignore[no-untyped-def]
    from lecturetui.core.ingest.pipeline import IngestOptions

    return IngestOptions(language=language)


def test_join_checked_is_what_assembles_the_parts(tmp_path: Path) -> None:
    model = BUNDLED_ASR[DEFAULT_ASR]
    parts = [
        model.data_dir(i, MODELS_DIR) / f"model.bin.part{i}" for i in range(1, model.parts + 1)
    ]
    assert sum(p.stat().st_size for p in parts) == model.size
    out = join_checked(parts, tmp_path / "model.bin", model.sha256, "test", "hint")
    assert out.stat().st_size == model.size


def test_cli_ingest_of_media_with_a_bad_file_beside_it(home: Path, tmp_path: Path, e5_dir) -> None:  # type: ignore[no-untyped-def]
    from click.testing import CliRunner

    from lecturetui.cli import cli

    folder = tmp_path / "aulas"
    folder.mkdir()
    shutil.copy(SPEECH / "pt_gpu.ogg", folder / "aula 1.ogg")
    (folder / "aula 2.mp4").write_bytes(b"not a video at all" * 100)
    out = tmp_path / "vtt"
    args = ["ingest", str(folder), "--lang", "pt", "--save-transcript", str(out)]
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 1, result.output  # one file failed, the other went on
    lines = result.output.splitlines()
    failed = [x for x in lines if x.startswith("failed")]
    assert len(failed) == 1 and "aula 2.mp4: cannot be read as audio or video" in failed[0]
    assert any(x.startswith("added") and "aula 1.ogg" in x for x in lines)
    vtt = (out / "aula 1.vtt").read_text(encoding="utf-8")
    assert vtt.startswith("WEBVTT") and "memória" in vtt.lower()
    again = CliRunner().invoke(cli, ["ingest", str(folder / "aula 1.ogg"), "--lang", "pt"])
    assert again.exit_code == 0 and "unchanged" in again.output
