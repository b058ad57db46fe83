"""How much of the passages an answer's prompt holds: the context window and the time budget.

The model reads a prompt at a measured speed (llmspeed.py); the fixed start of the prompt is
already in its cache. So the first token comes within `seconds` when the rest of the prompt is at
most speed × seconds tokens. When whole passages fit (a GPU, a fast model) they are given whole;
else the best-ranked passage is given whole and the others are cut down to their best
sentences, each with its neighbours for context, until the budget is spent.

The time budget is a goal, never a reason to answer from the wrong passage: however slow the
machine, the prompt holds at least the floor (`FLOOR_TOP_TOKENS` of the best-ranked passage and
`FLOOR_NEXT_TOKENS` of the next ones' best sentences); the first token then comes later.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from lecturetui.core.answer.evidence import ScoredPassage
from lecturetui.core.answer.prompting import Passage, messages_for
from lecturetui.core.conversation import Exchange
from lecturetui.core.errors import LectureTuiError
from lecturetui.core.links import deep_link

Messages = list[dict[str, str]]

#: share of the measured speed counted on (the first token also waits for one decoding step,
#: and the measurement is of an idle model)
SAFETY = 0.85
#: whole passages are given when at least this many fit (else trimmed ones hold more evidence)
MIN_WHOLE_PASSAGES = 3
#: sentences this far below the best one (E5 cosine) are not worth their reading time
SCORE_SPAN = 0.05
#: the last exchange of a follow-up takes at most this share of the tokens there is time for
PREVIOUS_SHARE = 1 / 3
GAP = " … "
#: the floor of every prompt: the best-ranked passage whole, up to this many tokens (else its
#: best sentences within them; a two-minute window is about 450 tokens) ...
FLOOR_TOP_TOKENS = 300
#: ... and this many tokens of the next passages' best sentences
FLOOR_NEXT_TOKENS = 120


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
) -> PromptPlan:
    """The prompt for `question` within `budget`: whole passages when enough fit, else the best
    sentences of the scored ones. A question too long for the context is refused in one sentence."""
    words = _previous_words(question, language, previous, budget, count_prompt_tokens)

    def build(ps: Sequence[Passage]) -> tuple[Messages, list[Passage], int]:
        numbered = [renumbered(p, n) for n, p in enumerate(ps, start=1)]
        messages = messages_for(question, numbered, language, previous, words)
        return messages, numbered, count_prompt_tokens(messages)

    messages, _, base = build([])
    window = budget.n_ctx - budget.answer_tokens
    if base > window:
        raise LectureTuiError(
            f"The question is too long for the answer model's context ({base} tokens of a"
            f" {budget.n_ctx}-token window, {budget.answer_tokens} of them kept for the answer).",
            hint="ask a shorter question, or raise --ctx",
        )
    limit = budget.limit
    if passages:  # the floor holds however slow the machine is
        top = min(count_tokens(passages[0].text) + HEADER_TOKENS, FLOOR_TOP_TOKENS)
        next_room = FLOOR_NEXT_TOKENS if len(passages) > 1 else 0
        limit = min(window, max(limit, base + top + next_room))
    kept = list(passages)
    while kept:
        messages, numbered, used = build(kept)
        if used <= limit:
            break
        kept.pop()
    if kept and (len(kept) == len(passages) or len(kept) >= MIN_WHOLE_PASSAGES or not scored):
        return PromptPlan(messages, numbered, used, limit, False)
    if not scored:
        messages, numbered, used = build([])
        return PromptPlan(messages, numbered, used, limit, False)
    units = _choose_sentences(scored, limit - base, count_tokens)
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


def _choose_sentences(
    scored: Sequence[ScoredPassage], room: int, count_tokens: Callable[[str], int]
) -> list[Unit]:
    """The best-ranked passage whole (or, when it is longer than the floor allows, its best
    sentences within that), then greedy over the other passages: the best sentences first,
    each with both neighbours, else the better one, else alone, while they fit in `room`
    tokens."""
    sizes: dict[tuple[int, int], int] = {}

    def size(k: int, i: int) -> int:
        if (k, i) not in sizes:
            sizes[(k, i)] = count_tokens(scored[k].sentences[i].text) + 1
        return sizes[(k, i)]

    if not scored or not scored[0].sentences:
        return []
    chosen: dict[int, set[int]] = {}
    units: list[Unit] = []
    gap = count_tokens(GAP)
    top = scored[0]
    whole = sum(size(0, i) for i in range(len(top.sentences))) + HEADER_TOKENS
    if whole <= min(room, FLOOR_TOP_TOKENS):
        chosen[0] = set(range(len(top.sentences)))
        units.append((0, frozenset(chosen[0])))
        room -= whole
    else:  # longer than the floor: its best sentences within it
        top_room = min(room, FLOOR_TOP_TOKENS)
        left = _greedy(scored, [0], top_room, chosen, units, size, gap)
        room -= top_room - left
    _greedy(scored, range(1, len(scored)), room, chosen, units, size, gap)
    return units


def _greedy(
    scored: Sequence[ScoredPassage],
    passages: Iterable[int],
    room: int,
    chosen: dict[int, set[int]],
    units: list[Unit],
    size: Callable[[int, int], int],
    gap: int,
) -> int:
    """Add the best sentences of these passages to `units`, each with both neighbours, else
    the better one, else alone, while they fit in `room` (at least one sentence when `units`
    is empty); sentences more than SCORE_SPAN below the best are not worth their reading time.
    Returns the room left."""
    ranked = sorted(
        ((scored[k].scores[i], k, i) for k in passages for i in range(len(scored[k].sentences))),
        key=lambda t: -t[0],
    )
    if not ranked:
        return room
    best = ranked[0][0]
    for score, k, i in ranked:
        if score < best - SCORE_SPAN:
            break
        have = chosen.get(k, set())
        if i in have:
            continue
        sp = scored[k]
        around = [j for j in (i - 1, i + 1) if 0 <= j < len(sp.sentences)]
        options = [{i, *around}]
        if len(around) == 2:
            options.append({i, max(around, key=lambda j: sp.scores[j])})
        options.append({i})
        for option in options:
            new = option - have
            cost = sum(size(k, j) for j in new) + gap + (0 if have else HEADER_TOKENS)
            if cost <= room or not units:
                room -= cost
                chosen.setdefault(k, set()).update(new)
                units.append((k, frozenset(new)))
                break
    return room


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
        trimmed = Passage(0, p.lecture_id, p.lecture_title, start, end, text, p.score, link,
                          p.source_url, p.hits)  # fmt: skip
        out.append(trimmed)
    return out


def renumbered(p: Passage, n: int) -> Passage:
    return Passage(n, p.lecture_id, p.lecture_title, p.start, p.end, p.text, p.score, p.url,
                   p.source_url, p.hits)  # fmt: skip
