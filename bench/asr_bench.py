"""Speech recognition for lectures without captions: real-time factor and word error rate.

    .venv/bin/python bench/asr_bench.py [--model whisper-base] [--device cpu] [--threads 2]
                                        [--repeat 2] [--quick]

Data: bench/data/fleurs_pt/ (10 real Brazilian Portuguese utterances from Google's FLEURS test
split with their reference transcripts, CC BY 4.0; see bench/data/README.md).

- WER: each utterance transcribed on its own through lecturetui's transcriber (the path `ingest`
  takes: PyAV decoding, Silero VAD, word timestamps, beam 5), with `--lang pt` and with the
  language detected; words compared after lower-casing and dropping punctuation.
- RTF: the utterances joined into one long recording (0.8 s of silence between them, the whole
  `--repeat` times: several minutes) and transcribed in one call, as a lecture would be;
  RTF = wall-clock seconds / seconds of audio (below 1 is faster than real time). The model is
  loaded before the clock starts (its load time is printed apart).
- `--quick`: one utterance, once (the whole path in seconds: a check, no figures).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
import wave
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
DATA = ROOT / "bench" / "data" / "fleurs_pt"


def words(text: str) -> list[str]:
    return re.sub(r"[^\w\s]|_", " ", text.lower()).split()


def edit_distance(ref: list[str], hyp: list[str]) -> int:
    row = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, start=1):
        prev, row[0] = row[0], i
        for j, h in enumerate(hyp, start=1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (r != h))
    return row[-1]


def wer(pairs: list[tuple[str, str]]) -> float:
    errors = sum(edit_distance(words(r), words(h)) for r, h in pairs)
    return errors / max(1, sum(len(words(r)) for r, _ in pairs))


def load_avg() -> str:
    path = Path("/proc/loadavg")
    return " ".join(path.read_text().split()[:3]) if path.exists() else "?"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default=None, help="--asr-model (default: whisper-base)")
    ap.add_argument("--device", default="cpu", choices=["auto", "cpu", "cuda"])
    ap.add_argument("--threads", type=int, default=2, help="CTranslate2 CPU threads")
    ap.add_argument("--repeat", type=int, default=2, help="times the utterances are joined")
    ap.add_argument("--json", type=Path, help="also write the figures here")
    ap.add_argument("--quick", action="store_true", help="one utterance, once: a check")
    args = ap.parse_args()
    if args.quick:
        args.repeat = 1
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import numpy as np

    from lecturetui.core.ingest.media import SAMPLE_RATE, decode_audio
    from lecturetui.core.ingest.speech import WhisperTranscriber
    from lecturetui.core.models.placement import Placement

    models = Path(os.environ.get("LECTURETUI_MODELS", ROOT / "models"))
    asr = WhisperTranscriber(models, args.model, Placement(args.device), cpu_threads=args.threads)
    t0 = time.perf_counter()
    asr.load()
    load_s = time.perf_counter() - t0
    clips = sorted(DATA.glob("*.ogg"))[: 1 if args.quick else None]
    refs = [c.with_suffix(".txt").read_text(encoding="utf-8").strip() for c in clips]
    out: dict[str, object] = {"model": asr.name, "device": str(asr.device),
                              "threads": args.threads, "load_s": round(load_s, 2),
                              "loadavg_before": load_avg()}  # fmt: skip

    # -- WER, utterance by utterance -----------------------------------------------------------
    for label, lang in (("pt given", "pt"), ("detected", None)):
        pairs, detected, audio_s, t0 = [], [], 0.0, time.perf_counter()
        for clip, ref in zip(clips, refs, strict=True):
            t = asr.transcribe(clip, lang)
            pairs.append((ref, " ".join(c.text for c in t.cues)))
            detected.append(t.language)
            audio_s += t.duration
        wall = time.perf_counter() - t0
        out[f"wer ({label})"] = round(wer(pairs), 4)
        out[f"rtf clips ({label})"] = round(wall / audio_s, 3)
        if lang is None:
            out["languages detected"] = detected
        if lang == "pt":
            out["examples"] = pairs[:2]
    out["clips"] = len(clips)
    out["clip audio s"] = round(audio_s, 1)
    out["reference words"] = sum(len(words(r)) for r in refs)

    # -- RTF, one long recording ------------------------------------------------------------------
    gap = np.zeros(int(0.8 * SAMPLE_RATE), dtype=np.float32)
    pieces = [p for c in clips for p in (decode_audio(c), gap)] * args.repeat
    audio = np.concatenate(pieces)
    with tempfile.TemporaryDirectory() as tmp:
        long_wav = Path(tmp) / "long.wav"
        with wave.open(str(long_wav), "wb") as w:
            w.setnchannels(1)
            w.setsampwidth(2)
            w.setframerate(SAMPLE_RATE)
            w.writeframes((np.clip(audio, -1, 1) * 32767).astype("<i2").tobytes())
        t0 = time.perf_counter()
        t = asr.transcribe(long_wav, "pt")
        wall = time.perf_counter() - t0
    out["long audio s"] = round(t.duration, 1)
    out["long wall s"] = round(wall, 1)
    out["rtf long (pt given)"] = round(wall / t.duration, 3)
    out["wer long (pt given)"] = round(wer([(" ".join(refs * args.repeat),
                                             " ".join(c.text for c in t.cues))]), 4)  # fmt: skip
    out["cues long"] = len(t.cues)
    out["loadavg_after"] = load_avg()
    text = json.dumps(out, ensure_ascii=False, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
