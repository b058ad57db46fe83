"""Scoring an answer by its key points, without a judge model.

A question file may give, per question, the 2-4 key points a correct answer must state, each with
its accepted wordings per language (`{"point": ..., "en": [...], "pt": [...]}`). A point counts as
stated when one of its wordings is found in the answer: every word of the wording, as a Snowball
stem with accents folded (core/lexical.py), within a few words of each other, in any order, and
not negated (a `not`/`não` just before or among them). Every
wording is tried in every language's stemming, so an answer in Portuguese that keeps an English
term still matches. This matcher was checked by hand against labelled answers
(bench/data/README.md, "Key points"): it is what `eval` reports as key-point coverage.

Citation precision: a cited excerpt is right when it overlaps a gold span of the question, or
states one of its key points itself.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from lecturetui.core.citing import cited_numbers
from lecturetui.core.evaluation.metrics import Gold
from lecturetui.core.i18n import _
from lecturetui.core.lexical import fold, stems, words

#: a wording's words may be spread over its own length plus this many other words
SLACK = 3
#: articles and prepositions a wording need not repeat word for word ("prioriza a GPU" is stated
#: by "prioriza as GPUs"); folded, as stems() returns them. `um`/`uma`/`un` are numerals too
#: ("muitos para um") and are kept.
_EN = "a an the of to in on at for by and or"
_PT = "o os as de da do das dos em no na nos nas ao aos para por e ou"
_ES = "el la los las del al en y"
FUNCTION_WORDS = frozenset(f"{_EN} {_PT} {_ES}".split())
#: a wording found right after one of these words (or among them) is negated there ("sort does
#: not change the list" does not state "sort changes the list"), unless the wording has one too
_NOT_EN = "not never cannot doesn don isn aren didn won wasn weren"  # `no` is Portuguese `in the`
_NOT_PT = "nao nunca nem jamais"
NEGATIONS = frozenset(f"{_NOT_EN} {_NOT_PT}".split())
NEGATION_REACH = 3


@dataclass(frozen=True, slots=True)
class KeyPoint:
    point: str  # what must be said, in a sentence
    wordings: Mapping[str, tuple[str, ...]]  # language code -> accepted wordings

    @classmethod
    def from_json(cls, data: object) -> KeyPoint:
        """`{"point": "...", "en": ["..."], "pt": ["..."]}`, or a bare string (its own wording)."""
        if isinstance(data, str):
            return cls(data, {"": (data,)})
        if not isinstance(data, dict) or not str(data.get("point") or "").strip():
            raise ValueError(_("a key point needs a 'point'"))
        wordings = {
            str(lang): tuple(str(w) for w in values if str(w).strip())
            for lang, values in data.items()
            if lang != "point" and isinstance(values, list)
        }
        if not any(wordings.values()):
            wordings = {"": (str(data["point"]),)}
        return cls(str(data["point"]), wordings)


@dataclass(frozen=True, slots=True)
class PointFound:
    point: str
    stated: bool
    wording: str | None  # the accepted wording found in the answer


@dataclass(frozen=True, slots=True)
class CitedExcerpt:
    """What an answer's [n] pointed at: where it is and what it says."""

    number: int
    lecture_names: tuple[str, ...]  # id and title: a gold span may name either
    start: float
    end: float
    text: str
    corpus_ids: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class KeyPointScore:
    coverage: float  # share of the key points stated
    points: tuple[PointFound, ...]
    citations: int  # distinct excerpts cited
    citation_precision: float | None  # None when nothing is cited
    words: int  # the answer's length

    @property
    def stated(self) -> int:
        return sum(p.stated for p in self.points)


def _stems(text: str, language: str) -> list[str]:
    """Snowball stems of the text with accents folded first (so `paralelização` and
    `paralelizacao` meet), and a plural `s` the stemmer keeps (`gpus`, `cpus`) dropped."""
    out = stems(fold(text), language or None)
    return [t[:-1] if len(t) > 3 and t.endswith("s") else t for t in out]


def _languages(points: Iterable[KeyPoint]) -> set[str]:
    langs = {lang for p in points for lang in p.wordings if lang}
    return langs or {"en"}


def _found(wording: str, text_stems: Mapping[str, list[str]], plain: Sequence[str]) -> bool:
    """Every word of `wording` within `len(wording) + SLACK` consecutive words of the text,
    in one of the stemmings of the text, and not negated there (`plain`: the text's words,
    accents folded, as the stems are aligned with them)."""
    negated_wording = bool(NEGATIONS & set(words(fold(wording))))
    for lang, tokens in text_stems.items():
        stemmed = _stems(wording, lang)
        need = {w for w in stemmed if w not in FUNCTION_WORDS} or set(stemmed)
        if not need:
            continue
        for lo, hi in _windows(tokens, need, len(need) + SLACK):
            if negated_wording or not NEGATIONS & set(plain[max(0, lo - NEGATION_REACH) : hi + 1]):
                return True
    return False


def _windows(tokens: Sequence[str], need: set[str], span: int) -> Iterator[tuple[int, int]]:
    """Each (first, last) position of `span` consecutive tokens that hold every token of
    `need`, ending at each position where one is complete."""
    last: dict[str, int] = {}
    for pos, tok in enumerate(tokens):
        if tok in need:
            last[tok] = pos
            if len(last) == len(need) and pos - min(last.values()) < span:
                yield min(last.values()), pos


@dataclass(frozen=True, slots=True)
class _Analysed:
    """A text as the matcher reads it: its stems in each language, and its folded words."""

    stems: Mapping[str, list[str]]
    plain: list[str]

    @classmethod
    def of(cls, text: str, languages: Iterable[str]) -> _Analysed:
        return cls({lang: _stems(text, lang) for lang in languages}, words(fold(text)))

    def states(self, point: KeyPoint) -> PointFound:
        for wordings in point.wordings.values():
            for wording in wordings:
                if _found(wording, self.stems, self.plain):
                    return PointFound(point.point, True, wording)
        return PointFound(point.point, False, None)


def stated(text: str, point: KeyPoint, languages: Iterable[str]) -> PointFound:
    """Whether `text` states `point` (and by which accepted wording)."""
    return _Analysed.of(text, languages).states(point)


def score_answer(
    answer: str,
    points: Sequence[KeyPoint],
    excerpts: Sequence[CitedExcerpt] = (),
    gold: Gold | None = None,
) -> KeyPointScore:
    """Key-point coverage, citation precision and length of one answer."""
    languages = _languages(points) | {""}
    analysed = _Analysed.of(answer, languages)  # once, for every point
    found = tuple(analysed.states(p) for p in points)
    coverage = sum(f.stated for f in found) / len(found) if found else 0.0
    by_number = {e.number: e for e in excerpts}
    cited = [
        by_number[n] for n in cited_numbers(answer, max(by_number, default=0)) if n in by_number
    ]
    precision = None
    if cited:
        right = sum(_supports(e, points, languages, gold) for e in cited)
        precision = right / len(cited)
    return KeyPointScore(coverage, found, len(cited), precision, len(answer.split()))


def _supports(
    excerpt: CitedExcerpt, points: Sequence[KeyPoint], languages: set[str], gold: Gold | None
) -> bool:
    if gold is not None:
        if any(c in gold.corpus_ids for c in excerpt.corpus_ids):
            return True
        if gold.matches(None, excerpt.lecture_names, excerpt.start, excerpt.end):
            return True
    analysed = _Analysed.of(excerpt.text, languages)
    return any(analysed.states(p).stated for p in points)
