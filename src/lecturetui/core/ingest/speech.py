"""Speech to timed text: a media file -> `Transcription`, with faster-whisper (CTranslate2).

Runs offline with the bundled Whisper base model (asrmodel.py) or any CTranslate2 Whisper folder:
on CUDA in float16 when CTranslate2 sees a GPU, else on the CPU in int8. Silences are skipped by
faster-whisper's voice-activity filter (Silero VAD, shipped in its wheel); the language is the one
asked for, else the one Whisper hears in the first 30 s. Word timestamps split Whisper's segments
into sentences, so the windows (segmenting.py), which are cut between cues, end at a sentence's
end. Progress is reported in seconds of audio; `cancel` is checked between segments, and
Ctrl+C stops at the next one: nothing is returned, so nothing is stored.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, Protocol

from lecturetui.core.errors import LectureTuiError
from lecturetui.core.i18n import _
from lecturetui.core.ingest.media import SAMPLE_RATE, Cancelled, MediaError, decode_audio, probe
from lecturetui.core.lectures import Cue, Transcription
from lecturetui.core.models.placement import AsrDevice, Placement
from lecturetui.core.models.whisper import DEFAULT_ASR, resolve_asr_model
from lecturetui.core.progress import SecondsProgress
from lecturetui.core.sentences import closes

CancelCheck = Callable[[], bool]


class Transcriber(Protocol):
    """What ingest needs of a speech recogniser (a fake in the unit tests)."""

    @property
    def name(self) -> str: ...

    def transcribe(
        self,
        path: Path,
        language: str | None = None,
        progress: SecondsProgress | None = None,
        cancel: CancelCheck | None = None,
    ) -> Transcription: ...


def model_name(name: str | None) -> str:
    """The short name a transcription is filed under, without loading anything."""
    if not name:
        return DEFAULT_ASR
    path = Path(name).expanduser()
    return path.resolve().name if path.is_dir() else name


class WhisperTranscriber:
    """faster-whisper's WhisperModel, loaded on the first file that needs it."""

    def __init__(
        self,
        models_dir: Path,
        model: str | None = None,
        placement: Placement | None = None,
        notify: Callable[[str], None] | None = None,
        cpu_threads: int = 0,
        beam_size: int = 5,
    ) -> None:
        self.models_dir = models_dir
        self._asked_model = model
        self._placement = placement or Placement()
        self._notify = notify
        self.cpu_threads = cpu_threads
        self.beam_size = beam_size
        self._model: Any = None
        self.device: AsrDevice | None = None

    @property
    def name(self) -> str:
        return model_name(self._asked_model)

    def load(self) -> Any:
        if self._model is None:
            from faster_whisper import WhisperModel  # lazy: 1 s; only transcribing needs it

            path, _name = resolve_asr_model(self.models_dir, self._asked_model, self._notify)
            device = self._placement.speech
            try:
                self._model = self._whisper(WhisperModel, path, device)
            except (RuntimeError, OSError, ValueError) as exc:
                if device.device != "cuda":
                    raise _unloadable(path, exc) from None
                if self._notify:  # e.g. CUDA 12's cuBLAS or cuDNN 9 not installed
                    self._notify(
                        _("speech recognition cannot use the GPU ({exc}); using the CPU").format(
                            exc=exc
                        )
                    )
                device = AsrDevice("cpu", "int8")
                try:
                    self._model = self._whisper(WhisperModel, path, device)
                except (RuntimeError, OSError, ValueError) as again:
                    raise _unloadable(path, again) from None
            self.device = device
            if self._notify:
                # TRANSLATORS: "speech recognition: whisper-base on cpu (int8)"
                self._notify(
                    _("speech recognition: {model} on {device}").format(
                        model=self.name, device=device
                    )
                )
        return self._model

    def _whisper(self, cls: Any, path: Path, device: AsrDevice) -> Any:
        return cls(
            str(path),
            device=device.device,
            compute_type=device.compute_type,
            cpu_threads=self.cpu_threads,
            local_files_only=True,
        )

    def transcribe(
        self,
        path: Path,
        language: str | None = None,
        progress: SecondsProgress | None = None,
        cancel: CancelCheck | None = None,
    ) -> Transcription:
        header = probe(path)  # a bad file is refused before the model loads
        model = self.load()
        audio = decode_audio(path, cancel)
        duration = round(len(audio) / SAMPLE_RATE, 3) or header.duration
        if progress:
            progress(0.0, duration)
        try:
            segments, info = model.transcribe(
                audio,
                language=(language or "").split("-")[0].split("_")[0].lower() or None,  # pt-BR
                beam_size=self.beam_size,
                vad_filter=True,
                word_timestamps=True,
            )
        except ValueError:  # an unknown language code
            raise LectureTuiError(
                _("Whisper knows no language {language!r}.").format(language=language),
                hint=_("--lang takes a code such as pt or en"),
            ) from None
        cues: list[Cue] = []
        for segment in segments:  # decoded lazily, one at a time
            cues.extend(segment_cues(segment, duration))
            if progress:
                progress(min(float(segment.end), duration), duration)
            if cancel is not None and cancel():
                raise Cancelled()
        if progress:
            progress(duration, duration)
        return Transcription(
            cues=tuple(in_order(cues)),
            language=str(info.language),
            language_probability=float(info.language_probability),
            duration=duration,
            model=self.name,
        )


def _unloadable(path: Path, exc: Exception) -> LectureTuiError:
    return LectureTuiError(
        _("The speech-recognition model in {path} cannot be loaded ({exc}).").format(
            path=path, exc=exc
        ),
        hint=_("is it a CTranslate2 Whisper folder? (model.bin, config.json, tokenizer.json)"),
    )


def segment_cues(segment: Any, duration: float) -> list[Cue]:
    """A Whisper segment as cues, one a sentence when its words have timestamps."""
    words = [w for w in (segment.words or []) if str(w.word).strip()]
    if not words:
        text = " ".join(str(segment.text).split())
        return [_cue(segment.start, segment.end, text, duration)] if text else []
    out: list[Cue] = []
    sentence: list[Any] = []
    for word in words:
        sentence.append(word)
        if closes(str(word.word).strip()):
            out.append(_sentence_cue(sentence, duration))
            sentence = []
    if sentence:
        out.append(_sentence_cue(sentence, duration))
    return [c for c in out if c.text]


def _sentence_cue(words: Sequence[Any], duration: float) -> Cue:
    text = " ".join("".join(str(w.word) for w in words).split())
    return _cue(words[0].start, words[-1].end, text, duration)


def _cue(start: float, end: float, text: str, duration: float) -> Cue:
    start = round(min(max(float(start), 0.0), duration), 3)
    return Cue(start, round(min(max(float(end), start), duration), 3), text)


def in_order(cues: Iterable[Cue]) -> list[Cue]:
    """Cues whose starts never go back (word times can overlap a little across segments)."""
    out: list[Cue] = []
    for cue in cues:
        if out and cue.start < out[-1].start:
            cue = Cue(out[-1].start, max(cue.end, out[-1].start), cue.text)
        out.append(cue)
    return out


# -- writing a transcript out ------------------------------------------------------------------
def vtt_time(seconds: float) -> str:
    ms = round(max(0.0, seconds) * 1000)
    h, rest = divmod(ms, 3_600_000)
    m, rest = divmod(rest, 60_000)
    s, ms = divmod(rest, 1000)
    return f"{h:02d}:{m:02d}:{s:02d}.{ms:03d}"


def to_vtt(transcription: Transcription) -> str:
    lines = ["WEBVTT", f"Kind: captions\nLanguage: {transcription.language}", ""]
    for cue in transcription.cues:
        lines += [
            f"{vtt_time(cue.start)} --> {vtt_time(cue.end)}",
            cue.text.replace("-->", "->"),
            "",
        ]
    return "\n".join(lines)


def save_vtt(transcription: Transcription, media: Path, folder: Path | None = None) -> Path:
    """Write `<media stem>.vtt` beside the media file, or into `folder`; atomically."""
    target = (folder or media.parent) / f"{media.stem}.vtt"
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f".{target.name}.tmp")
        tmp.write_text(to_vtt(transcription), encoding="utf-8")
        tmp.replace(target)
    except OSError as exc:
        raise MediaError(
            _("its transcript cannot be written to {target} ({reason})").format(
                target=target, reason=exc.strerror or exc
            )
        ) from None
    return target
