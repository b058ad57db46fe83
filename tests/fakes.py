"""A deterministic stand-in for the embedding model, for unit tests of the logic around it."""

from __future__ import annotations

import hashlib
import itertools
import json
import re
import threading
from collections.abc import Callable, Iterator, Sequence

import numpy as np
import numpy.typing as npt

from lecturetui.core.answer.events import EvidenceReady, Token
from lecturetui.core.answer.found import Retrieved
from lecturetui.core.answer.result import Answer
from lecturetui.core.conversation import Turn
from lecturetui.core.library import Library
from lecturetui.core.llm.model import Generator
from lecturetui.core.models.tokens import CallableTokenCounter, TokenCounter
from lecturetui.core.requests.door import answer_request, run_request
from lecturetui.core.requests.kinds import RequestEvent
from lecturetui.core.requests.words import ModelSource, Question, QuestionSettings


class FakeEmbedder:
    """Bag of hashed words: texts sharing words get similar vectors."""

    def __init__(self, dim: int = 64, model_id: str = "fake-e5") -> None:
        self.dim = dim
        self.model_id = model_id
        self.device = "cpu"
        self.query_prefix = "query: "
        self.passage_prefix = "passage: "
        self.max_tokens = 512
        self.embedded: list[str] = []

    def _vec(self, text: str) -> npt.NDArray[np.float32]:
        v = np.zeros(self.dim, dtype=np.float32)
        for word in re.findall(r"\w+", text.lower()):
            h = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=4).digest(), "little")
            v[h % self.dim] += 1.0
        v[0] += 0.01
        return v / np.linalg.norm(v)

    def embed_passages(
        self, texts: Sequence[str], progress: Callable[[int, int], None] | None = None
    ) -> npt.NDArray[np.float32]:
        self.embedded.extend(texts)
        out = (
            np.stack([self._vec(t) for t in texts])
            if texts
            else np.zeros((0, self.dim), np.float32)
        )
        if progress:
            progress(len(texts), len(texts))
        return out.astype(np.float32)

    def embed_query(self, text: str) -> npt.NDArray[np.float32]:
        return self._vec(text)

    def embed_queries(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        return np.stack([self._vec(t) for t in texts]).astype(np.float32)

    def token_counter(self) -> TokenCounter:
        return CallableTokenCounter(lambda t: len(t.split()), 4, name=f"words:{self.model_id}")

    def fingerprint(self) -> str:
        return "fake-" + self.model_id


class FakeGenerator:
    """Streams a scripted answer word by word; counts a prompt's tokens as its words."""

    def __init__(
        self,
        answer: str = "A GPU [1].",
        n_ctx: int = 4096,
        tokens_per_s: float | None = None,
        cached_tokens: int = 0,
        translations: dict[str, str] | None = None,
        guesses: dict[str, str] | None = None,
        gpu: bool = False,
    ) -> None:
        self.answer = answer
        # replies to the lecturer's-guess prompts (core/answer/guess.py), by question: (system, user)
        # of every guess asked are kept in `guessed`
        self.guesses = guesses or {}
        self.guessed: list[tuple[str, str]] = []
        # replies to translation prompts (core/answer/translate.py); a question not in it gets none
        self.translations = translations or {}
        self.translated: list[str] = []
        self.n_ctx = n_ctx
        self.name = "fake.gguf"
        self.gpu = gpu
        self.prompts: list[list[dict[str, str]]] = []
        self.prompt_tokens_per_s = tokens_per_s
        self.cached_tokens = cached_tokens

    def count_prompt_tokens(self, messages: list[dict[str, str]]) -> int:
        return sum(len(m["content"].split()) + 4 for m in messages)

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def stream(self, messages, max_tokens, stop=None, temperature=None):  # type: ignore[no-untyped-def]
        if messages[0]["content"].startswith("Translate the user's question"):
            question = messages[-1]["content"]
            self.translated.append(question)
            yield self.translations.get(question, "")
            return
        if messages[0]["content"].startswith("You are the lecturer"):
            user = messages[-1]["content"]
            self.guessed.append((messages[0]["content"], user))
            asked = user.removeprefix("A student asks: ").split("\n\n")[0]
            yield self.guesses.get(asked, "")
            return
        self.prompts.append(messages)
        for i, word in enumerate(self.answer.split(" ")):
            if stop is not None and stop.is_set():
                return
            yield word if i == 0 else " " + word


class FakeLabeller(FakeGenerator):
    """Names every part of a summary (core/summary/label.py) by the two long words its prompt
    quotes of the lecturer side by side most often, so that the part says them and the label is
    kept; answers any other prompt as FakeGenerator does."""

    def __init__(self, answer: str = "A GPU [1].", n_ctx: int = 4096) -> None:
        super().__init__(answer, n_ctx)
        self.asked = 0  # labels asked for

    def stream(self, messages, max_tokens, stop=None, temperature=None):  # type: ignore[no-untyped-def]
        if "table of contents" not in messages[0]["content"]:
            yield from super().stream(messages, max_tokens, stop, temperature)
            return
        self.prompts.append(messages)
        self.asked += 1
        quoted = messages[-1]["content"].split("“", 1)[1].rsplit("”", 1)[0]
        words = re.findall(r"[^\W\d_]+", quoted)
        pairs = [f"{a} {b}" for a, b in itertools.pairwise(words) if len(a) >= 6 and len(b) >= 6]
        yield (max(pairs, key=pairs.count) if pairs else "") + "\n"


class FakeJudgeModel:
    """Replies to the judge's prompts from a script: a list of raw replies, used in order."""

    def __init__(self, replies: list[str] | None = None) -> None:
        self.name = "fake-judge.gguf"
        self.replies = list(replies or [])
        self.calls: list[tuple[list[dict[str, str]], dict[str, object]]] = []

    def complete_json(
        self, messages: list[dict[str, str]], schema: dict[str, object], max_tokens: int
    ) -> str:
        self.calls.append((messages, schema))
        if self.replies:
            return self.replies.pop(0)
        props = schema.get("properties", {})
        assert isinstance(props, dict)
        if "supported" in props:  # groundedness: every statement supported
            n = props["supported"]["minItems"]
            return json.dumps({"supported": [True] * n})
        if "criteria" in props:
            return json.dumps(
                {
                    "criteria": "Relevant to the whole PROMPT.",
                    "supporting_evidence": "It answers.",
                    "score": 3,
                }
            )
        return json.dumps({"reason": "on topic", "score": 2})


def ask(
    library: Library,
    generator: Generator,
    question: str,
    settings: QuestionSettings | None = None,
    turn: Turn | None = None,
    stop: threading.Event | None = None,
    on_token: Callable[[str], None] | None = None,
    on_evidence: Callable[[Retrieved], None] | None = None,
) -> Answer:
    """A question about a moment through the front door with a loaded model, its events as
    callbacks, not kept in the history."""
    turn = turn or Turn(question.strip(), question.strip())

    def seen(event: RequestEvent) -> None:
        if isinstance(event, EvidenceReady) and on_evidence:
            on_evidence(event.found)
        elif isinstance(event, Token) and on_token:
            on_token(event.text)

    _, answer = answer_request(library, Question(turn), generator, settings, stop, seen)
    assert isinstance(answer, Answer), "a question about a moment is answered as one"
    return answer


def question_events(
    library: Library,
    turn: Turn,
    models: ModelSource,
    settings: QuestionSettings | None = None,
    stop: threading.Event | None = None,
) -> Iterator[RequestEvent]:
    """A question's events through the front door."""
    return run_request(library, Question(turn), models, settings, stop)
