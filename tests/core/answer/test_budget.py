"""Sentences, evidence, the time budget of the prompt and its fixed start, with fakes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lecturetui.core.answer.budget import (
    SAFETY,
    SENTENCE_ROOM,
    PromptBudget,
    plan_prompt,
)
from lecturetui.core.answer.evidence import ScoredPassage, score_passages
from lecturetui.core.answer.found import Retrieved
from lecturetui.core.answer.prompt_speed import (
    KEPT,
    READS,
    PromptSpeed,
    observe,
    prepare,
    store_speed,
    stored_speed,
)
from lecturetui.core.answer.prompting import Passage, fixed_messages, merge_hits
from lecturetui.core.answer.quote import SCORED_WINDOWS, best_window, choose_quote, sentence_scorer
from lecturetui.core.library import Library
from lecturetui.core.requests.words import QuestionSettings
from lecturetui.core.retrieval.sentences import SentenceVectors
from lecturetui.core.sentences import MAX_WORDS, Window, joined_text, pieces
from tests.conftest import SEED_CORPUS
from tests.fakes import FakeEmbedder, FakeGenerator, ask

SEED = [json.loads(x) for x in SEED_CORPUS.read_text().splitlines()]
QUESTION = "tensor Flow prioriza GPU"


@pytest.fixture
def library(seed_library: Library) -> Library:
    return seed_library


def test_unpunctuated_speech_is_cut_at_fillers_connectives_and_length() -> None:
    text = (
        "então a lista em Python ela é sempre mutável né a gente pode adicionar elementos com append "
        "e remover com pop Então a tupla não muda depois de criada tá e por isso ela pode ser "
        "chave " + "palavra " * 38 + "Fim. Outra frase curta aqui."
    )
    sentences = pieces(text)
    texts = [s.text for s in sentences]
    assert texts[0].endswith("mutável né")  # after a filler, once long enough
    assert texts[1].endswith("remover com pop")  # before a connective (Então)
    assert all(s.last - s.first <= MAX_WORDS for s in sentences)
    assert "Fim." in texts[-2] and texts[-1] == "Outra frase curta aqui."
    assert " ".join(texts) == " ".join(text.split())  # nothing lost, nothing twice


def test_overlapping_windows_cut_their_shared_words_the_same_way() -> None:
    a, b = SEED[3]["text"], SEED[4]["text"]  # 6702 and 6703 overlap by ~35 s
    merged = {s.text for s in pieces(joined_text([Window(0, 0.0, 2.0, a), Window(1, 1.0, 3.0, b)]))}
    own = [s.text for s in pieces(b)]
    assert sum(t in merged for t in own) >= 0.75 * len(own)


def test_sentence_vectors_are_embedded_once_and_kept(tmp_path: Path) -> None:
    emb = FakeEmbedder()
    path = tmp_path / "sentences.sqlite3"
    first = SentenceVectors(path, lambda: emb, "fake")
    v = first.vectors(["uma frase", "outra frase", "uma frase"])
    assert v.shape == (3, emb.dim) and (v[0] == v[2]).all()
    assert emb.embedded == ["uma frase", "outra frase"]
    first.close()
    again = SentenceVectors(path, lambda: emb, "fake")
    assert (again.vectors(["outra frase"])[0] == v[1]).all() and len(emb.embedded) == 2
    assert again.missing(["outra frase", "nova"]) == ["nova"]
    other_model = SentenceVectors(path, lambda: emb, "another")
    other_model.vectors(["uma frase"])
    assert len(emb.embedded) == 3  # vectors are per model


def test_budget_counts_only_what_the_model_has_not_read() -> None:
    b = PromptBudget.for_time(4096, 520, cached_tokens=400, tokens_per_s=100.0, seconds=8.0)
    assert b.read_tokens == int(800 * SAFETY) and b.limit == 400 + int(800 * SAFETY)
    assert PromptBudget.for_time(4096, 520, 400, None, 8.0).limit == 4096 - 520  # not measured
    assert PromptBudget.for_time(4096, 520, 400, 1e6, 8.0).limit == 4096 - 520  # a GPU
    assert PromptBudget.for_time(4096, 520, 400, 100.0, 0.0).limit == 400


def _scored(library: Library) -> tuple[list[Passage], list[ScoredPassage]]:
    passages = merge_hits(library.search(QUESTION, 10).hits)
    scorer = sentence_scorer(library)
    windows = [best_window(p) for p in passages[:SCORED_WINDOWS]]
    return passages, score_passages(windows, scorer.query(QUESTION), scorer.vectors)


def test_a_slow_machine_gets_the_quote_with_its_neighbours_and_the_next_windows_best_sentences(
    library: Library,
) -> None:
    passages, scored = _scored(library)
    quote = choose_quote(scored[0])
    assert quote is not None
    gen = FakeGenerator()
    whole = plan_prompt(QUESTION, passages, scored, PromptBudget(4096, 520),
                        gen.count_prompt_tokens, gen.count_tokens, quote=quote)  # fmt: skip
    assert not whole.trimmed and len(whole.passages) >= 3
    fixed = gen.count_prompt_tokens(fixed_messages())  # read once, when the model loads
    base = gen.count_prompt_tokens(plan_prompt(QUESTION, [], [], PromptBudget(4096, 520),
                                               gen.count_prompt_tokens,
                                               gen.count_tokens).messages)  # fmt: skip
    plans = []
    for speed in (40.0, 1.0):  # slow, and so slow that the time budget holds nothing
        budget = PromptBudget.for_time(4096, 520, fixed, speed, 8.0)
        plan = plan_prompt(QUESTION, passages, scored, budget, gen.count_prompt_tokens,
                           gen.count_tokens, quote=quote)  # fmt: skip
        assert plan.trimmed and plan.prompt_tokens <= plan.limit <= base + SENTENCE_ROOM
        top = plan.passages[0]  # [1]: the quoted sentences, and more around them
        assert top.number == 1 and top.lecture_id == passages[0].lecture_id
        sentences = scored[0].sentences
        assert all(sentences[i].text in top.text for i in quote.sentences)
        around = {j for i in quote.sentences for j in (i - 1, i + 1)} - set(quote.sentences)
        assert any(sentences[j].text in top.text for j in around if 0 <= j < len(sentences))
        # the next windows: their best sentence, in their own span
        for sp in scored[1:]:
            best = max(range(len(sp.sentences)), key=lambda i: sp.scores[i])
            holder = [p for p in plan.passages[1:] if sp.sentences[best].text in p.text]
            for p in holder:
                assert p.lecture_id == sp.passage.lecture_id
                assert sp.passage.start <= p.start < p.end <= sp.passage.end
        plans.append(plan)
    # the prompt does not follow the measured speed: the same question, the same prompt
    assert plans[0].messages == plans[1].messages
    assert len(plans[0].passages) >= 2
    assert sum(len(p.text.split()) for p in plans[0].passages) < sum(
        len(p.text.split()) for p in whole.passages
    )


def test_the_fixed_start_of_every_prompt_is_the_same(library: Library) -> None:
    gen = FakeGenerator("A GPU [1].")
    ask(library, gen, QUESTION)
    ask(library, gen, "Which environment variable selects the GPU?", QuestionSettings(ttft_s=None))
    for prompt in gen.prompts:
        assert prompt[:3] == fixed_messages()
        assert "[1]" in prompt[2]["content"]  # the worked example cites its excerpts
        assert prompt[-1]["content"].startswith("Lecture excerpts:")


def test_evidence_comes_before_the_answer_and_the_prompt_meets_the_budget(
    library: Library,
) -> None:
    events: list[str] = []
    found: list[Retrieved] = []

    def on_evidence(r: Retrieved) -> None:
        events.append("evidence")
        found.append(r)

    gen = FakeGenerator("Prioriza a GPU [1].", tokens_per_s=20.0)
    gen.cached_tokens = gen.count_prompt_tokens(fixed_messages())
    answer = ask(library, gen, QUESTION, on_evidence=on_evidence,
                 on_token=lambda _: events.append("token"))  # fmt: skip
    assert events[0] == "evidence" and events[1] == "token"
    evidence = found[0].evidence
    assert len(evidence) == 3 and evidence[0].score >= evidence[-1].score
    first = evidence[0]
    assert first.segment_id is not None and first.text
    segment = library.segment(first.segment_id)
    assert segment is not None and first.text in " ".join(segment.text.split())
    assert segment.start <= first.start <= segment.end
    assert answer.trimmed and answer.citation_source == "model"
    t = answer.timings
    assert t["prompt_new_tokens"] <= t["prompt_limit"] - gen.cached_tokens
    assert answer.passages[0].lecture_id == found[0].passages[0].lecture_id  # the top passage
    assert answer.to_json()["evidence"][0]["text"] == first.text
    # the answer opens with the lecturer's words, then the model's explanation
    quote = found[0].quote
    assert quote is not None and answer.text.startswith(f"“{quote.text}”")
    assert answer.text.endswith("Prioriza a GPU [1].")
    assert answer.record().quote is not None and answer.record().explanation.startswith("Prioriza")


def test_no_time_budget_gives_whole_passages(library: Library) -> None:
    gen = FakeGenerator("Na GPU [1].", tokens_per_s=20.0)
    answer = ask(library, gen, QUESTION, QuestionSettings(ttft_s=0))
    assert not answer.trimmed and len(answer.passages) >= 3


class PrefillingFake(FakeGenerator):
    speed_key = "fake.gguf|cpu"

    def __init__(self) -> None:
        super().__init__()
        self.prefilled: list[int] = []

    def prefill(
        self, messages: list[dict[str, str]], keep: Path | None = None
    ) -> tuple[int, float]:
        n = self.count_prompt_tokens(messages)
        self.prefilled.append(n)
        self.cached_tokens = n
        return n, n / (100.0 if len(self.prefilled) > 1 else 50.0)  # the first read is slower


def test_prompt_speed_costs_no_extra_read_and_answers_refine_it(tmp_path: Path) -> None:
    path = tmp_path / "llm_speed.json"
    gen = PrefillingFake()
    speed = prepare(gen, path)  # a new data home: the read that caches the fixed start is timed
    assert speed is not None and speed.measured_now and len(gen.prefilled) == 1
    assert gen.prompt_tokens_per_s == speed.tokens_per_s == pytest.approx(50.0)
    for _ in range(KEPT - 1):  # each answer adds the speed it read its prompt at
        assert observe(gen, path, 300, 300 / 100.0)
    stored = stored_speed(path, "fake.gguf|cpu")
    assert stored is not None and len(stored.samples) == KEPT
    assert stored.tokens_per_s == gen.prompt_tokens_per_s == pytest.approx(100.0)
    assert not observe(gen, path, 300, 300 / 100.0)  # kept full: only a far figure moves it
    later = PrefillingFake()  # the next start: the fixed start is read (cached), not measured
    again = prepare(later, path)
    assert again is not None and not again.measured_now and len(later.prefilled) == 1
    assert later.prompt_tokens_per_s == pytest.approx(100.0) and later.cached_tokens > 0
    store_speed(path, PromptSpeed("other|gpu", 5000.0, 10, "now"))
    assert stored_speed(path, "fake.gguf|cpu") is not None  # other figures are kept
    assert prepare(FakeGenerator(), path) is None  # a model that cannot read ahead
    measured = PrefillingFake()  # `lecturetui models speed`: READS reads, the first dropped
    speed = prepare(measured, path, remeasure=True)
    assert speed is not None and len(measured.prefilled) == READS
    assert speed.tokens_per_s == pytest.approx(100.0) and len(speed.samples) == READS - 1


class RestoringFake(PrefillingFake):
    """A model whose fixed start was saved by an earlier process (read back, not timed)."""

    def prefill(
        self, messages: list[dict[str, str]], keep: Path | None = None
    ) -> tuple[int, float]:
        n, seconds = super().prefill(messages)
        return (n, 0.0) if keep is not None else (n, seconds)


def test_a_restored_fixed_start_keeps_the_stored_speed_or_measures_one(tmp_path: Path) -> None:
    path = tmp_path / "llm_speed.json"
    gen = RestoringFake()
    speed = prepare(gen, path, keep=tmp_path)  # restored, but no speed was ever kept: timed
    assert speed is not None and speed.measured_now and len(gen.prefilled) == 2
    later = RestoringFake()
    again = prepare(later, path, keep=tmp_path)
    assert again is not None and not again.measured_now and len(later.prefilled) == 1
    assert later.prompt_tokens_per_s == speed.tokens_per_s


class LoadedFake(PrefillingFake):
    """A machine busy with another job during one of the reads."""

    def prefill(
        self, messages: list[dict[str, str]], keep: Path | None = None
    ) -> tuple[int, float]:
        n, _ = super().prefill(messages)
        return n, n / (10.0 if len(self.prefilled) == 2 else 100.0)


def test_one_slow_read_does_not_shrink_every_later_prompt(tmp_path: Path) -> None:
    path = tmp_path / "llm_speed.json"
    gen = LoadedFake()
    speed = prepare(gen, path, remeasure=True)
    assert speed is not None and speed.tokens_per_s == pytest.approx(100.0)  # the median
    assert sorted(speed.samples) == pytest.approx([10.0, 100.0, 100.0])
    # while fewer than KEPT samples are kept, every answer adds its own
    assert observe(gen, path, 300, 300 / 90.0) and observe(gen, path, 300, 300 / 95.0)
    assert gen.prompt_tokens_per_s == pytest.approx(95.0)
    # then an answer read at about the stored speed changes nothing
    assert not observe(gen, path, 300, 300 / 90.0)
    # answers read far slower (another job started) move the figure within a few answers
    moved = [observe(gen, path, 300, 300 / 20.0) for _ in range(KEPT)]
    assert moved[0] and gen.prompt_tokens_per_s == pytest.approx(20.0)
    stored = stored_speed(path, "fake.gguf|cpu")
    assert stored is not None and len(stored.samples) == KEPT
    assert stored.tokens_per_s == gen.prompt_tokens_per_s
    assert not observe(gen, path, 10, 1.0)  # too short a prompt to time
    assert not observe(FakeGenerator(), path, 300, 1.0)  # a model that cannot read ahead


def test_a_figure_stored_before_samples_existed_still_reads(tmp_path: Path) -> None:
    path = tmp_path / "llm_speed.json"
    path.write_text(json.dumps({"k": {"tokens_per_s": 42.0, "tokens": 200, "measured_at": "x"}}))
    old = stored_speed(path, "k")
    assert old is not None and old.tokens_per_s == 42.0 and old.samples == (42.0,)


def test_an_answer_that_loops_is_stopped_at_the_repeat(library: Library) -> None:
    looping = "A GPU é priorizada por ele [1]. Ela é muito rápida [2]. " * 20
    gen = FakeGenerator(looping)
    tokens: list[str] = []
    answer = ask(library, gen, QUESTION, on_token=tokens.append)
    assert answer.explanation == "A GPU é priorizada por ele [1]. Ela é muito rápida [2]."
    assert not answer.stopped and answer.cited == [1, 2]
    assert len(tokens) < len(looping.split(" ")) / 5  # the stream was left early


def test_repeat_guard_ignores_citations_case_and_short_sentences() -> None:
    from lecturetui.core.answer.repetition import RepeatGuard

    guard = RepeatGuard()
    for piece in ["Sim [1]. ", "Sim [2]. ", "A GPU vem primeiro no TensorFlow [1]. "]:
        assert not guard.feed(piece)  # a short sentence may repeat
    assert guard.feed("a gpu vem PRIMEIRO no TensorFlow [3]. Mais")
    assert guard.answer() == "Sim [1]. Sim [2]. A GPU vem primeiro no TensorFlow [1]."
