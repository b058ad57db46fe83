"""What an answer's prompt holds: whole passages when the model reads fast enough, else sentences.

The model reads a prompt at a measured speed (core/answer/prompt_speed.py); the fixed start of the
prompt is already in its cache. When at least MIN_WHOLE_PASSAGES whole passages can be read
within the time budget (a GPU, a fast model) they are given whole. Otherwise (a laptop CPU) the
prompt is made of sentences: the quote the answer opens with and the sentences around it in its
window, then the best sentence of each next window with its better neighbour, within
SENTENCE_ROOM tokens. That size
does not follow the measured speed, so the same question gets the same prompt, and the first
token comes within about 5 s on 2 cores with the default model (bench/RESULTS.md).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from lecturetui.core.answer.evidence import ScoredPassage
from lecturetui.core.answer.prompting import Passage, messages_for
from lecturetui.core.answer.quote import Quote
from lecturetui.core.conversation import Exchange
from lecturetui.core.errors import LectureTuiError
from lecturetui.core.i18n import _
from lecturetui.core.links import deep_link

Messages = list[dict[str, str]]

#: share of the measured speed counted on (the first token also waits for one decoding step,
#: and the measurement is of an idle model)
SAFETY = 0.85
#: whole passages are given when at least this many fit (else trimmed ones hold more evidence)
MIN_WHOLE_PASSAGES = 3
#: the last exchange of a follow-up takes at most this share of the tokens there is time for
PREVIOUS_SHARE = 1 / 3
GAP = " … "
#: what a prompt of sentences holds past its fixed start and the question, in tokens: the
#: quote with its neighbours and the next windows' best sentences (bench/RESULTS.md, "The
#: moment that answers": coverage and first token measured together, 200 / 260 / 320)
SENTENCE_ROOM = 260
#: the share of SENTENCE_ROOM that the best-ranked window's sentences around the quote may take
#: before the next windows' best sentences are added (the best-ranked window holds the answer
#: most often: bench/RESULTS.md)
TOP_SHARE = 0.7


@dataclass(frozen=True, slots=True)
class PromptBudget:
    """The most prompt tokens an answer may have."""

    n_ctx: int
    answer_tokens: int  # kept free in the context for the answer
    cached_tokens: int = 0  # the fixed start of every prompt, already read by the model
    read_tokens: int | None = None  # what the model reads in the time budget (None: no limit)

    @classmethod
    def for_time(
        cls,
        n_ctx: int,
        answer_tokens: int,
        cached_tokens: int,
        tokens_per_s: float | None,
        seconds: float | None,
    ) -> PromptBudget:
        """The budget for a first token within `seconds` (None, or no measured speed: only the
        context window limits it)."""
        if not tokens_per_s or seconds is None:
            return cls(n_ctx, answer_tokens, cached_tokens)
        read = int(tokens_per_s * max(seconds, 0.0) * SAFETY)
        return cls(n_ctx, answer_tokens, cached_tokens, read)

    @property
    def limit(self) -> int:
        window = self.n_ctx - self.answer_tokens
        if self.read_tokens is None:
            return window
        return min(window, self.cached_tokens + self.read_tokens)


@dataclass(frozen=True, slots=True)
class PromptPlan:
    messages: Messages
    passages: list[Passage]  # as numbered in the prompt
    prompt_tokens: int
    limit: int
    trimmed: bool  # passages cut down to their best sentences


def plan_prompt(
    question: str,
    passages: Sequence[Passage],
    scored: Sequence[ScoredPassage],
    budget: PromptBudget,
    count_prompt_tokens: Callable[[Messages], int],
    count_tokens: Callable[[str], int],
    language: str | None = None,
    previous: Exchange | None = None,
    quote: Quote | None = None,
) -> PromptPlan:
    """The prompt for `question` within `budget`: whole passages when enough fit, else the best
    sentences of the scored ones. A question too long for the context is refused in one sentence."""
    words = _previous_words(question, language, previous, budget, count_prompt_tokens)

    def build(ps: Sequence[Passage]) -> tuple[Messages, list[Passage], int]:
        numbered = [renumbered(p, n) for n, p in enumerate(ps, start=1)]
        messages = messages_for(question, numbered, language, previous, words)
        return messages, numbered, count_prompt_tokens(messages)

    messages, _numbered, base = build([])
    window = budget.n_ctx - budget.answer_tokens
    if base > window:
        raise LectureTuiError(
            _(
                "The question is too long for the answer model's context ({tokens} tokens of a"
                " {n_ctx}-token window, {answer_tokens} of them kept for the answer)."
            ).format(tokens=base, n_ctx=budget.n_ctx, answer_tokens=budget.answer_tokens),
            hint=_("ask a shorter question, or raise --ctx"),
        )
    limit = budget.limit
    kept = list(passages)
    while kept:
        messages, numbered, used = build(kept)
        if used <= limit:
            break
        kept.pop()
    whole = kept and (len(kept) == len(passages) or len(kept) >= MIN_WHOLE_PASSAGES)
    if whole or not scored:
        if not kept:
            messages, numbered, used = build([])
        return PromptPlan(messages, numbered, used, limit, False)
    # too slow for whole passages: the quote with its neighbours and the next windows' best
    # sentences, a fixed size whatever the measured speed (the same question, the same prompt)
    limit = min(window, base + SENTENCE_ROOM)
    units = _sentence_units(scored, quote, SENTENCE_ROOM, count_tokens)
    while True:
        messages, numbered, used = build(_trimmed(scored, units))
        if used <= limit or len(units) <= 1:
            return PromptPlan(messages, numbered, used, limit, True)
        units.pop()


def _previous_words(
    question: str,
    language: str | None,
    previous: Exchange | None,
    budget: PromptBudget,
    count: Callable[[Messages], int],
) -> int | None:
    """How much of the previous answer a follow-up's prompt keeps (None: all of it)."""
    if previous is None:
        return None
    alone = count(messages_for(question, [], language))
    share = (budget.limit - budget.cached_tokens) * PREVIOUS_SHARE
    for words in (None, 80, 40):
        if count(messages_for(question, [], language, previous, words)) - alone <= share:
            return words
    return 15


Unit = tuple[int, frozenset[int]]  # (scored passage index, sentence indices)
#: what an excerpt's header costs, about ("Excerpt [1] (Lecture title, 00:00:00–00:00:00):")
HEADER_TOKENS = 24


def _sentence_units(
    scored: Sequence[ScoredPassage],
    quote: Quote | None,
    room: int,
    count_tokens: Callable[[str], int],
) -> list[Unit]:
    """The quote's sentences and, around them, more of the best-ranked window (the neighbour that
    scores higher first) within TOP_SHARE of `room`; then each next window's best sentence with
    its better neighbour, else alone, while they fit; then more of the first window with what is
    left."""
    if not scored or not scored[0].sentences:
        return []
    top = scored[0]
    n = len(top.sentences)
    if quote is not None and quote.sentences and max(quote.sentences) < n:
        picked = set(quote.sentences)
    else:
        picked = {max(range(n), key=lambda i: top.scores[i])}

    def size(sp: ScoredPassage, i: int) -> int:
        return count_tokens(sp.sentences[i].text) + 1

    gap = count_tokens(GAP)
    runs = sum(1 for i in picked if i - 1 not in picked)
    used = HEADER_TOKENS + sum(size(top, i) for i in picked) + gap * (runs - 1)

    def in_top(i: int) -> int:
        return size(top, i)

    used = top.grow(picked, in_top, used, int(room * TOP_SHARE))
    others: list[Unit] = []
    for k in range(1, len(scored)):
        sp = scored[k]
        if not sp.sentences:
            continue
        i = max(range(len(sp.sentences)), key=lambda j: sp.scores[j])
        around = [j for j in (i - 1, i + 1) if 0 <= j < len(sp.sentences)]
        options = [{i, max(around, key=lambda j: sp.scores[j])}] if around else []
        options.append({i})
        for option in options:
            cost = sum(size(sp, j) for j in option) + gap + HEADER_TOKENS
            if used + cost <= room:
                used += cost
                others.append((k, frozenset(option)))
                break
    top.grow(picked, in_top, used, room)
    return [(0, frozenset(picked)), *others]


def _trimmed(scored: Sequence[ScoredPassage], units: Sequence[Unit]) -> list[Passage]:
    """The passages cut down to the chosen sentences, the one with the best sentence first."""
    picked: dict[int, set[int]] = {}
    for k, indices in units:
        picked.setdefault(k, set()).update(indices)
    order = sorted(picked)  # in retrieval order: the best-ranked passage is [1]
    out: list[Passage] = []
    for k in order:
        sp = scored[k]
        idx = sorted(picked[k])
        runs: list[list[int]] = []
        for i in idx:
            if runs and runs[-1][-1] == i - 1:
                runs[-1].append(i)
            else:
                runs.append([i])
        text = GAP.join(" ".join(sp.sentences[i].text for i in run) for run in runs)
        if idx[0] > 0:
            text = "… " + text
        if idx[-1] < len(sp.sentences) - 1:
            text += " …"
        p = sp.passage
        start = sp.time_at(sp.sentences[idx[0]].first)
        end = sp.time_at(sp.sentences[idx[-1]].last)
        link = deep_link(p.source_url, start)
        trimmed = Passage(
            0, p.lecture_id, p.lecture_title, start, end, text, p.score, link, p.source_url, p.hits
        )
        out.append(trimmed)
    return out


def renumbered(p: Passage, n: int) -> Passage:
    return Passage(
        n,
        p.lecture_id,
        p.lecture_title,
        p.start,
        p.end,
        p.text,
        p.score,
        p.url,
        p.source_url,
        p.hits,
    )
