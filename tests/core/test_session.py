"""The one door to the models: each loaded once, lazily; the pipeline waits only when it must."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from lecturetui.core.errors import LectureTuiError
from lecturetui.core.llm import process
from lecturetui.core.models.placement import Placement
from lecturetui.core.paths import DataHome
from lecturetui.core.session import AnswerChoice, ModelSession
from tests.fakes import FakeGenerator


class Model(FakeGenerator):
    made: list[tuple[Path, dict[str, Any]]] = []
    closed: list[Path] = []

    def __init__(self, path: Path, **options: Any) -> None:
        super().__init__()
        self.path = path
        Model.made.append((path, options))

    def close(self) -> None:
        Model.closed.append(self.path)


@pytest.fixture
def session(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ModelSession:
    Model.made, Model.closed = [], []
    monkeypatch.setattr(process, "open_model", Model)
    gguf = tmp_path / "answers.gguf"
    gguf.write_bytes(b"GGUF" + bytes(28))
    return ModelSession(
        DataHome.resolve(), Placement("cpu"), answer=AnswerChoice(str(gguf), seed=3)
    )


def test_the_answer_model_is_loaded_once_with_its_options(session: ModelSession) -> None:
    first = session.answer_model()
    assert session.answer_model() is first
    [(path, options)] = Model.made
    assert path.name == "answers.gguf"
    assert options.pop("log") == session.home.log_file  # what its process writes goes there
    assert options == {"n_ctx": 4096, "placement": Placement("cpu"), "seed": 3}
    assert session.judge(path) is first  # the same file judges with the same model
    other = path.with_name("judge.gguf")
    other.write_bytes(b"GGUF" + bytes(28))
    judge = session.judge(other)
    assert judge is not first and session.judge(other) is judge
    session.close()
    assert sorted(p.name for p in Model.closed) == ["answers.gguf", "judge.gguf"]


def test_the_pipeline_waits_for_the_model_only_when_it_needs_it(session: ModelSession) -> None:
    evidence_out = threading.Event()
    source = session.source(evidence_out)
    assert source.for_search(lambda: False) is None  # not needed: the search does not wait
    assert Model.made == [] and not evidence_out.is_set()  # it loads after the evidence
    model = source.for_answer(threading.Event())
    assert model is session.answer_model() and evidence_out.is_set()
    assert len(Model.made) == 1
    session.close()


def test_a_model_that_cannot_load_is_one_sentence_for_the_question(
    session: ModelSession, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(path: Path, **options: Any) -> Model:
        raise MemoryError("out of memory")

    monkeypatch.setattr(process, "open_model", broken)
    source = session.source()
    with pytest.raises(LectureTuiError, match="out of memory"):
        source.for_answer(threading.Event())
    stop = threading.Event()
    stop.set()
    other = ModelSession(session.home, answer=session.answer)
    assert other.source().for_answer(stop) is None
    other.close()  # its model was not wanted: none loads after this test


#: where the product keeps the answer model's state (before tests/conftest.py moves it)
MODEL_STATE = DataHome.model_state


class Reading(Model):
    """A model that reads its fixed instructions ahead: timed where no earlier process kept their
    state in `keep`, else restored from there (untimed)."""

    speed_key = "answers.gguf|cpu"
    prompt_tokens_per_s: float | None = None
    reads: list[tuple[str, bool]] = []  # (where it was asked to keep the state, restored)

    def prefill(
        self, messages: list[dict[str, str]], keep: Path | None = None
    ) -> tuple[int, float]:
        state = keep / "llm_prefix" / "fixed.state" if keep is not None else None
        restored = state is not None and state.is_file()
        Reading.reads.append((str(keep), restored))
        if state is not None and not restored:
            state.parent.mkdir(parents=True, exist_ok=True)
            state.write_bytes(b"state")
        return 400, 0.0 if restored else 4.0


def test_a_fresh_data_home_finds_the_answer_model_s_state_and_speed_another_home_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the product's rule: the models folder keeps them (tests/conftest.py puts them in the home)
    monkeypatch.setattr(DataHome, "model_state", MODEL_STATE)
    monkeypatch.setattr(process, "open_model", Reading)
    models = tmp_path / "models"
    models.mkdir()
    monkeypatch.setenv("LECTURETUI_MODELS", str(models))
    gguf = tmp_path / "answers.gguf"
    gguf.write_bytes(b"GGUF" + bytes(28))
    Reading.reads = []
    speeds = []
    for name in ("used", "fresh"):
        session = ModelSession(
            DataHome.resolve(tmp_path / name), Placement("cpu"), answer=AnswerChoice(str(gguf))
        )
        session.answer_model()
        speeds.append(session._speed)
        session.close()
    used, fresh = speeds
    assert used is not None and used.measured_now  # the first ever read was timed (setup's)
    assert fresh is not None and not fresh.measured_now  # nothing measured on a fresh home
    assert fresh.tokens_per_s == used.tokens_per_s == 100.0
    ours = [read for read in Reading.reads if read[0] == str(models.resolve())]
    assert ours == [(str(models.resolve()), False), (str(models.resolve()), True)]
