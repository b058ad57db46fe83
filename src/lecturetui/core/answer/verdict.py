"""Why a question is explained, refused or answered with two moments in doubt: decided here, from
what retrieval measured (`Signals`), then again once the answer model has read two moments
(`read`) or written its explanation (`explained`). The pipeline (core/answer/question.py) acts
on the verdict; every face shows it through the events (core/answer/events.py).

    not covered ── just under the threshold, two moments ── ReadFirst(near) ── Unsure | Refuse
                └─ otherwise ─────────────────────────────────────────────── Refuse
    covered ────── the first two moments close ─────────── ReadFirst(close) ── Explain | Unsure
                └─ otherwise ─── Explain ── the explanation borne out? ──────── Explain | Refuse

Before any of it, the front door (core/requests/door.py, `route`) answers a question that asks for a
lecture's summary ("resuma a aula 3") or what a course covers with the summary or a line per
lecture instead; neither is searched, and neither comes here.

Covered: EmbeddingGemma's cosine of the question (or its translation) to the best-ranked window
reaches COVERAGE_THRESHOLD (OTHER_LANGUAGE_THRESHOLD across languages, UNKNOWN_NAME_THRESHOLD
when the question names something the lectures never mention); without EmbeddingGemma it cannot
be told, and every question counts as covered (bench/RESULTS.md, "Abstention").

Close: most wrong answers quote the wrong moment, a window where a word of the question appears
in another sense, ranked just above the one that answers; what gives them away best is how close
the re-ranker puts the first two moments. Within DOUBT_MARGIN the answer says it is not sure and
shows both; up to CHECK_MARGIN the answer model reads each with the question (core/answer/
doubt.py) and the first stands when the model finds it at least CHECK_LEAD likelier to answer
than the second (bench/RESULTS.md, "The quoted moment in doubt"). Its preference is not used to
quote the second moment instead: it does not pick the right one more often than the ranking.

Just under: a question the lectures cover can score under the threshold when its words differ
from the lecturer's. One whose best window is within NEAR_BAND under it (and that names nothing
the lectures never mention) is refused only after the answer model has read its two best moments
the same way: when it finds either at least NEAR_YES likely to answer, both are shown, unsure
(bench/RESULTS.md, "Refused less wrongly").

Explained: the model read the excerpts and said they do not answer, or wrote what they do not
say over a weak best window (core/answer/grounding.py): refused after all.

Where the model reads the moments is the pipeline's choice: before anything is shown on a GPU
(a few hundredths of a second), after the quote is on screen on a CPU (about 4 s). Without the
model's logits (a model server) or with the check turned off, the margin alone decides a close
pair and a question just under the threshold is refused.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

from lecturetui.core.answer.doubt import MomentCheck
from lecturetui.core.answer.quote import Quote

#: below this EmbeddingGemma cosine between the question and the best-ranked window, the
#: lectures are taken not to cover the question (chosen on the answer benchmark: RESULTS.md) ...
COVERAGE_THRESHOLD = 0.35
#: ... and below this one for a question in another language than the lectures' (a question
#: and a passage in two languages score lower together)
OTHER_LANGUAGE_THRESHOLD = 0.30
#: ... or below this one when the question names something the lectures never mention (a name
#: or code identifier: quote.names_unknown): the questions near the course's topics that it does
#: not cover (Django, DataFrame, __enter__ next to lectures on databases, files and classes)
#: score like covered ones, and their names are what gives them away (bench/RESULTS.md)
UNKNOWN_NAME_THRESHOLD = 0.45

#: the first two moments' re-ranking scores within this of each other: the quote is in doubt
#: (chosen on the tune half: 10% of right moments and 26% of wrong ones are marked)
DOUBT_MARGIN = 0.01
#: ... and within this, the answer model looks closer where it checks ...
CHECK_MARGIN = 0.02
#: ... keeping the first moment when it finds it at least this much likelier to answer than
#: the second (tune half: 5% of right moments and 29% of wrong ones are marked)
CHECK_LEAD = 0.0

#: a question whose best window scores this little under the coverage threshold is read by the
#: answer model before it is refused ... (tune half: every false abstention was within 0.05)
NEAR_BAND = 0.05
#: ... and answered, unsure, with its two best moments when the model finds either at least this
#: likely to answer (tune half: 8 of 9 false abstentions answered, 1 of 20 refused uncovered
#: questions let through; bench/RESULTS.md, "Refused less wrongly")
NEAR_YES = 0.5


@dataclass(frozen=True, slots=True)
class Signals:
    """What retrieval measured that the verdict rests on."""

    #: the relevance model's cosine of the question (or its translation, when higher) to the
    #: best-ranked window; None without EmbeddingGemma, whose absence tells nothing
    relevance: float | None
    threshold: float  # the coverage threshold for the question's language (`threshold_for`)
    unknown: tuple[str, ...] = ()  # the names it uses that no lecture mentions
    margin: float | None = None  # the first moment's re-ranking score minus the second's
    reranked: bool = False  # EmbeddingGemma re-ranked the moments (their margin means something)
    moments: int = 0  # how many moments (merged passages) were found

    @property
    def covered(self) -> bool:
        limit = max(self.threshold, UNKNOWN_NAME_THRESHOLD) if self.unknown else self.threshold
        return self.relevance is None or self.relevance >= limit

    @property
    def close(self) -> bool:
        """The first two moments are close enough to be looked at again."""
        gap = self.margin
        return self.reranked and gap is not None and gap <= max(DOUBT_MARGIN, CHECK_MARGIN)

    @property
    def just_under(self) -> bool:
        """Refused, but close enough under the threshold to be read by the answer model first."""
        return (
            self.reranked
            and self.relevance is not None
            and self.threshold - NEAR_BAND <= self.relevance < self.threshold
            and not self.unknown
            and self.moments >= 2
        )

    @property
    def moments_quoted(self) -> int:
        """How many moments retrieval quotes for the verdict: two when they may be shown or read
        together, else the first (none when nothing was found)."""
        if self.moments == 0:
            return 0
        two = (self.covered and self.close) or (not self.covered and self.just_under)
        return 2 if two else 1


def threshold_for(same_language: bool) -> float:
    """The relevance under which a question counts as not covered."""
    return COVERAGE_THRESHOLD if same_language else OTHER_LANGUAGE_THRESHOLD


class Why(Enum):
    """Why a question is refused."""

    NOT_COVERED = "not covered"  # the best window is under the threshold
    READ_UNLIKELY = "read, unlikely"  # just under it, and the model found neither moment answers
    SAYS_NOT_ANSWERED = "model: not answered"  # the model read the excerpts and said so
    NOT_BORNE_OUT = "not borne out"  # the explanation says what its excerpts do not


@dataclass(frozen=True, slots=True)
class Explain:
    """The lectures answer: the lecturer's words (None when no sentence could be chosen), then
    the model's explanation."""

    quote: Quote | None
    margin: float | None = None
    #: the model's likelihood that each of two close moments answers, when it read them
    checked: tuple[float, float] | None = None


@dataclass(frozen=True, slots=True)
class Unsure:
    """Two moments too close to tell apart: both shown, cited [1] and [2], neither explained."""

    first: Quote
    other: Quote
    margin: float | None = None
    checked: tuple[float, float] | None = None


@dataclass(frozen=True, slots=True)
class ReadFirst:
    """The answer model reads two moments before the verdict is final (`read`): two close
    moments (`near` False: the first is quoted meanwhile) or a question just under the coverage
    threshold (`near` True: nothing is quoted meanwhile)."""

    first: Quote
    other: Quote
    margin: float | None
    near: bool


@dataclass(frozen=True, slots=True)
class Refuse:
    """The lectures do not answer: one sentence, and the closest moments below it."""

    why: Why
    checked: tuple[float, float] | None = None


Verdict = Explain | Unsure | ReadFirst | Refuse


def first_verdict(signals: Signals, first: Quote | None, second: Quote | None) -> Verdict:
    """The verdict from retrieval alone, with the moments it quoted (`Signals.moments_quoted`)."""
    two = first is not None and second is not None
    if signals.covered:
        if two and signals.close:
            assert first is not None and second is not None
            return ReadFirst(first, second, signals.margin, near=False)
        return Explain(first, signals.margin)
    if two and signals.just_under:
        assert first is not None and second is not None
        return ReadFirst(first, second, signals.margin, near=True)
    return Refuse(Why.NOT_COVERED)


def read(verdict: ReadFirst, question: str, check: MomentCheck | None) -> Verdict:
    """The verdict once the answer model has read both moments (`check`; None: it cannot, and
    the margin alone decides a close pair while a question just under the threshold is
    refused)."""
    first, other, gap = verdict.first, verdict.other, verdict.margin
    if verdict.near:
        if check is None:
            return Refuse(Why.NOT_COVERED)
        likely = (check(question, first), check(question, other))
        if max(likely) < NEAR_YES:
            return Refuse(Why.READ_UNLIKELY, likely)
        return Unsure(first, other, gap, likely)
    if check is None or gap is None or gap > CHECK_MARGIN:
        if gap is not None and gap <= DOUBT_MARGIN:
            return Unsure(first, other, gap)
        return Explain(first, gap)
    scores = (check(question, first), check(question, other))
    if scores[0] - scores[1] < CHECK_LEAD:
        return Unsure(first, other, gap, scores)
    return Explain(first, gap, scores)


def explained(
    verdict: Explain, stopped: bool, says_not_answered: bool, ungrounded: Callable[[], bool]
) -> Explain | Refuse:
    """The verdict once the model has written its explanation: refused after all when it said
    the excerpts do not answer, or when what it wrote is not borne out over a weak best window
    (`ungrounded`, asked only when needed); a stopped answer keeps what was written."""
    if stopped:
        return verdict
    if says_not_answered:
        return Refuse(Why.SAYS_NOT_ANSWERED)
    if ungrounded():
        return Refuse(Why.NOT_BORNE_OUT)
    return verdict
