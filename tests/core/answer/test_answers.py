"""Prompt building, context budget, merging and citations, with a fake generator."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from lecturetui.core.answer.budget import PromptBudget, plan_prompt
from lecturetui.core.answer.prompting import merge_hits
from lecturetui.core.citing import cited_numbers
from lecturetui.core.errors import LectureTuiError
from lecturetui.core.lectures import Lecture, StoredSegment
from lecturetui.core.library import Hit, Library
from lecturetui.core.paths import DataHome
from lecturetui.core.requests.words import QuestionSettings
from lecturetui.core.sentences import Window, joined_text
from tests.conftest import SEED_CORPUS
from tests.fakes import FakeGenerator, ask

SEED = {r["corpus_id"]: r for r in map(json.loads, SEED_CORPUS.read_text().splitlines())}
LEC = Lecture("aula-c", "Aula C", None, "pt", None, "https://youtu.be/xyz", "jsonl", 3600.0, "h")


def hit(
    rank: int,
    seg_id: int,
    start: float,
    end: float,
    text: str,
    score: float,
    lecture: Lecture = LEC,
) -> Hit:
    return Hit(
        rank, score, StoredSegment(seg_id, lecture.id, seg_id, start, end, text), lecture, None
    )


def test_joined_text_of_seed_windows_6702_6703() -> None:
    a, b = SEED[6702]["text"], SEED[6703]["text"]
    joined = joined_text([Window(6702, 0.0, 134.0, a), Window(6703, 99.0, 233.0, b)])
    assert joined.startswith(a.split()[0]) and joined.endswith(b.split()[-1])
    # the 35 s both windows share appear once
    shared = "multiplicação de matriz e vetor feita num passo de tempo"
    assert a.count(shared) == 1 and b.count(shared) == 1 and joined.count(shared) == 1
    assert len(joined.split()) < len(a.split()) + len(b.split()) - 50


def test_merge_overlapping_hits_of_one_lecture() -> None:
    other = Lecture("aula-f", "Aula F", None, "pt", None, None, "jsonl", 3600.0, "h2")
    hits = [
        hit(1, 2, 2629, 2766, SEED[6703]["text"], 0.89),
        hit(2, 9, 100, 200, "outra aula", 0.88, other),
        hit(3, 1, 2530, 2666, SEED[6702]["text"], 0.87),
        hit(4, 5, 3000, 3100, "mais tarde na mesma aula", 0.86),
    ]
    passages = merge_hits(hits)
    assert [p.number for p in passages] == [1, 2, 3]
    first = passages[0]
    assert (first.start, first.end, first.score) == (2530, 2766, 0.89)
    assert first.segment_ids == [1, 2]
    assert first.text.count("feita num passo de tempo") == 1
    assert first.url == "https://youtu.be/xyz?t=2530"
    assert passages[2].segment_ids == [5]  # same lecture, not overlapping: its own passage


def test_budget_drops_lowest_scored_first() -> None:
    hits = [
        hit(i + 1, i + 1, i * 1000, i * 1000 + 100, f"palavra{i} " * 100, 0.9 - i * 0.01)
        for i in range(6)
    ]
    gen = FakeGenerator(n_ctx=720)
    plan = plan_prompt(
        "pergunta?", merge_hits(hits), [], PromptBudget(gen.n_ctx, 100),
        gen.count_prompt_tokens, gen.count_tokens,
    )  # fmt: skip
    kept, messages = plan.passages, plan.messages
    assert [p.segment_ids[0] for p in kept] == [1, 2, 3] and not plan.trimmed
    assert gen.count_prompt_tokens(messages) + 100 <= gen.n_ctx
    assert "Excerpt [3] (Aula C" in messages[-1]["content"] and "[4]" not in messages[-1]["content"]


def test_question_too_long_is_one_sentence() -> None:
    gen = FakeGenerator(n_ctx=720)
    with pytest.raises(LectureTuiError, match="too long for the answer model's context"):
        plan_prompt("muito " * 700, [], [], PromptBudget(gen.n_ctx, 100),
                    gen.count_prompt_tokens, gen.count_tokens)  # fmt: skip


def test_citation_parsing() -> None:
    text = "A GPU [2]. Também [1, 3] e [3][4]; não [9] nem [0] nem [x]."
    assert cited_numbers(text, limit=4) == [2, 1, 3, 4]


@pytest.fixture
def library(seed_library: Library) -> Library:
    return seed_library


def test_ask_streams_and_resolves_citations(library: Library) -> None:
    gen = FakeGenerator("Prioriza a GPU [1]. Ver também [2].")
    pieces: list[str] = []
    answer = ask(
        library, gen, "tensor Flow prioriza GPU", QuestionSettings(k=5), on_token=pieces.append
    )
    # the answer opens with the lecturer's words, then what the model streamed
    assert answer.quote is not None and answer.text.startswith(f"“{answer.quote.text}”")
    assert answer.text.endswith("".join(pieces).strip()) and answer.explanation in answer.text
    assert len(pieces) > 3  # streamed, not one block
    assert answer.cited == [1, 2]
    assert answer.citations[0] is answer.passages[0]
    prompt = gen.prompts[0][-1]["content"]
    assert prompt.startswith("Lecture excerpts:") and "Question: tensor Flow prioriza GPU" in prompt
    assert "the language of the question" in prompt  # the final instruction names it
    data = answer.to_json()
    assert {"question", "answer", "quote", "explanation", "citations", "hits", "timings"} <= set(
        data
    )
    assert data["quote"]["text"] == answer.quote.text and data["abstained"] is False
    assert {"retrieval_ms", "time_to_first_token_ms", "tokens_per_s"} <= set(data["timings"])
    assert {"lecture", "start_s", "end_s", "score", "text", "url", "corpus_ids"} <= set(
        data["citations"][0]
    )


def test_stop_ends_generation_between_tokens(library: Library) -> None:
    gen = FakeGenerator(" ".join(["palavra"] * 200))
    stop = threading.Event()
    seen: list[str] = []

    def on_token(piece: str) -> None:
        seen.append(piece)
        if len(seen) == 5:
            stop.set()

    answer = ask(library, gen, "gpu", on_token=on_token, stop=stop)
    assert answer.stopped and len(seen) == 5 and answer.explanation.split() == ["palavra"] * 5


@pytest.mark.slow
def test_uncited_answer_gets_similarity_citations(home: Path, e5) -> None:  # type: ignore[no-untyped-def]
    library = Library(DataHome.resolve(), embedder=e5)
    library.ingest([SEED_CORPUS])
    gen = FakeGenerator(
        "O tensor Flow sempre vai priorizar GPU nas operações de álgebra. Zebras listradas correm."
    )
    answer = ask(library, gen, "tensor Flow prioriza GPU", QuestionSettings(k=5))
    assert answer.citation_source == "similarity"
    assert answer.cited and "[" in answer.explanation.split(".")[0]
    n = cited_numbers(answer.explanation, len(answer.passages))[0]
    assert "prioriza" in answer.passages[n - 1].text
    assert answer.explanation.endswith("Zebras listradas correm.")  # unsupported: left uncited


def test_model_citations_are_kept_as_written(library: Library) -> None:
    answer = ask(
        library,
        FakeGenerator("Na placa de vídeo [2]."),
        "tensor Flow prioriza GPU",
        QuestionSettings(k=5),
    )
    assert (answer.citation_source, answer.explanation) == ("model", "Na placa de vídeo [2].")
    assert answer.cited == [1, 2]  # the quote is [1]
