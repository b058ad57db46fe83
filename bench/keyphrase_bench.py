"""Key phrases of a chapter against its author's title, on the chapter benchmark
(bench/data/chapters/: real recordings with their authors' chapters).

    .venv/bin/python bench/keyphrase_bench.py [--sample N] [--top 3] [--examples FILE.jsonl]

YAKE is measured here only: install it beside the project first (`pip install yake==0.7.3`, pure
Python; its stop-word lists also serve the scoring and the KeyBERT rows' candidates).

For every author's chapter, each method gives its key phrases from that chapter's own text (the
rest of the recording as contrast where the method takes it); a phrase matches when it shares a
content word with the author's title (case and accents folded, the language's stop words left
out, words compared on their first 5 letters). Reported: the share of chapters whose first phrase
matches and whose top 3 hold one that does, per kind, and the time per recording.

Methods:
* `title()`: the product's part title (core/study/parts.py), one phrase, the rest as contrast;
* YAKE (`yake`, statistical, one document): n-grams of 1-3 words, its stop words for the language;
  and YAKE with contrast: its top 15 without the phrases the rest says more often (per word) than
  the chapter;
* KeyBERT over the product's E5 (multilingual-e5-small on the runtime the product loads it on):
  candidates the chapter's 1-3-grams without YAKE's stop words (the `--candidates` most frequent),
  embedded as "query: ", against the chapter embedded as "passage: " (truncated at 512 tokens, as
  KeyBERT embeds a document); plain, with MMR (diversity 0.5), and with contrast (the chapter's
  vector minus half the mean of the other chapters');
* the product's `keyphrases()` (core/study/keyphrases.py: KeyBERT over E5, candidates the runs of
  1-3 words as said, the text as the mean of its passages), without and with the rest as contrast;
* a floor: the whole recording's YAKE top 3, the same for each of its chapters (what vocabulary
  common to the recording matches alone).

KeyBERT embeds thousands of phrases on a CPU, so every method is scored on the same sample: all
lecture entries and every `--sample`th other entry (the time of E5's load is given apart); the
methods without a model are also scored on every chapter.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
import unicodedata
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import ROOT
from chapters_bench import DATA, SRT_TIME, entries

_WORD = re.compile(r"[^\W_]+(?:[-'][^\W_]+)*")


@dataclass
class Chapter:
    entry: str
    kind: str
    language: str
    title: str
    text: str
    rest: list[str]  # the recording's other chapters, in order


@dataclass
class Tally:
    chapters: int = 0
    first: int = 0
    any3: int = 0
    by_kind: dict[str, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0, 0]))
    seconds: dict[str, float] = field(default_factory=lambda: defaultdict(float))


def said(path: Path) -> list[tuple[float, str]]:
    """(start, text) of every caption cue (srt) or paragraph (json)."""
    if path.suffix == ".json":
        data = json.loads(path.read_text("utf-8"))
        return [(float(s["start"]), str(s["text"])) for s in data["segments"]]
    out = []
    for block in re.split(r"\n\s*\n", path.read_text("utf-8", "replace")):
        m = SRT_TIME.search(block)
        if m:
            g = [int(x) for x in m.groups()[:4]]
            text = " ".join(block[m.end() :].split())
            out.append((g[0] * 3600 + g[1] * 60 + g[2] + g[3] / 1000, text))
    return out


def chapters_of(row: dict[str, Any]) -> list[Chapter]:
    cues = said(DATA / row["captions_file"])
    starts = [c["start_s"] for c in row["chapters"]]
    texts = []
    for i, start in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else float("inf")
        texts.append(" ".join(t for at, t in cues if start <= at < end or (i == 0 and at < start)))
    kind = row["kind"] if row["kind"] in ("lecture", "podcast") else "talk"
    out = []
    for i, c in enumerate(row["chapters"]):
        if texts[i].strip():
            rest = [t for j, t in enumerate(texts) if j != i]
            out.append(Chapter(row["id"], kind, row["language"], c["title"], texts[i], rest))
    return out


def fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def stopwords(language: str) -> set[str]:
    import yake

    code = language.split("-")[0].lower()
    folder = Path(yake.__file__).parent / "core" / "StopwordsList"
    path = folder / f"stopwords_{code}.txt"
    if not path.exists():
        path = folder / "stopwords_noLang.txt"
    return {fold(w.strip()) for w in path.read_text("utf-8", "replace").splitlines() if w.strip()}


def stems(text: str, stop: set[str]) -> set[str]:
    return {w[:5] for w in _WORD.findall(fold(text)) if w not in stop and len(w) >= 3}


# -- the methods: (chapter, top) -> phrases ---------------------------------------------------------


def by_title(ch: Chapter, top: int) -> list[str]:
    from lecturetui.core.retrieval.sentences import split_sentences
    from lecturetui.core.study.parts import title

    inside = [s.text for s in split_sentences(ch.text)]
    others = [s.text for t in ch.rest for s in split_sentences(t)]
    made = title(inside, others)
    return [made] if made else []


def by_yake(ch: Chapter, top: int) -> list[str]:
    import yake

    lan = ch.language.split("-")[0].lower()
    extractor = yake.KeywordExtractor(lan=lan, n=3, top=top)
    return [k for k, _ in extractor.extract_keywords(ch.text)]


def by_yake_contrast(ch: Chapter, top: int) -> list[str]:
    import yake

    lan = ch.language.split("-")[0].lower()
    found = [k for k, _ in yake.KeywordExtractor(lan=lan, n=3, top=15).extract_keywords(ch.text)]
    inside = fold(ch.text)
    rest = fold(" ".join(ch.rest))
    n_in = max(1, len(inside.split()))
    n_out = max(1, len(rest.split()))

    def rate(hay: str, phrase: str, n: int) -> float:
        return len(re.findall(r"\b" + re.escape(fold(phrase)) + r"\b", hay)) / n

    kept = [k for k in found if rate(rest, k, n_out) <= rate(inside, k, n_in)]
    return (kept + [k for k in found if k not in kept])[:top]


class Cached:
    """The product's E5 with every vector kept: the methods after the first reuse them (so only
    the first method's time, `keyphrases()`, counts the embedding)."""

    def __init__(self, e5: Any) -> None:
        self.e5 = e5
        self.queries: dict[str, Any] = {}
        self.passages: dict[str, Any] = {}

    def embed_query(self, text: str) -> Any:
        if text not in self.queries:
            self.queries[text] = self.e5.embed_query(text)
        return self.queries[text]

    def embed_passages(self, texts: list[str]) -> Any:
        import numpy as np

        todo = [t for t in dict.fromkeys(texts) if t not in self.passages]
        if todo:
            self.passages.update(zip(todo, self.e5.embed_passages(todo), strict=True))
        return np.stack([self.passages[t] for t in texts])


class KeyBertE5:
    """KeyBERT over the product's E5 (the runtime `load_embedder` picks on this machine)."""

    def __init__(self, candidates: int) -> None:
        t0 = time.perf_counter()
        from keybert import KeyBERT  # imports sentence-transformers, hence torch
        from keybert.backend import BaseEmbedder

        self.import_s = time.perf_counter() - t0
        from lecturetui.core.models.runtime import load_embedder

        t0 = time.perf_counter()
        models = ROOT / "models"
        self.e5 = load_embedder(models / "multilingual-e5-small", models)
        self.load_s = time.perf_counter() - t0
        self.cached = Cached(self.e5)
        self.candidates = candidates
        outer = self

        class Backend(BaseEmbedder):  # type: ignore[misc]
            def embed(self, documents: list[str], verbose: bool = False) -> Any:
                return outer.queries(list(documents))

        self.model = KeyBERT(model=Backend())

    def queries(self, texts: list[str]) -> Any:
        import numpy as np

        return np.stack([self.cached.embed_query(t) for t in texts])

    def doc(self, text: str) -> Any:
        return self.cached.embed_passages([text])[0]

    def product(self, ch: Chapter, top: int, contrast: bool) -> list[str]:
        from lecturetui.core.study.keyphrases import keyphrases

        lang = ch.language.split("-")[0]
        return keyphrases(ch.text, lang, top, ch.rest if contrast else (), embedder=self.cached)

    def extract(self, ch: Chapter, top: int, mmr: bool = False, contrast: float = 0.0) -> list[str]:
        import numpy as np
        from sklearn.feature_extraction.text import CountVectorizer

        vec = self.doc(ch.text)
        if contrast:
            rest = np.mean([self.doc(t) for t in ch.rest], axis=0)
            vec = vec - contrast * rest
            vec = vec / (np.linalg.norm(vec) or 1.0)
        counter = CountVectorizer(ngram_range=(1, 3), stop_words=sorted(stopwords(ch.language)),
                                  max_features=self.candidates)  # fmt: skip
        found = self.model.extract_keywords(ch.text, vectorizer=counter, top_n=top, use_mmr=mmr,
                                            diversity=0.5, doc_embeddings=vec[None, :])  # fmt: skip
        return [k for k, _ in found]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sample", type=int, default=6, help="every Nth entry that is not a lecture")
    ap.add_argument("--top", type=int, default=3)
    ap.add_argument("--candidates", type=int, default=40, help="KeyBERT: most frequent n-grams")
    ap.add_argument("--examples", type=Path, default=None)
    args = ap.parse_args()
    rows = entries("both")
    others = [r for r in rows if r["kind"] != "lecture"]
    sample = {r["id"] for r in rows if r["kind"] == "lecture"} | {
        r["id"] for r in others[:: args.sample]
    }
    keybert = KeyBertE5(args.candidates)
    cheap: dict[str, Callable[[Chapter, int], list[str]]] = {
        "title() (parts.py)": by_title,
        "YAKE": by_yake,
        "YAKE + contrast": by_yake_contrast,
    }
    costly: dict[str, Callable[[Chapter, int], list[str]]] = {
        "keyphrases() (KeyBERT/E5, as said)": lambda c, k: keybert.product(c, k, False),
        "keyphrases() + contrast": lambda c, k: keybert.product(c, k, True),
        "KeyBERT/E5": lambda c, k: keybert.extract(c, k),
        "KeyBERT/E5 + MMR 0.5": lambda c, k: keybert.extract(c, k, mmr=True),
        "KeyBERT/E5 + contrast 0.5": lambda c, k: keybert.extract(c, k, contrast=0.5),
    }
    tallies: dict[tuple[str, str], Tally] = defaultdict(Tally)
    examples = []
    for row in rows:
        chapters = chapters_of(row)
        stop = stopwords("en")  # the authors' titles are in English, the pt-BR entry's too
        whole = by_yake(Chapter(row["id"], "", row["language"], "", " ".join(c.text for c in
                                chapters), []), args.top)  # fmt: skip
        methods = dict(cheap)
        if row["id"] in sample:
            methods |= costly
        for ch in chapters:
            gold = stems(ch.title, stop)
            record: dict[str, Any] = {"id": ch.entry, "title": ch.title}
            for name, method in [*methods.items(), ("floor: the recording's YAKE", None)]:
                t0 = time.perf_counter()
                phrases = method(ch, args.top) if method else whole
                spent = time.perf_counter() - t0
                record[name] = phrases
                hits = [bool(stems(p, stop) & gold) for p in phrases[: args.top]]
                for scope in ("all", "sample") if row["id"] in sample else ("all",):
                    if scope == "all" and name in costly:
                        continue
                    t = tallies[(scope, name)]
                    t.chapters += 1
                    t.first += bool(hits and hits[0])
                    t.any3 += any(hits)
                    k = t.by_kind[ch.kind]
                    k[0], k[1], k[2] = k[0] + 1, k[1] + bool(hits and hits[0]), k[2] + any(hits)
                    t.seconds[row["id"]] += spent
            examples.append(record)
    print(f"import keybert: {keybert.import_s:.1f} s; E5 load: {keybert.load_s:.1f} s"
          f" ({type(keybert.e5).__name__}); sample: {len(sample)} entries\n")  # fmt: skip
    for scope in ("sample", "all"):
        print(f"| {scope} | chapters | top-1 matches | any of top-{args.top} | lecture / podcast /"
              " talk (any) | s per recording (mean, max) |")  # fmt: skip
        print("|---|---:|---:|---:|---|---|")
        for (sc, name), t in tallies.items():
            if sc != scope:
                continue
            kinds = " / ".join(
                f"{t.by_kind[k][2] / t.by_kind[k][0]:.2f}" if t.by_kind[k][0] else "-"
                for k in ("lecture", "podcast", "talk")
            )
            secs = list(t.seconds.values())
            print(f"| {name} | {t.chapters} | {t.first / t.chapters:.3f} | "
                  f"{t.any3 / t.chapters:.3f} | {kinds} | {statistics.mean(secs):.2f}, "
                  f"{max(secs):.2f} |")  # fmt: skip
        print()
    if args.examples:
        args.examples.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n"
                                         for e in examples))  # fmt: skip


if __name__ == "__main__":
    main()
