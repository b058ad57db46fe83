"""Audio and video in the ingest, without the speech model: a scripted transcriber stands in
for Whisper (the real one is in test_transcribe_real.py), PyAV is real."""

from __future__ import annotations

import itertools
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

from lecturetui.core.errors import LectureTuiError
from lecturetui.core.ingest.formats import read_transcript
from lecturetui.core.ingest.media import Cancelled, caption_for, probe
from lecturetui.core.ingest.pipeline import IngestOptions, discover
from lecturetui.core.ingest.segmenting import SegmentConfig
from lecturetui.core.ingest.speech import (
    CancelCheck,
    WhisperTranscriber,
    segment_cues,
    to_vtt,
)
from lecturetui.core.lectures import Cue, Transcription
from lecturetui.core.library import Library
from lecturetui.core.models.placement import Placement, choose_device
from lecturetui.core.models.whisper import BUNDLED_ASR, assemble_whisper, resolve_asr_model
from lecturetui.core.paths import DataHome
from lecturetui.core.progress import SecondsProgress
from lecturetui.core.storage.store import SCHEMA_VERSION, Store
from lecturetui.core.storage.transcriptions import Transcriptions
from tests.conftest import old_library
from tests.fakes import FakeEmbedder

SPEECH = Path(__file__).parents[2] / "fixtures" / "speech"


class ScriptedTranscriber:
    """Says the same sentences for any file, and counts the files it was asked to transcribe."""

    def __init__(self, name: str = "whisper-base", fail_after: int | None = None) -> None:
        self._name = name
        self.calls: list[Path] = []
        self.fail_after = fail_after

    @property
    def name(self) -> str:
        return self._name

    def transcribe(
        self,
        path: Path,
        language: str | None = None,
        progress: SecondsProgress | None = None,
        cancel: CancelCheck | None = None,
    ) -> Transcription:
        self.calls.append(path)
        cues = (
            Cue(0.0, 2.5, "O gradiente aponta para a maior subida."),
            Cue(2.5, 6.0, "Por isso a descida anda no sentido contrário."),
        )
        for n, cue in enumerate(cues):
            if progress:
                progress(cue.end, 6.0)
            if cancel is not None and cancel():
                raise Cancelled()
            if self.fail_after is not None and n >= self.fail_after:
                raise KeyboardInterrupt
        return Transcription(cues, language or "pt", 0.9, 6.0, self._name)


@pytest.fixture
def library(home: Path) -> Library:
    lib = Library(DataHome.resolve(), embedder=FakeEmbedder())
    yield lib  # type: ignore[misc]
    lib.close()


@pytest.fixture
def aula(tmp_path: Path) -> Path:
    folder = tmp_path / "aulas"
    folder.mkdir()
    return Path(shutil.copy(SPEECH / "pt_gpu.ogg", folder / "aula1.ogg"))


def transcriptions(library: Library) -> int:
    return int(
        library.store.connection.execute("SELECT count(*) FROM transcriptions").fetchone()[0]
    )


def test_a_media_file_is_transcribed_once_and_stored_like_captions(
    library: Library, aula: Path
) -> None:
    asr = ScriptedTranscriber()
    library.set_transcriber(asr)
    heard: list[tuple[float, float]] = []
    report = library.ingest([aula], audio_progress=lambda d, t: heard.append((d, t)))
    assert [r.status for r in report.results] == ["added"]
    lec = library.lectures()[0]
    assert lec.source_format == "whisper:whisper-base" and lec.language == "pt"
    assert lec.source_url == str(aula.resolve())  # links open the recording at the second
    assert heard and heard[-1] == (6.0, 6.0)
    assert [d for d, _ in heard] == sorted(d for d, _ in heard)
    hits = library.search("descida no sentido contrário", k=1, mode="lexical").hits
    assert hits and hits[0].lecture.id == lec.id
    # unchanged file: skipped; new windows: made again from the stored transcription
    assert library.ingest([aula]).results[0].status == "unchanged"
    config = SegmentConfig(window_s=3.0, overlap_s=0.0)
    redo = library.ingest([aula], IngestOptions(segment_config=config))
    assert redo.results[0].status == "updated" and redo.results[0].segments == 2
    # renamed or copied elsewhere: same bytes, so the same transcription
    moved = Path(shutil.copy(aula, aula.with_name("copia.ogg")))
    assert library.ingest([moved]).results[0].status == "duplicate"
    assert len(asr.calls) == 1 and transcriptions(library) == 1


def test_another_model_or_language_transcribes_again(library: Library, aula: Path) -> None:
    base, small = ScriptedTranscriber(), ScriptedTranscriber("faster-whisper-small")
    library.set_transcriber(base)
    library.set_transcriber(small, "faster-whisper-small")
    library.ingest([aula])
    report = library.ingest([aula], IngestOptions(asr_model="faster-whisper-small"))
    assert report.results[0].status == "updated"
    assert library.lectures()[0].source_format == "whisper:faster-whisper-small"
    library.ingest([aula], IngestOptions(language="en"))
    assert (len(base.calls), len(small.calls)) == (2, 1) and transcriptions(library) == 3


def test_a_caption_file_beside_the_media_wins(library: Library, aula: Path, fixtures: Path) -> None:
    caption = Path(shutil.copy(fixtures / "lecture.vtt", aula.with_suffix(".vtt")))
    asr = ScriptedTranscriber()
    library.set_transcriber(asr)
    assert discover([aula])[0] == [caption]  # named
    assert discover([aula.parent])[0] == [caption]  # found in a folder
    report = library.ingest([aula.parent])
    assert [r.path for r in report.results] == [caption] and not asr.calls
    assert report.results[0].status == "added"


def test_caption_names_subtitle_downloaders_write(tmp_path: Path) -> None:
    media = tmp_path / "Aula [1].mp4"
    media.touch()
    assert caption_for(media) is None
    (tmp_path / "Aula [1].info.json").touch()  # a downloader's metadata, not captions
    assert caption_for(media) is None
    (tmp_path / "Aula [1].pt-BR.srt").touch()
    assert caption_for(media) == tmp_path / "Aula [1].pt-BR.srt"
    (tmp_path / "Aula [1].vtt").touch()
    assert caption_for(media) == tmp_path / "Aula [1].vtt"


def test_save_transcript_writes_a_vtt_that_reads_back(library: Library, aula: Path) -> None:
    library.set_transcriber(ScriptedTranscriber())
    out = aula.parent / "vtt"
    report = library.ingest([aula], IngestOptions(save_transcript=str(out)))
    written = report.results[0].transcript_file
    assert written == out / "aula1.vtt"
    back = read_transcript(written.read_bytes(), ".vtt", "aula1")
    stored = library.store.segments(library.lectures()[0].id)
    assert [c.text for c in back.lectures[0].cues] == [
        "O gradiente aponta para a maior subida.",
        "Por isso a descida anda no sentido contrário.",
    ]
    assert back.lectures[0].cues[-1].end == stored[-1].end == 6.0
    written.unlink()  # an unchanged file is written again from the library, beside it this time
    again = library.ingest([aula], IngestOptions(save_transcript=""))
    assert again.results[0].status == "unchanged"
    assert again.results[0].transcript_file == aula.with_suffix(".vtt")
    assert aula.with_suffix(".vtt").read_text(encoding="utf-8").startswith("WEBVTT")


@pytest.mark.parametrize("how", ["cancel", "ctrl-c"])
def test_a_stopped_transcription_stores_nothing(library: Library, aula: Path, how: str) -> None:
    library.set_transcriber(ScriptedTranscriber(fail_after=0 if how == "ctrl-c" else None))
    other = aula.with_name("aula0.ogg")
    shutil.copy(SPEECH / "en_gradient.mp3", other)
    seen: list[float] = []

    def cancel() -> bool:
        return how == "cancel" and bool(seen)

    with pytest.raises(Cancelled if how == "cancel" else KeyboardInterrupt):
        library.ingest([aula.parent], audio_progress=lambda d, t: seen.append(d), cancel=cancel)
    assert library.counts() == (0, 0) and transcriptions(library) == 0


def _video_only(path: Path) -> Path:
    import av
    import numpy as np

    with av.open(str(path), "w") as out:
        stream = out.add_stream("mpeg4", rate=5)
        stream.width, stream.height, stream.pix_fmt = 32, 32, "yuv420p"
        for _ in range(3):
            frame = av.VideoFrame.from_ndarray(np.zeros((32, 32, 3), np.uint8), format="rgb24")
            out.mux(stream.encode(frame))
        out.mux(stream.encode(None))
    return path


def test_bad_media_gets_one_sentence_and_the_others_go_on(
    library: Library, aula: Path, tmp_path: Path
) -> None:
    folder = aula.parent
    (folder / "damaged.mp4").write_bytes(b"\x00\x00\x00\x18ftypmp42" + bytes(range(256)) * 8)
    (folder / "empty.mp3").write_bytes(b"")
    _video_only(folder / "silent_film.mp4")
    library.set_transcriber(WhisperTranscriber(tmp_path / "no-models"))  # refused before loading
    report = library.ingest(
        [folder / "damaged.mp4", folder / "empty.mp3", folder / "silent_film.mp4"]
    )
    messages = {r.path.name: r.message for r in report.results}
    assert all(r.status == "failed" for r in report.results)
    assert messages["damaged.mp4"].startswith("cannot be read as audio or video")
    assert messages["empty.mp3"].startswith("cannot be read as audio or video")
    assert messages["silent_film.mp4"].startswith("has video but no audio stream")
    assert all("\n" not in m and "Traceback" not in m for m in messages.values())
    library.set_transcriber(ScriptedTranscriber())
    assert [r.status for r in library.ingest([folder]).results].count("added") == 1


def test_probe_reads_the_duration_of_a_fixture() -> None:
    head = probe(SPEECH / "pt_gpu.ogg")
    assert head.audio_streams == 1 and 5.0 < head.duration < 8.0


def _word(start: float, end: float, word: str) -> SimpleNamespace:
    return SimpleNamespace(start=start, end=end, word=word)


def test_segment_words_become_sentence_cues_inside_the_audio() -> None:
    words = [_word(0.0, 0.4, " Olá"), _word(0.4, 0.9, " turma."), _word(1.0, 1.3, " Hoje"),
             _word(1.3, 1.8, " vemos"), _word(1.8, 9.9, " redes")]  # fmt: skip
    segment = SimpleNamespace(start=0.0, end=9.9, text=" Olá turma. Hoje vemos redes", words=words)
    cues = segment_cues(segment, duration=5.0)
    assert [c.text for c in cues] == ["Olá turma.", "Hoje vemos redes"]
    assert (cues[0].start, cues[0].end, cues[1].start, cues[1].end) == (0.0, 0.9, 1.0, 5.0)
    no_words = SimpleNamespace(start=1.0, end=2.0, text="  sem   palavras ", words=None)
    assert segment_cues(no_words, 5.0) == [Cue(1.0, 2.0, "sem palavras")]


def test_vtt_output_has_ordered_millisecond_times() -> None:
    t = Transcription((Cue(0.0, 1.5, "a --> b"), Cue(3661.25, 3662.0, "c")), "pt", 1.0, 3662.0, "m")
    text = to_vtt(t)
    assert "00:00:00.000 --> 00:00:01.500\na -> b" in text
    assert "01:01:01.250 --> 01:01:02.000\nc" in text
    assert list(itertools.pairwise([c.start for c in t.cues]))


def test_cpu_is_int8_and_no_gpu_means_cpu() -> None:
    assert str(choose_device("cpu")) == "cpu (int8)"
    assert choose_device("mps").compute_type == "int8"  # CTranslate2 has no Metal backend
    import ctranslate2

    if ctranslate2.get_cuda_device_count() == 0:
        assert choose_device("auto").device == "cpu"
    else:  # pragma: no cover - a machine with a GPU
        assert str(choose_device("auto")) == "cuda (float16)"


def test_unknown_speech_model_is_named(tmp_path: Path) -> None:
    with pytest.raises(LectureTuiError, match="No speech-recognition model 'nope'"):
        resolve_asr_model(tmp_path, "nope")


def test_assembled_model_is_checked_before_it_is_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    parts = tmp_path / "pkg"
    parts.mkdir()
    for name, data in [("model.bin.part1", b"abc"), ("model.bin.part2", b"def"),
                       ("config.json", b"{}"), ("tokenizer.json", b"{}"), ("vocabulary.txt", b"")]:  # fmt: skip
        (parts / name).write_bytes(data)
    model = BUNDLED_ASR["whisper-base"]
    monkeypatch.setattr(type(model), "data_dir", lambda self, i, models_dir: parts)
    with pytest.raises(LectureTuiError, match="does not match its checksum"):
        assemble_whisper(model, tmp_path / "models")
    assert not (tmp_path / "models" / model.folder / "model.bin").exists()
    assert not [p for p in (tmp_path / "models" / model.folder).iterdir() if p.name.startswith(".")]


def test_a_version_6_library_gains_the_transcriptions_table(home: Path) -> None:
    path = DataHome.resolve().db_path
    old_library(path, 6).close()
    with Store(path) as store:
        assert store.schema_version == SCHEMA_VERSION
        kept = Transcriptions(store)
        assert kept.get("h", "whisper-base", None) is None
        t = Transcription((Cue(0.0, 1.0, "olá"),), "pt", 0.9, 1.5, "whisper-base")
        kept.save("h", None, t)
        assert kept.get("h", "whisper-base", None) == t
        assert kept.get("h", "whisper-base", "pt") is None


def test_a_broken_model_folder_is_one_sentence(tmp_path: Path) -> None:
    folder = tmp_path / "my-whisper"
    folder.mkdir()
    (folder / "model.bin").write_bytes(b"\x06\x00\x00\x00 not a model")
    (folder / "config.json").write_text("{}")
    asr = WhisperTranscriber(tmp_path, str(folder), Placement("cpu"))
    assert asr.name == "my-whisper"
    with pytest.raises(LectureTuiError, match="cannot be loaded"):
        asr.load()


@pytest.mark.slow
def test_an_unknown_language_is_one_sentence(library: Library, aula: Path) -> None:
    """The real decoder and model (bundled, int8), stopped by the language before decoding."""
    from tests.conftest import MODELS_DIR

    library.set_transcriber(WhisperTranscriber(MODELS_DIR, placement=Placement("cpu")))
    report = library.ingest([aula], IngestOptions(language="xx"))
    assert report.results[0].status == "failed"
    assert report.results[0].message.startswith("Whisper knows no language 'xx'")
    assert transcriptions(library) == 0
