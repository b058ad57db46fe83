"""Whether the quoted moment is in doubt, and the other moment to show beside it.

Most wrong answers quote the wrong moment: a window where a word of the question appears in
another sense, ranked just above the one that answers. What gives them away best is how close
the re-ranker puts the first two moments (EmbeddingGemma's cosines of their best windows):
within DOUBT_MARGIN the answer says it is not sure and shows both moments, the lecturer's words
and the time of each, instead of an explanation written with confidence from the first
(bench/RESULTS.md, "The quoted moment in doubt").

The answer model looks closer (`settle`): up to CHECK_MARGIN it reads each of the two quotes
with the question and says how likely each answers it; the first stands when the model finds
it at least CHECK_LEAD likelier than the second. That reads about 450 tokens: a few hundredths
of a second on a GPU, where it is done before the quote is shown, and about 4 s on a 2-core CPU,
where the quote is shown first and the check runs before the explanation (an answer found in
doubt then ends there, without the explanation's 10-15 s). `LECTURETUI_CHECK_MOMENTS=0` turns
it off (the margin alone decides). The model's preference is not used to quote the second
moment instead: it does not pick the right one more often than the ranking does.

A question the lectures cover can score just under the coverage threshold when its words differ
from the lecturer's. One whose best window scores within NEAR_BAND under it (and that names
nothing the lectures never mention) is not refused before the answer model has read its two
best moments the same way (`just_under`, unsure.rescued): when it finds either likely to answer
(NEAR_YES), the answer shows both, unsure, instead of refusing.

Without EmbeddingGemma (E5 alone) there is no doubt to tell: E5's cosines are too compressed
for a margin to mean anything.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from lecturetui.core.answer.prompting import Passage
from lecturetui.core.answer.quote import Quote
from lecturetui.core.timefmt import format_timestamp

#: the first two moments' re-ranking scores within this of each other: the quote is in doubt
#: (chosen on the tune half: 10% of right moments and 26% of wrong ones are marked)
DOUBT_MARGIN = 0.01
#: ... and within this, the answer model looks closer where it checks (`settle`) ...
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

#: the answer model's likelihood (0-1) that a quote answers a question
MomentCheck = Callable[[str, Quote], float]


@dataclass(frozen=True, slots=True)
class Doubt:
    """What is known of the quoted moment's doubt."""

    unsure: bool
    margin: float | None  # the first moment's re-ranking score minus the second's
    other: Quote | None = None  # the second moment, shown beside the first when unsure
    #: the answer model's likelihood that each quote answers (first, second), when it was asked
    checked: tuple[float, float] | None = None
    #: the answer model checks it once the quote is on screen (a CPU): nothing is known yet
    pending: bool = False


SURE = Doubt(False, None)
#: what the quote is shown with while the answer model is still to check it
PENDING = Doubt(False, None, pending=True)


def margin(passages: list[Passage]) -> float | None:
    """The first passage's score minus the second's (None with fewer than two)."""
    if len(passages) < 2:
        return None
    return passages[0].score - passages[1].score


def in_doubt(passages: list[Passage], reranked: bool) -> bool:
    """Whether the first two moments are close enough to be looked at again (`settle`)."""
    gap = margin(passages)
    return reranked and gap is not None and gap <= max(DOUBT_MARGIN, CHECK_MARGIN)


def just_under(
    relevance: float | None, threshold: float, unknown: list[str], passages: list[Passage]
) -> bool:
    """Whether a question refused at `threshold` is close enough under it to be read again by
    the answer model (it names nothing the lectures never mention, and has two moments)."""
    return (
        relevance is not None
        and threshold - NEAR_BAND <= relevance < threshold
        and not unknown
        and len(passages) >= 2
    )


def settle(
    question: str, first: Quote, other: Quote, gap: float, check: MomentCheck | None
) -> Doubt:
    """The doubt over two close moments: by their margin alone, or by the answer model."""
    if check is None or gap > CHECK_MARGIN:
        unsure = gap <= DOUBT_MARGIN
        return Doubt(unsure, gap, other if unsure else None)
    scores = (check(question, first), check(question, other))
    unsure = scores[0] - scores[1] < CHECK_LEAD
    return Doubt(unsure, gap, other if unsure else None, scores)


CHECK_SYSTEM = (
    "You check whether a moment of a recorded lecture answers a student's question. "
    "Reply yes or no."
)


def check_messages(question: str, quote: Quote) -> list[dict[str, str]]:
    """The answer model's prompt for one moment (the same for every language: the question and
    the lecturer's words are as they are)."""
    user = (
        f"Question: {question}\n\n"
        f"Moment ({quote.lecture_title}, {format_timestamp(quote.start)}):\n“{quote.text}”\n\n"
        "Does this moment answer the question? Reply yes or no."
    )
    return [{"role": "system", "content": CHECK_SYSTEM}, {"role": "user", "content": user}]


@runtime_checkable
class YesModel(Protocol):
    """A model that can say how likely its reply starts with yes (LlamaGenerator; not a model
    server, which gives no logits)."""

    def yes_probability(self, messages: list[dict[str, str]]) -> float: ...


def model_check(model: YesModel) -> MomentCheck:
    """A MomentCheck by the answer model."""

    def check(question: str, quote: Quote) -> float:
        return model.yes_probability(check_messages(question, quote))

    return check


def check_wanted() -> bool:
    """Whether the answer model settles doubts (on unless LECTURETUI_CHECK_MOMENTS is off)."""
    env = os.environ.get("LECTURETUI_CHECK_MOMENTS", "").strip().lower()
    return env not in ("0", "off", "false", "no")
