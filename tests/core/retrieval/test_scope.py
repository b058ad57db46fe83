"""Scoped search: a course or some lectures, applied inside both retrievers before ranking."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lecturetui.cli import cli
from lecturetui.core.errors import LectureTuiError
from lecturetui.core.ingest.pipeline import IngestOptions
from lecturetui.core.library import Library
from lecturetui.core.paths import DataHome
from lecturetui.core.question_options import MODES
from lecturetui.core.retrieval.scope import Scope
from tests.conftest import FIXTURES, SEED_CORPUS
from tests.fakes import FakeEmbedder

QUESTIONS = [
    "tensor Flow prioriza GPU",
    "placa de vídeo do servidor",
    "multiplicação de matrizes e tensor cores",
    "gradiente descendente",
    "aula",
]


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Library:
    home = tmp_path_factory.mktemp("scope-home")
    lib = Library(DataHome.resolve(home), embedder=FakeEmbedder())
    lib.ingest([SEED_CORPUS], IngestOptions(course="Sistemas distribuídos"))
    lib.ingest([FIXTURES / "lecture.vtt", FIXTURES / "whisper.json"], IngestOptions(course="Outra"))
    return lib


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    picks=st.lists(st.integers(0, 50), min_size=1, max_size=3),
    course=st.booleans(),
    question=st.sampled_from(QUESTIONS),
    mode=st.sampled_from(MODES),
    k=st.integers(1, 12),
)
def test_every_hit_is_inside_the_scope(
    library: Library, picks: list[int], course: bool, question: str, mode: str, k: int
) -> None:
    lectures = library.lectures()
    chosen = sorted({lectures[i % len(lectures)].id for i in picks})
    scope = Scope(("Outra",) if course else (), tuple(chosen))
    allowed = set(chosen) | ({x.id for x in lectures if x.course == "Outra"} if course else set())
    hits = library.search(question, k, mode=mode, scope=scope).hits
    assert {h.lecture.id for h in hits} <= allowed
    if mode == "dense":  # the dense side ranks every segment: a full top-k from the scope
        in_scope = len(library.store.segment_ids_of(sorted(allowed)))
        assert len(hits) == min(k, in_scope)


def test_a_scoped_search_finds_what_the_global_top_k_misses(library: Library) -> None:
    question = "tensor Flow prioriza GPU"
    top = library.search(question, 3, mode="dense").hits
    seen = {h.lecture.id for h in top}
    other = next(x for x in library.lectures() if x.id not in seen)
    n = len(library.store.segments(other.id))
    scoped = library.search(question, 3, mode="dense", scope=Scope(lectures=(other.id,))).hits
    assert len(scoped) == min(3, n) > 0  # a full top-k from inside, not the global remainder
    assert all(h.lecture.id == other.id for h in scoped)
    assert not {h.segment.id for h in scoped} & {h.segment.id for h in top}
    hybrid = library.search(question, 3, scope=Scope(lectures=(other.id,))).hits
    assert hybrid and all(h.lecture.id == other.id for h in hybrid)


def test_a_scope_that_names_nothing_is_one_sentence(library: Library) -> None:
    with pytest.raises(LectureTuiError) as no_course:
        library.search("gpu", 5, scope=Scope(courses=("Cálculo",)))
    assert "No course matches 'Cálculo'" in no_course.value.message
    assert "Sistemas distribuídos" in (no_course.value.hint or "")
    with pytest.raises(LectureTuiError) as no_lecture:
        library.search("gpu", 5, scope=Scope(lectures=("não existe",)))
    assert "No lecture matches" in no_lecture.value.message
    with pytest.raises(LectureTuiError) as many:
        library.search("gpu", 5, scope=Scope(lectures=("aula",)))  # a prefix of eight lectures
    assert "lectures match 'aula'" in many.value.message


def test_lexical_search_applies_the_scope_before_its_limit(library: Library) -> None:
    store = library.store
    everything = store.lexical_search("gpu tensor placa", 2)
    found = store.segments_by_id([s for s, _ in everything])
    hit_lectures = {seg.lecture_id for seg in found.values()}
    target = next(x.id for x in library.lectures() if x.id not in hit_lectures)
    scoped = store.lexical_search("gpu tensor placa", 2, frozenset({target}))
    ids = set(store.segment_ids_of([target]))
    assert all(seg in ids for seg, _ in scoped)


@pytest.mark.slow
def test_cli_search_and_retrieval_eval_take_a_scope(
    home: Path, models_env: Path, tmp_path: Path
) -> None:
    runner = CliRunner()

    def run(*args: str) -> tuple[int, str]:
        result = runner.invoke(cli, ["--home", str(home), *args])
        return result.exit_code, result.stdout if "--json" in args else result.output

    assert run("ingest", str(SEED_CORPUS), "--course", "Sistemas distribuídos")[0] == 0
    assert run("ingest", str(FIXTURES / "lecture.vtt"), "--course", "Outra")[0] == 0
    code, out = run("search", "GPU", "--course", "outra", "--json")
    assert code == 0, out
    hits = json.loads(out)["hits"]
    assert hits and {h["course"] for h in hits} == {"Outra"}
    code, out = run("search", "GPU", "--lecture", "aula-A", "--lecture", "aula-B", "--json")
    assert code == 0, out
    assert {h["lecture"] for h in json.loads(out)["hits"]} == {"aula-a", "aula-b"}  # ids are slugs
    code, out = run("search", "GPU", "--course", "Física")
    assert code != 0 and "No course matches 'Física'" in out and "Traceback" not in out
    questions = tmp_path / "q.jsonl"
    questions.write_text(
        json.dumps({"number": 1, "question": "GPU do servidor", "corpus_ids": [6483]}) + "\n"
    )
    code, out = run("eval", str(questions), "--retrieval-only", "--lecture", "aula-A")
    assert code == 0, out
    assert "recall" in out.lower() or "mrr" in out.lower()
