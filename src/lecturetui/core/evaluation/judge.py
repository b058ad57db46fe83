"""The LLM judge: answer relevance with its reasoning, groundedness and context relevance.

Together these are the usual RAG triad. Every reply is constrained by a JSON schema (a llama.cpp
grammar), so a score always has the right type and range; a reply that still cannot be read is
asked again once, then recorded as an error, never as a score. The answer-relevance reasoning
follows the seeds' format: `Criteria: … Supporting Evidence: … Score: n`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from lecturetui.core.citing import CITATION

#: bumped when a prompt changes, so runs judged with other prompts are not mixed with new ones
PROMPT_VERSION = 2
SCORE = {"type": "integer", "enum": [0, 1, 2, 3]}

AR_SYSTEM = (
    "You are a RELEVANCE grader: you judge how relevant a RESPONSE is to a PROMPT (a student's"
    " question). Answer with a score from 0 to 3, where 0 is not relevant at all and 3 is fully"
    " relevant.\n"
    "Scoring guidelines:\n"
    "- Long RESPONSES score as well as short ones if they are equally relevant.\n"
    "- A RESPONSE relevant to only part of the PROMPT scores 1 or 2; it must be relevant to the"
    " entire PROMPT to score 3.\n"
    "- A RESPONSE that says it cannot answer, or that answers another question, scores 0.\n"
    "- A RESPONSE in another language than the PROMPT loses 1 point.\n"
    "First write the criteria you apply (one sentence), then the supporting evidence from the"
    " RESPONSE (at most three sentences), then the score."
)
AR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "criteria": {"type": "string", "maxLength": 400},
        "supporting_evidence": {"type": "string", "maxLength": 900},
        "score": SCORE,
    },
    "required": ["criteria", "supporting_evidence", "score"],
}

CONTEXT_SYSTEM = (
    "You are a RELEVANCE grader. Given a student's QUESTION and an EXCERPT of a lecture transcript"
    " (speech, with transcription errors), score how relevant the EXCERPT is to the QUESTION,"
    " from 0 to 3:\n"
    "0 - the excerpt is about something else;\n"
    "1 - it touches the question's subject but gives nothing that helps answer it;\n"
    "2 - it gives part of the answer, or information that helps answer it;\n"
    "3 - it answers the whole question.\n"
    "An excerpt need not answer everything to score 2. Give a one-sentence reason, then the score."
)
CONTEXT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"reason": {"type": "string", "maxLength": 200}, "score": SCORE},
    "required": ["reason", "score"],
}

GROUNDED_SYSTEM = (
    "You check whether statements are supported by lecture EXCERPTS (transcripts of speech)."
    " A statement is supported when the excerpts say it or directly imply it; general knowledge"
    " the excerpts do not contain does not count. Answer true or false for every statement, in"
    " order."
)

_SENTENCE = re.compile(r"[^.!?\n]+(?:[.!?]+|$)")


class JsonModel(Protocol):
    name: str

    def complete_json(
        self, messages: list[dict[str, str]], schema: dict[str, Any], max_tokens: int
    ) -> str: ...


class JudgeError(Exception):
    pass


@dataclass(slots=True)
class Relevance:
    score: int | None  # 0-3, None when the judge failed
    criteria: str = ""
    evidence: str = ""
    error: str | None = None

    @property
    def value(self) -> float | None:
        """The score on 0-1 (score / 3), as the seeds show it."""
        return None if self.score is None else self.score / 3

    @property
    def reasoning(self) -> str:
        if self.score is None:
            return f"(judge error: {self.error})"
        return f"Criteria: {self.criteria} Supporting Evidence: {self.evidence} Score: {self.score}"


@dataclass(slots=True)
class Groundedness:
    statements: list[str] = field(default_factory=list)
    supported: list[bool] = field(default_factory=list)
    error: str | None = None

    @property
    def value(self) -> float | None:
        if self.error is not None or not self.statements:
            return None
        return sum(self.supported) / len(self.statements)


@dataclass(slots=True)
class ContextRelevance:
    scores: list[int | None] = field(default_factory=list)  # per retrieved segment, 0-3
    reasons: list[str] = field(default_factory=list)

    @property
    def value(self) -> float | None:
        known = [s for s in self.scores if s is not None]
        return sum(known) / (3 * len(known)) if known else None


def statements(answer: str) -> list[str]:
    """The answer's sentences of three words or more, citation marks removed."""
    out = []
    for m in _SENTENCE.finditer(CITATION.sub("", answer)):
        sentence = " ".join(m.group(0).split())
        if len(sentence.split()) >= 3:
            out.append(sentence)
    return out


def auto_label(relevance: Relevance, grounded: Groundedness) -> str | None:
    """C (correct), P (partial) or I (incorrect) from the judge's scores; None if it failed.

    C: answer relevance 3 and at least half of the statements grounded in the segments.
    I: answer relevance 0 or 1.  P: everything between.
    """
    if relevance.score is None:
        return None
    if relevance.score <= 1:
        return "I"
    g = grounded.value
    if relevance.score == 3 and (g is None or g >= 0.5):
        return "C"
    return "P"


class Judge:
    """Scores answers and retrieved segments with a (local) model that honours JSON schemas."""

    def __init__(self, model: JsonModel, max_tokens: int = 384) -> None:
        self.model = model
        self.max_tokens = max_tokens

    @property
    def name(self) -> str:
        return self.model.name

    def _ask(
        self,
        messages: list[dict[str, str]],
        schema: dict[str, Any],
        check: Callable[[dict[str, Any]], object] = lambda data: None,
    ) -> dict[str, Any]:
        """One constrained reply, read as JSON and checked; asked once more if that fails."""
        problem = ""
        for _ in range(2):
            raw = self.model.complete_json(messages, schema, self.max_tokens)
            try:
                data = json.loads(raw, strict=False)
                if not isinstance(data, dict):
                    raise ValueError("not a JSON object")
                check(data)
                return data
            except ValueError as exc:
                problem = f"unreadable reply ({exc}): {raw[:80]!r}"
        raise JudgeError(problem)

    def answer_relevance(self, question: str, answer: str) -> Relevance:
        if not answer.strip():
            return Relevance(0, "An empty RESPONSE is not relevant.", "There is no RESPONSE.")
        messages = [
            {"role": "system", "content": AR_SYSTEM},
            {"role": "user", "content": f"PROMPT: {question}\n\nRESPONSE: {answer}"},
        ]
        try:
            data = self._ask(messages, AR_SCHEMA, _score)
            score = _score(data)
        except JudgeError as exc:
            return Relevance(None, error=str(exc))
        return Relevance(
            score,
            str(data.get("criteria", "")).strip(),
            str(data.get("supporting_evidence", "")).strip(),
        )

    def context_relevance(self, question: str, excerpts: Sequence[str]) -> ContextRelevance:
        out = ContextRelevance()
        for text in excerpts:
            messages = [  # the question first: llama.cpp reuses the shared prefix
                {"role": "system", "content": CONTEXT_SYSTEM},
                {"role": "user", "content": f"QUESTION: {question}\n\nEXCERPT: {text}"},
            ]
            try:
                data = self._ask(messages, CONTEXT_SCHEMA, _score)
                out.scores.append(_score(data))
                out.reasons.append(str(data.get("reason", "")).strip())
            except JudgeError as exc:
                out.scores.append(None)
                out.reasons.append(f"(judge error: {exc})")
        return out

    def groundedness(self, answer: str, excerpts: Sequence[str]) -> Groundedness:
        claims = statements(answer)
        if not claims:
            return Groundedness()
        context = "\n\n".join(f"EXCERPT [{i}]: {t}" for i, t in enumerate(excerpts, 1))
        listing = "\n".join(f"{i}. {c}" for i, c in enumerate(claims, 1))
        schema = {
            "type": "object",
            "properties": {
                "supported": {
                    "type": "array",
                    "items": {"type": "boolean"},
                    "minItems": len(claims),
                    "maxItems": len(claims),
                }
            },
            "required": ["supported"],
        }
        messages = [
            {"role": "system", "content": GROUNDED_SYSTEM},
            {"role": "user", "content": f"{context}\n\nSTATEMENTS:\n{listing}"},
        ]

        def check(data: dict[str, Any]) -> None:
            supported = data.get("supported")
            if (
                not isinstance(supported, list)
                or len(supported) != len(claims)
                or not all(isinstance(b, bool) for b in supported)
            ):
                raise ValueError(f"expected {len(claims)} true/false values, got {supported!r}")

        try:
            data = self._ask(messages, schema, check)
        except JudgeError as exc:
            return Groundedness(claims, [], str(exc))
        return Groundedness(claims, list(data["supported"]))


def _score(data: dict[str, Any]) -> int:
    score = data.get("score")
    if isinstance(score, bool) or not isinstance(score, int) or not 0 <= score <= 3:
        raise ValueError(f"score {score!r} is not 0-3")
    return score
