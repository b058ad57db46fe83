"""Answers from a local model server the student already runs (OpenAI-compatible chat API).

llama.cpp's `llama-server`, Ollama (`/v1`), LM Studio, vLLM and llama-cpp-python's own server all
speak `POST {url}/chat/completions` with `stream: true` (server-sent events, one `data: {...}`
line per piece). The prompts, citations, budget and history are the same as with the built-in
model; only where the tokens come from changes.

Nothing leaves the machine: a URL whose host is not a loopback address is refused unless the
caller allows it. The standard library's HTTP client is enough for one POST and a line-delimited
stream, so no client library is added.

Token counts: such servers have no common tokenize call, so lengths are estimated from
characters, with the ratio learnt from the server's own `usage.prompt_tokens` when the prompt
speed is measured (and a margin), so a prompt is never sized past the context window.
"""

from __future__ import annotations

import ipaddress
import json
import math
import socket
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from lecturetui.core.errors import LectureTuiError
from lecturetui.core.i18n import N_, _

#: characters per token before the server's own count is known (low: counts err long)
DEFAULT_CHARS_PER_TOKEN = 3.0
#: learnt ratios are shrunk by this much, so estimates err long
MARGIN = 0.9
#: tokens each chat message adds for its role markers
PER_MESSAGE = 6
CONNECT_TIMEOUT_S = 10.0
#: how long a read may wait (a long prompt on a slow server reads before the first piece)
READ_TIMEOUT_S = 300.0
START_HINT = N_(
    "start it (llama-server -m MODEL.gguf --port 8080, `ollama serve`, LM Studio's server),"
    " or leave out --llm-url to use the built-in model"
)


def check_local(url: str, allow_remote: bool = False) -> str:
    """The base URL without a trailing slash; refused unless its host is this machine."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise LectureTuiError(
            _("{url!r} is not an http(s) URL of a model server.").format(url=url),
            hint=_("e.g. --llm-url http://127.0.0.1:8080/v1"),
        )
    if not allow_remote and not _loopback(parts.hostname):
        raise LectureTuiError(
            _(
                "{host} is not this machine: questions and your lectures' text would leave it."
            ).format(host=parts.hostname),
            hint=_(
                "use a server on 127.0.0.1 or localhost, or add --allow-remote if you trust that one"
            ),
        )
    return url.rstrip("/")


def _loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, None)
    except OSError:
        return False
    return bool(infos) and all(ipaddress.ip_address(i[4][0]).is_loopback for i in infos)


class ServerGenerator:
    """The Generator protocol (generation.py) over an OpenAI-compatible chat endpoint."""

    gpu = False  # unknown: the budget follows the measured prompt speed instead
    cached_tokens = 0  # whether the server keeps the instructions cached is unknown: count them

    def __init__(
        self,
        url: str,
        model: str | None = None,
        n_ctx: int = 4096,
        allow_remote: bool = False,
        temperature: float = 0.0,
    ) -> None:
        self.url = check_local(url, allow_remote)
        self.n_ctx = n_ctx
        self.temperature = temperature
        self.prompt_tokens_per_s: float | None = None
        self.chars_per_token = DEFAULT_CHARS_PER_TOKEN
        listed = self._models()  # also tells at once whether the server is there
        if not (model or listed):
            raise LectureTuiError(
                _("The answer server at {url} lists no model.").format(url=self.url),
                hint=_("give one with --llm-model NAME"),
            )
        self.model = model or listed[0]
        self.name = self.model
        self.notice = ""

    # -- what the rest of the program reads ----------------------------------------------------
    @property
    def placement(self) -> str:
        return _("server {host}").format(host=urlsplit(self.url).netloc)

    @property
    def speed_key(self) -> str:
        return f"server {self.url} {self.model}"

    def count_tokens(self, text: str) -> int:
        return math.ceil(len(text) / self.chars_per_token)

    def count_prompt_tokens(self, messages: list[dict[str, str]]) -> int:
        return sum(self.count_tokens(m["content"]) + PER_MESSAGE for m in messages)

    # -- HTTP -------------------------------------------------------------------------------
    def _open(self, path: str, body: dict[str, Any] | None, timeout: float) -> Any:
        data = json.dumps(body).encode("utf-8") if body is not None else None
        request = urllib.request.Request(
            self.url + path,
            data=data,
            headers={"Content-Type": "application/json", "Authorization": "Bearer local"},
            method="POST" if data is not None else "GET",
        )
        try:
            return urllib.request.urlopen(request, timeout=timeout)
        except urllib.error.HTTPError as exc:
            detail = exc.read(400).decode("utf-8", "replace").strip()
            raise LectureTuiError(
                _("The answer server at {url} refused the request (HTTP {code}: {detail}).").format(
                    url=self.url, code=exc.code, detail=detail[:200] or exc.reason
                ),
                hint=_(
                    "check --llm-model (GET {url}/models lists them) and the server's log"
                ).format(url=self.url),
            ) from None
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise LectureTuiError(
                _("The answer server at {url} is not reachable ({reason}).").format(
                    url=self.url, reason=reason
                ),
                hint=_(START_HINT),
            ) from None

    def _models(self) -> list[str]:
        """The models the server lists (GET /models), in its order."""
        with self._open("/models", None, CONNECT_TIMEOUT_S) as resp:
            try:
                return [str(m["id"]) for m in json.load(resp)["data"]]
            except (ValueError, KeyError, TypeError):
                return []

    def _body(
        self, messages: list[dict[str, str]], max_tokens: int, **extra: Any
    ) -> dict[str, Any]:
        return {"model": self.model, "messages": messages, "max_tokens": max_tokens, **extra}

    # -- reading and answering --------------------------------------------------------------
    def prefill(
        self, messages: list[dict[str, str]], keep: Path | None = None
    ) -> tuple[int, float]:
        """Time a prompt read (one token generated): (prompt tokens, seconds). A fresh mark at
        its start keeps a server's prompt cache from answering instead of the model; the
        server's token count also sets the characters-per-token ratio."""
        marked = [
            {**messages[0], "content": f"[{uuid.uuid4().hex[:8]}] {messages[0]['content']}"},
            *messages[1:],
        ]
        t0 = time.perf_counter()
        with self._open(
            "/chat/completions", self._body(marked, 1, temperature=0.0), READ_TIMEOUT_S
        ) as resp:
            try:
                reply = json.load(resp)
            except ValueError:
                reply = {}
        seconds = time.perf_counter() - t0
        usage = reply.get("usage") if isinstance(reply, dict) else None
        tokens = int(usage.get("prompt_tokens", 0)) if isinstance(usage, dict) else 0
        if tokens <= 0:
            return self.count_prompt_tokens(marked), seconds
        chars = sum(len(m["content"]) for m in marked)
        self.chars_per_token = max(1.0, chars / max(1, tokens - PER_MESSAGE * len(marked)) * MARGIN)
        return tokens, seconds

    def stream(
        self,
        messages: list[dict[str, str]],
        max_tokens: int,
        stop: threading.Event | None = None,
        temperature: float | None = None,
    ) -> Iterator[str]:
        """The reply's pieces as the server sends them; `stop` ends it (the connection is
        closed, which stops a llama.cpp server generating)."""
        body = self._body(
            messages,
            max_tokens,
            stream=True,
            temperature=self.temperature if temperature is None else temperature,
        )
        resp = self._open("/chat/completions", body, READ_TIMEOUT_S)
        try:
            for raw in resp:
                if stop is not None and stop.is_set():
                    break
                line = raw.decode("utf-8", "replace").strip()
                if not line.startswith("data:"):
                    continue
                data = line[5:].strip()
                if data == "[DONE]":
                    break
                try:
                    chunk = json.loads(data)
                except ValueError:
                    continue
                piece = _piece(chunk)
                if piece:
                    yield str(piece)
        except (TimeoutError, OSError) as exc:
            raise LectureTuiError(
                _("The answer server at {url} stopped answering ({exc}).").format(
                    url=self.url, exc=exc
                ),
                hint=_(START_HINT),
            ) from None
        finally:
            resp.close()

    def complete_json(
        self, messages: list[dict[str, str]], schema: dict[str, Any], max_tokens: int
    ) -> str:
        """A whole reply constrained to `schema` (llama.cpp's servers take it as a grammar)."""
        body = self._body(
            messages,
            max_tokens,
            temperature=0.0,
            response_format={"type": "json_object", "schema": schema},
        )
        with self._open("/chat/completions", body, READ_TIMEOUT_S) as resp:
            try:
                return str(json.load(resp)["choices"][0]["message"]["content"] or "")
            except (ValueError, KeyError, IndexError, TypeError):
                raise LectureTuiError(
                    _("The answer server sent a reply that is not JSON.")
                ) from None

    def close(self) -> None:
        """Nothing is held between requests."""


def _piece(chunk: object) -> str | None:
    """The text of one streamed chunk (None for a role-only or empty one); an error raises."""
    if not isinstance(chunk, dict):
        return None
    if "error" in chunk:
        raise LectureTuiError(
            _("The answer server failed ({error}).").format(error=str(chunk["error"])[:200])
        )
    choices = chunk.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return None
    delta = choices[0].get("delta")
    content = delta.get("content") if isinstance(delta, dict) else None
    return str(content) if content else None
