"""Where a sentence ends in speech captions that have no punctuation: a small trained model.

Automatic captions (YouTube's, a recogniser's without punctuation) are lower case, with no full
stop, in cues of a few words; the lecturer's sentences are still there, only unmarked. The way
Segment any Text (Frohmann et al., 2024) finds them, a token-classification head over a
multilingual encoder trained on text whose punctuation and case were stripped, is used here on
the encoder the product already ships: the first LAYERS layers of multilingual-e5-small, adapted
by low-rank deltas (LoRA) on its linear layers, and a linear head reading each word's last piece
and the next word's first. The deltas and the head are small (a file shipped with the package,
checked by sha256); the rest is E5's own weights. `scripts/train_sentence_ends.py` trains them
on openly licensed punctuated text in Portuguese and English (`bench/data/sentences/`, sources
and licences); nothing in the model is tied to a language.

At set-up (`models setup`, core/models/setup.py) the deltas are merged into those layers and the
result exported once to ONNX beside E5's own export (`build`); ingest runs it on a lecture's
words (`SentenceModel.ends`) through OpenVINO or ONNX Runtime, on the CPU: a lecture of an hour
(about 9,000 words) in a few seconds on 2 cores.
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from lecturetui.core.models import ov_tokenizer
from lecturetui.core.models.locate import DEFAULT_EMBED_MODEL
from lecturetui.core.models.onnx_export import export_dir as e5_export_dir
from lecturetui.core.models.ov_cache import compile_cached
from lecturetui.core.models.tokens import read_tokenizer

#: E5's layers the model reads (of 12), and the LoRA rank of its deltas
LAYERS = 6
RANK = 8
#: the deltas and the head, shipped with the package, and their sha256
WEIGHTS = "sentence_ends.npz"
WEIGHTS_SHA256 = "3035721822832159aff56bc68be6463db569b115eb12fdc8c536deb0bac646e8"
#: the linear layers of each of those layers that carry a delta (BertLayer's attribute paths)
ADAPTED = (
    "attention.self.query",
    "attention.self.key",
    "attention.self.value",
    "attention.output.dense",
    "intermediate.dense",
    "output.dense",
)
#: characters stripped from a word's edges before it is read (what automatic captions lack)
STRIP = ".,;:!?…\"“”'’«»()[]{}¿¡-–—"
#: a sentence has at least this many words (unless the weights file says otherwise)
SHORTEST = 3
#: words read at a time, and of them those on each side that only give context (each word's
#: end is judged where it has MARGIN words around it at least, but at the text's edges)
CHUNK = 200
MARGIN = 32
#: the export's folder beside E5's export, and its file
FOLDER = "sentence-ends"
MODEL_FILE = "model.onnx"
RECORD = "export.json"
BOS, EOS, UNK = 0, 2, 3  # XLM-R's <s>, </s> and <unk>
#: a run of words read at once has at most this many tokens (E5 reads 512), a word this many
#: pieces
MAX_TOKENS = 512
MAX_PIECES = 6

Floats = npt.NDArray[np.float32]
#: the encoder's token states of rows of ids (each row [BOS, pieces..., EOS]), one array each
States = Callable[[Sequence[Sequence[int]]], list[Floats]]
#: each word's pieces' ids, no special tokens
Pieces = Callable[[Sequence[str]], list[list[int]]]


def norm(word: str) -> str:
    """A word as the model reads it: lower case, without the punctuation at its edges."""
    return word.strip(STRIP).lower()


@dataclass(frozen=True, slots=True)
class Chunk:
    """A run of words read at once: its token ids (with BOS and EOS), where each word's last
    piece and the next word's first piece sit, and which of its words it judges."""

    ids: list[int]
    last: list[int]
    after: list[int]
    first_word: int
    judged: range


def chunks(pieces: Sequence[Sequence[int]], size: int = CHUNK, margin: int = MARGIN) -> list[Chunk]:
    """The words cut into overlapping runs of `size` + 2 `margin` words at most, each judging the
    words in its middle (at the text's edges, its first or last words too), each run at most
    MAX_TOKENS tokens (fewer words judged where the words have many pieces; a word of more than
    MAX_PIECES pieces, a web address or a line of code, is read by its first and last ones)."""
    cut = [
        list(p[: MAX_PIECES - 1]) + list(p[-1:]) if len(p) > MAX_PIECES else list(p) for p in pieces
    ]
    n = len(cut)
    out: list[Chunk] = []
    core = 0
    while core < n:
        lo, judged = max(0, core - margin), size
        while judged > 1 and 2 + sum(map(len, cut[lo : core + judged + margin])) > MAX_TOKENS:
            judged //= 2
        hi = min(n, core + judged + margin)
        ids = [BOS]
        last: list[int] = []
        starts: list[int] = []
        for word in cut[lo:hi]:
            starts.append(len(ids))
            ids += word or [UNK]
            last.append(len(ids) - 1)
        ids.append(EOS)
        after = [*starts[1:], len(ids) - 1]
        out.append(Chunk(ids, last, after, lo, range(core - lo, min(core + judged, n) - lo)))
        core += judged
    return out


@dataclass(frozen=True, slots=True)
class Head:
    """The linear head over a word's last piece and the next word's first: weights, bias, the
    probability above which a gap is a sentence's end, and the fewest words of a sentence
    (`decode`; both chosen in training, on text kept aside)."""

    weights: Floats
    bias: float
    threshold: float
    shortest: int = SHORTEST

    def probabilities(self, states: Floats, chunk: Chunk) -> Floats:
        """For each judged word of the chunk, the probability that a sentence ends after it."""
        pick = list(chunk.judged)
        both = np.concatenate(
            [states[[chunk.last[i] for i in pick]], states[[chunk.after[i] for i in pick]]],
            axis=1,
        )
        logits = both @ self.weights + self.bias
        out: Floats = (1.0 / (1.0 + np.exp(-logits))).astype(np.float32)
        return out


def decode(p: Floats, threshold: float, shortest: int = SHORTEST) -> list[int]:
    """The positions of the words a sentence ends with, in order, given each gap's probability
    `p` (the last word, which ends the text, not among them): the gaps whose probability passes
    the threshold and is the highest of the `shortest` - 1 words on each side (one, at least),
    no sentence shorter than `shortest` words."""
    n = len(p)
    near = max(1, shortest - 1)
    picked: list[int] = []
    for i in np.argsort(-p, kind="stable").tolist():
        if p[i] < threshold:
            break
        lo, hi = max(0, i - near), min(n, i + near + 1)
        if p[i] < p[lo:hi].max() or not shortest - 1 <= i < n - shortest:
            continue
        if all(abs(i - j) >= shortest for j in picked):
            picked.append(i)
    return sorted(picked)


@dataclass(frozen=True, slots=True)
class SentenceModel:
    """The encoder's states (a runtime's `States`), the tokenizer's pieces, and the head."""

    states: States
    pieces: Pieces
    head: Head

    def probabilities(self, words: Sequence[str]) -> Floats:
        """For each word, the probability that a sentence ends after it."""
        cut = chunks(self.pieces([norm(w) or w for w in words]))
        out = np.zeros(len(words), dtype=np.float32)
        for chunk, states in zip(cut, self.states([c.ids for c in cut]), strict=True):
            out[[chunk.first_word + i for i in chunk.judged]] = self.head.probabilities(
                states, chunk
            )
        return out

    def ends(self, words: Sequence[str]) -> list[int]:
        """The positions of the words the text's sentences end with (`decode`)."""
        if not words:
            return []
        return decode(self.probabilities(words), self.head.threshold, self.head.shortest)


def read_weights(data: bytes) -> tuple[dict[str, Floats], Head]:
    """The LoRA deltas (by parameter name: `<layer>.<path>.a` and `.b`) and the head, from the
    bytes of the weights file."""
    with np.load(io.BytesIO(data)) as npz:
        arrays = {k: npz[k].astype(np.float32) for k in npz.files}
    shortest = int(arrays.pop("shortest")) if "shortest" in arrays else SHORTEST
    head = Head(
        arrays.pop("head.weight"),
        float(arrays.pop("head.bias")),
        float(arrays.pop("threshold")),
        shortest,
    )
    return arrays, head


class WeightsError(RuntimeError):
    """The shipped weights are missing or not the ones this version was built with."""


@functools.cache
def shipped() -> bytes:
    """The shipped weights file's bytes (its sha256 checked)."""
    data = resources.files("lecturetui.core").joinpath("data", WEIGHTS).read_bytes()
    if hashlib.sha256(data).hexdigest() != WEIGHTS_SHA256:
        raise WeightsError(f"{WEIGHTS} is not the file this version of lecturetui ships")
    return data


def export_dir(e5_export: Path) -> Path:
    return e5_export / FOLDER


def _record(e5_export: Path) -> dict[str, Any]:
    try:
        record = json.loads((export_dir(e5_export) / RECORD).read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return record if isinstance(record, dict) else {}


def ready(e5_export: Path) -> bool:
    """Whether the model is exported beside E5's export, from these weights."""
    return _built(_record(e5_export))


def _built(record: dict[str, Any]) -> bool:
    return record.get("weights") == WEIGHTS_SHA256


class Embeddings:
    """E5's piece embeddings, read row by row from its weights file (never the whole table)."""

    NAME = "embeddings.word_embeddings.weight"

    def __init__(self, e5: Path) -> None:
        from safetensors import safe_open  # lazy: only a lecture without punctuation reads it

        self._file: Any = safe_open(str(e5 / "model.safetensors"), framework="numpy")
        self._table: Any = self._file.get_slice(self.NAME)  # type: ignore[no-untyped-call]
        self.dim = int(self._table.get_shape()[1])

    def rows(self, ids: Sequence[int]) -> Floats:
        """The embeddings of the ids, in order."""
        unique = sorted(set(ids))
        found = {i: np.asarray(self._table[i : i + 1], dtype=np.float32)[0] for i in unique}
        return np.stack([found[i] for i in ids]) if ids else np.zeros((0, self.dim), np.float32)

    def batch(self, rows: Sequence[Sequence[int]]) -> tuple[Floats, npt.NDArray[np.int64]]:
        """Rows of ids as padded input embeddings and their attention mask."""
        longest = max(len(r) for r in rows)
        embeds = np.zeros((len(rows), longest, self.dim), dtype=np.float32)
        mask = np.zeros((len(rows), longest), dtype=np.int64)
        flat = self.rows([i for r in rows for i in r])
        at = 0
        for k, r in enumerate(rows):
            embeds[k, : len(r)] = flat[at : at + len(r)]
            mask[k, : len(r)] = 1
            at += len(r)
        return embeds, mask


#: rows of ids run together (chunks are of similar length)
BATCH = 8


Run = Callable[[Floats, npt.NDArray[np.int64]], Floats]


def onnxruntime_run(file: Path) -> Run:
    """The export run by ONNX Runtime on the CPU."""
    import onnxruntime as ort  # lazy: 0.15 s; only where OpenVINO cannot run the model

    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    session = ort.InferenceSession(str(file), options, providers=["CPUExecutionProvider"])

    def run(embeds: Floats, mask: npt.NDArray[np.int64]) -> Floats:
        got: Any = session.run(None, {"inputs_embeds": embeds, "attention_mask": mask})
        return np.asarray(got[0], dtype=np.float32)

    return run


def openvino_run(file: Path, sha256: str) -> Run:
    """The export compiled by OpenVINO for this CPU (in bfloat16 where the CPU has it), kept in
    its cache beside the export (core/models/ov_cache.py)."""
    compiled = compile_cached(file, sha256, {"PERFORMANCE_HINT": "LATENCY"}, "sentence ends")
    request = compiled.create_infer_request()

    def run(embeds: Floats, mask: npt.NDArray[np.int64]) -> Floats:
        request.infer({"inputs_embeds": embeds, "attention_mask": mask})
        return np.asarray(request.get_output_tensor(0).data, dtype=np.float32).copy()

    return run


class OnnxStates:
    """The exported encoder, run by OpenVINO on the CPU (else ONNX Runtime)."""

    def __init__(self, file: Path, table: Embeddings, sha256: str = "") -> None:
        self.run: Run
        try:
            self.run = openvino_run(file, sha256)
        except Exception:  # OpenVINO missing or unable: ONNX Runtime runs the same graph
            self.run = onnxruntime_run(file)
        self._table = table

    def __call__(self, rows: Sequence[Sequence[int]]) -> list[Floats]:
        out: list[Floats] = []
        for start in range(0, len(rows), BATCH):
            part = rows[start : start + BATCH]
            states = self.run(*self._table.batch(part))
            out += [states[k, : len(r)] for k, r in enumerate(part)]
        return out


def word_pieces(encode: Callable[[list[str]], list[list[int]]]) -> Pieces:
    """Each word's pieces from a tokenizer that encodes texts with their special tokens (the
    first and last id of each row dropped), each distinct word encoded once."""

    def pieces(words: Sequence[str]) -> list[list[int]]:
        distinct = list(dict.fromkeys(words))
        found = {w: row[1:-1] for w, row in zip(distinct, encode(distinct), strict=True)}
        return [found[w] for w in words]

    return pieces


def load(e5: Path, e5_export: Path) -> SentenceModel | None:
    """The model, where `models setup` exported it from these weights beside E5's export, with
    E5's tokenizer (its OpenVINO form where set-up converted it: read in a tenth of a second);
    else None (the captions' sentences are then cut by speech's words, as before the model)."""
    record = _record(e5_export)
    if not _built(record):
        return None
    _deltas, head = read_weights(shipped())
    file = export_dir(e5_export) / MODEL_FILE
    states = OnnxStates(file, Embeddings(e5), str(record.get("sha256", "")))
    ov = ov_tokenizer.load(e5, e5_export, MAX_TOKENS)
    if ov is not None:
        return SentenceModel(states, word_pieces(ov.encode_batch), head)
    hf = read_tokenizer(e5 / "tokenizer.json")
    return SentenceModel(states, word_pieces(lambda t: [e.ids for e in hf.encode_batch(t)]), head)


#: "off" turns the model off (captions without punctuation are then cut by speech's words)
ENV = "LECTURETUI_SENTENCES"


def turned_off() -> bool:
    """Whether $LECTURETUI_SENTENCES turns the model off."""
    return os.environ.get(ENV, "on").strip().lower() in ("off", "0", "no")


def from_models(models_dir: Path) -> SentenceModel | None:
    """The model of a models folder (built from its E5), unless $LECTURETUI_SENTENCES is off."""
    if turned_off():
        return None
    e5 = models_dir / DEFAULT_EMBED_MODEL
    return load(e5, e5_export_dir(models_dir, e5))
