"""The real 0.5B answer model (llama.cpp, offline) over the seed corpus with the real E5 model."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from lecturetui.core.library import Library
from lecturetui.core.llm.generation import LlamaGenerator
from lecturetui.core.models.gguf import BUNDLED, FAST_LLM, assemble
from lecturetui.core.paths import DataHome
from lecturetui.core.requests.words import QuestionSettings
from tests.conftest import MODELS_DIR, ROOT, SEED_CORPUS
from tests.fakes import ask

pytestmark = pytest.mark.slow
QUESTIONS = ROOT.parent / "shared" / "eval" / "seed_questions.jsonl"
Q43 = "O TensorFlow prioriza a execução de operações em qual dispositivo?"


@pytest.fixture(scope="module")
def generator():  # type: ignore[no-untyped-def]
    path = assemble(BUNDLED[FAST_LLM], MODELS_DIR)
    gen = LlamaGenerator(path, n_ctx=4096)
    yield gen
    gen.close()


def test_assembled_gguf_is_verified() -> None:
    path = assemble(BUNDLED[FAST_LLM], MODELS_DIR)
    assert path.read_bytes()[:4] == b"GGUF"


def test_seed_question_43_names_the_gpu_and_cites_its_segment(home: Path, e5, generator) -> None:  # type: ignore[no-untyped-def]
    if QUESTIONS.exists():  # the question as the seeds asked it
        q = next(json.loads(x) for x in QUESTIONS.read_text().splitlines() if '"number": 43' in x)
        assert q["question"] == Q43
    library = Library(DataHome.resolve(), embedder=e5)
    library.ingest([SEED_CORPUS])
    pieces: list[str] = []
    answer = ask(
        library, generator, Q43, QuestionSettings(k=5, answer_tokens=160), on_token=pieces.append
    )
    assert len(pieces) > 1  # streamed
    assert re.search(r"\bGPUs?\b", answer.text, re.IGNORECASE)
    assert answer.cited
    prefers_gpu = re.compile(r"prioriz\w*\s+(o uso de\s+)?gpu", re.IGNORECASE)
    assert any(prefers_gpu.search(p.text) for p in answer.citations), answer.to_json()["citations"]
    assert answer.timings["time_to_first_token_ms"] > 0 and answer.timings["tokens_per_s"] > 0


def test_prompt_budget_with_the_real_tokenizer(generator) -> None:  # type: ignore[no-untyped-def]
    from lecturetui.core.answer.budget import PromptBudget, plan_prompt
    from lecturetui.core.errors import LectureTuiError

    with pytest.raises(LectureTuiError, match="too long"):
        plan_prompt("por que " * 3000, [], [], PromptBudget(generator.n_ctx, 512),
                    generator.count_prompt_tokens, generator.count_tokens)  # fmt: skip


def test_a_seed_makes_each_answer_reproducible_whatever_came_before() -> None:
    # Unseeded, llama.cpp's sampler goes on from the previous call, so an answer depends on the
    # questions asked before it (a resumed evaluation would differ from a whole one).
    path = assemble(BUNDLED[FAST_LLM], MODELS_DIR)
    messages = [{"role": "user", "content": "List ten random Portuguese words, comma-separated."}]
    gen = LlamaGenerator(path, n_ctx=512, seed=7, temperature=1.5)  # hot, so sampling shows
    try:
        first = "".join(gen.stream(messages, 32))
        assert first and "".join(gen.stream(messages, 32)) == first
        others = set()
        for seed in (8, 9, 10):  # the seed is what decides: another one samples other words
            gen.seed = seed
            others.add("".join(gen.stream(messages, 32)))
        assert others - {first}
    finally:
        gen.close()


def test_an_answer_after_a_translation_reads_the_fixed_start_from_its_saved_cache() -> None:
    from lecturetui.core.answer.prompt_speed import prepare
    from lecturetui.core.answer.prompting import fixed_messages
    from lecturetui.core.answer.translate import translate

    path = assemble(BUNDLED[FAST_LLM], MODELS_DIR)
    gen = LlamaGenerator(path, n_ctx=2048, temperature=0.0)
    try:
        prepare(gen, None)
        prompt = [*fixed_messages(), {"role": "user", "content": "Lecture excerpts:\n[1] aula-D "
                  "00:10:00-00:12:00\nO tensor Flow sempre vai priorizar GPU.\n\nQuestion: "
                  "O que o TensorFlow prioriza?"}]  # fmt: skip
        alone = "".join(gen.stream(prompt, 24))
        restored: list[int] = []
        load = gen._llm.load_state
        gen._llm.load_state = lambda state: (restored.append(1), load(state))[1]
        again = "".join(gen.stream(prompt, 24))
        assert again == alone  # the same question twice: the same answer
        assert translate(gen, "Which device does TensorFlow prioritise?", "pt")
        after = "".join(gen.stream(prompt, 24))
        # every answer starts from the saved fixed start, a translation before it or not
        assert restored == [1, 1]
        assert after == alone  # and the answer is the one written from a clean cache
    finally:
        gen.close()


def test_the_fixed_start_saved_by_one_process_answers_the_same_in_the_next(tmp_path: Path) -> None:
    from lecturetui.core.answer.prompting import fixed_messages

    path = assemble(BUNDLED[FAST_LLM], MODELS_DIR)
    messages = [*fixed_messages(), {"role": "user", "content": "O que é uma tupla em Python?"}]
    first = LlamaGenerator(path, n_ctx=1024)
    try:
        n, seconds = first.prefill(fixed_messages(), keep=tmp_path)
        assert n > 100 and seconds > 0  # read, and saved
        want = "".join(first.stream(messages, 24))
    finally:
        first.close()
    assert len(list((tmp_path / "llm_prefix").glob("*.state"))) == 1
    later = LlamaGenerator(path, n_ctx=1024)  # as the next process would
    try:
        assert later.prefill(fixed_messages(), keep=tmp_path) == (n, 0.0)  # restored, not read
        assert later.cached_tokens == n
        assert "".join(later.stream(messages, 24)) == want
    finally:
        later.close()
    other = LlamaGenerator(path, n_ctx=2048)  # another context size: its own state
    try:
        assert other.prefill(fixed_messages(), keep=tmp_path)[1] > 0
    finally:
        other.close()


def test_the_model_finds_the_moment_that_answers_likelier_than_an_unrelated_one(generator) -> None:  # type: ignore[no-untyped-def]
    from lecturetui.core.answer.doubt import check_messages
    from lecturetui.core.answer.quote import Quote

    def moment(text: str) -> Quote:
        return Quote("aula-3", "Aula 3", 600.0, 640.0, text, 0.5, None, None, (0,))

    # the widest gap of the pairs tried with the small test model (0.35 against 0.24; the
    # 1.5B answer model gives 0.77 against 0.34 on a closer pair)
    question = "How many bits are in a byte?"
    answers = moment(
        "a byte is eight bits, so with eight bits you can count from zero to two hundred fifty five"
    )
    unrelated = moment(
        "the soup needs two onions and a little salt, then you let it boil for twenty minutes"
    )
    yes = generator.yes_probability(check_messages(question, answers))
    no = generator.yes_probability(check_messages(question, unrelated))
    assert 0.0 <= no < yes <= 1.0
