"""Sentences, evidence, the time budget of the prompt and its fixed start, with fakes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lecturetui.core.answer.budget import (
    FLOOR_TOP_TOKENS,
    HEADER_TOKENS,
    SAFETY,
    PromptBudget,
    plan_prompt,
)
from lecturetui.core.answer.evidence import score_passages
from lecturetui.core.answer.prompting import fixed_messages, merge_hits
from lecturetui.core.answer.question import ask
from lecturetui.core.answer.retrieved import Retrieved, sentence_vectors
from lecturetui.core.answer.speed import (
    KEPT,
    READS,
    PromptSpeed,
    observe,
    prepare,
    store_speed,
    stored_speed,
)
from lecturetui.core.ingest.pipeline import IngestOptions
from lecturetui.core.lectures import join_overlapping
from lecturetui.core.library import Library
from lecturetui.core.paths import DataHome
from lecturetui.core.retrieval.sentences import MAX_WORDS, SentenceVectors, split_sentences

from ..conftest import SEED_CORPUS
from ..fakes import FakeEmbedder, FakeGenerator

SEED = [json.loads(x) for x in SEED_CORPUS.read_text().splitlines()]
QUESTION = "tensor Flow prioriza GPU"


@pytest.fixture
def library(home: Path) -> Library:
    lib = Library(DataHome.resolve(), embedder=FakeEmbedder())
    lib.ingest([SEED_CORPUS], IngestOptions())
    yield lib  # type: ignore[misc]
    lib.close()


def test_unpunctuated_speech_is_cut_at_fillers_connectives_and_length() -> None:
    text = (
        "então a lista em Python ela é sempre mutável né a gente pode adicionar elementos com append "
        "e remover com pop Então a tupla não muda depois de criada tá e por isso ela pode ser "
        "chave " + "palavra " * 38 + "Fim. Outra frase curta aqui."
    )
    sentences = split_sentences(text)
    texts = [s.text for s in sentences]
    assert texts[0].endswith("mutável né")  # after a filler, once long enough
    assert texts[1].endswith("remover com pop")  # before a connective (Então)
    assert all(s.last - s.first <= MAX_WORDS for s in sentences)
    assert "Fim." in texts[-2] and texts[-1] == "Outra frase curta aqui."
    assert " ".join(texts) == " ".join(text.split())  # nothing lost, nothing twice


def test_overlapping_windows_cut_their_shared_words_the_same_way() -> None:
    a, b = SEED[3]["text"], SEED[4]["text"]  # 6702 and 6703 overlap by ~35 s
    merged = {s.text for s in split_sentences(join_overlapping(a, b))}
    own = [s.text for s in split_sentences(b)]
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


def test_a_tight_budget_keeps_the_top_passage_whole_and_the_best_sentences_of_the_others(
    library: Library,
) -> None:
    hits = library.search(QUESTION, 10).hits
    passages = merge_hits(hits)
    query = library.embedder.embed_query(QUESTION)
    scored = score_passages(passages, query, sentence_vectors(library))
    gen = FakeGenerator()
    whole = plan_prompt(QUESTION, passages, scored, PromptBudget(4096, 520),
                        gen.count_prompt_tokens, gen.count_tokens)  # fmt: skip
    assert not whole.trimmed and len(whole.passages) >= 3
    fixed = gen.count_prompt_tokens(fixed_messages())  # read once, when the model loads
    base = gen.count_prompt_tokens(plan_prompt(QUESTION, [], [], PromptBudget(4096, 520),
                                               gen.count_prompt_tokens,
                                               gen.count_tokens).messages)  # fmt: skip
    for speed in (40.0, 1.0):  # slow, and so slow that the time budget holds nothing
        budget = PromptBudget.for_time(4096, 520, fixed, speed, 8.0)
        plan = plan_prompt(
            QUESTION, passages, scored, budget, gen.count_prompt_tokens, gen.count_tokens
        )
        assert plan.trimmed and plan.prompt_tokens <= plan.limit < whole.prompt_tokens
        assert plan.limit >= budget.limit  # the floor only ever raises the time budget
        top = plan.passages[0]  # the best-ranked passage is [1]: whole when the floor holds it
        assert top.number == 1 and top.lecture_id == passages[0].lecture_id
        if gen.count_tokens(passages[0].text) + HEADER_TOKENS <= FLOOR_TOP_TOKENS:
            assert top.text == passages[0].text
            assert (top.start, top.end) == (passages[0].start, passages[0].end)
        else:  # else its best sentence, with the words around it
            best = max(range(len(scored[0].sentences)), key=lambda i: scored[0].scores[i])
            assert scored[0].sentences[best].text in top.text
            assert gen.count_tokens(top.text) <= FLOOR_TOP_TOKENS
        assert len(plan.passages) >= 2 and plan.prompt_tokens > base + gen.count_tokens(top.text)
        # the others hold their best sentences, with the words around them, in their own span
        k, i = max(
            ((k, i) for k in range(1, len(scored)) for i in range(len(scored[k].sentences))),
            key=lambda ki: scored[ki[0]].scores[ki[1]],
        )
        sp = scored[k]
        holder = next(p for p in plan.passages[1:] if sp.sentences[i].text in p.text)
        assert holder.lecture_id == sp.passage.lecture_id
        assert sp.passage.start <= holder.start < holder.end <= sp.passage.end
        neighbour = sp.sentences[i + 1 if i + 1 < len(sp.sentences) else i - 1]
        assert neighbour.text in holder.text or speed == 1.0
    assert sum(len(p.text.split()) for p in plan.passages) < sum(
        len(p.text.split()) for p in whole.passages
    )


def test_a_top_passage_longer_than_the_floor_keeps_its_best_sentences(
    library: Library, monkeypatch: pytest.MonkeyPatch
) -> None:
    import lecturetui.core.answer.budget as budget

    monkeypatch.setattr(budget, "FLOOR_TOP_TOKENS", 40)
    passages = merge_hits(library.search(QUESTION, 10).hits)
    scored = score_passages(passages, library.embedder.embed_query(QUESTION),
                            sentence_vectors(library))  # fmt: skip
    gen = FakeGenerator()
    tight = PromptBudget.for_time(4096, 520, gen.count_prompt_tokens(fixed_messages()), 1.0, 8.0)
    plan = plan_prompt(QUESTION, passages, scored, tight, gen.count_prompt_tokens,
                       gen.count_tokens)  # fmt: skip
    top = plan.passages[0]
    assert top.lecture_id == passages[0].lecture_id and top.text != passages[0].text
    best = max(range(len(scored[0].sentences)), key=lambda i: scored[0].scores[i])
    assert scored[0].sentences[best].text in top.text
    assert gen.count_tokens(top.text) <= 40


def test_the_fixed_start_of_every_prompt_is_the_same(library: Library) -> None:
    gen = FakeGenerator("A GPU [1].")
    ask(library, gen, QUESTION)
    ask(library, gen, "Which environment variable selects the GPU?", ttft_s=None)
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

    gen = FakeGenerator("O TensorFlow prioriza a GPU [1].", tokens_per_s=20.0)
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
    room = t["prompt_limit"] - gen.cached_tokens  # the floor: more than 8 s at 20 tokens/s
    assert t["prompt_new_tokens"] <= room and room > int(20 * 8 * SAFETY)
    assert answer.passages[0].lecture_id == found[0].passages[0].lecture_id  # the top passage
    assert answer.to_json()["evidence"][0]["text"] == first.text


def test_no_time_budget_gives_whole_passages(library: Library) -> None:
    gen = FakeGenerator("Na GPU [1].", tokens_per_s=20.0)
    answer = ask(library, gen, QUESTION, ttft_s=0)
    assert not answer.trimmed and len(answer.passages) >= 3


class PrefillingFake(FakeGenerator):
    speed_key = "fake.gguf|cpu"

    def __init__(self) -> None:
        super().__init__()
        self.prefilled: list[int] = []

    def prefill(self, messages: list[dict[str, str]]) -> tuple[int, float]:
        n = self.count_prompt_tokens(messages)
        self.prefilled.append(n)
        self.cached_tokens = n
        return n, n / (100.0 if len(self.prefilled) > 1 else 50.0)  # the first read is slower


def test_prompt_speed_is_measured_once_and_kept_in_the_data_home(tmp_path: Path) -> None:
    path = tmp_path / "llm_speed.json"
    gen = PrefillingFake()
    speed = prepare(gen, path)
    assert speed is not None and speed.measured_now and speed.tokens_per_s == pytest.approx(100.0)
    assert gen.prompt_tokens_per_s == speed.tokens_per_s and len(gen.prefilled) == READS
    later = PrefillingFake()  # the next start: the fixed start is read (cached), not measured
    again = prepare(later, path)
    assert again is not None and not again.measured_now and len(later.prefilled) == 1
    assert later.prompt_tokens_per_s == pytest.approx(100.0) and later.cached_tokens > 0
    store_speed(path, PromptSpeed("other|gpu", 5000.0, 10, "now"))
    assert stored_speed(path, "fake.gguf|cpu") is not None  # other figures are kept
    assert prepare(FakeGenerator(), path) is None  # a model that cannot read ahead


class LoadedFake(PrefillingFake):
    """A machine busy with another job during one of the reads."""

    def prefill(self, messages: list[dict[str, str]]) -> tuple[int, float]:
        n, _ = super().prefill(messages)
        return n, n / (10.0 if len(self.prefilled) == 2 else 100.0)


def test_one_slow_read_does_not_shrink_every_later_prompt(tmp_path: Path) -> None:
    path = tmp_path / "llm_speed.json"
    gen = LoadedFake()
    speed = prepare(gen, path)
    assert speed is not None and speed.tokens_per_s == pytest.approx(100.0)  # the median
    assert sorted(speed.samples) == pytest.approx([10.0, 100.0, 100.0])
    # an answer read at about the stored speed changes nothing
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
    looping = "A GPU é priorizada pelo TensorFlow [1]. Ela é rápida [2]. " * 20
    gen = FakeGenerator(looping)
    tokens: list[str] = []
    answer = ask(library, gen, QUESTION, on_token=tokens.append)
    assert answer.text == "A GPU é priorizada pelo TensorFlow [1]. Ela é rápida [2]."
    assert not answer.stopped and answer.cited == [1, 2]
    assert len(tokens) < len(looping.split(" ")) / 5  # the stream was left early


def test_repeat_guard_ignores_citations_case_and_short_sentences() -> None:
    from lecturetui.core.answer.repetition import RepeatGuard

    guard = RepeatGuard()
    for piece in ["Sim [1]. ", "Sim [2]. ", "A GPU vem primeiro no TensorFlow [1]. "]:
        assert not guard.feed(piece)  # a short sentence may repeat
    assert guard.feed("a gpu vem PRIMEIRO no TensorFlow [3]. Mais")
    assert guard.answer() == "Sim [1]. Sim [2]. A GPU vem primeiro no TensorFlow [1]."
