"""llama.cpp answers: one worker thread owns the model; tokens are streamed and can be stopped.

Where the model runs and how it loads are llama_load.py's (llama_cpp is imported then, never at
import time); loading and generating run with file descriptor 2 pointed at /dev/null unless
`verbose` is set, as llama.cpp writes its logs to the process's stderr even with verbose=False.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from lecturetui.core.errors import LectureTuiError
from lecturetui.core.i18n import _
from lecturetui.core.llm import prefix_state
from lecturetui.core.llm.llama_load import (
    import_llama,
    load_llama,
    plan_llama,
    quiet_stderr,
    slim_state,
)
from lecturetui.core.models.placement import Placement

_DONE = object()


class LlamaGenerator:
    """A GGUF model in llama-cpp-python, owned by one worker thread (Llama is not thread-safe)."""

    def __init__(
        self,
        path: Path,
        n_ctx: int = 4096,
        n_threads: int | None = None,
        verbose: bool = False,
        gpu_layers: int | None = None,
        redirect_stderr: bool = True,
        seed: int | None = None,
        temperature: float = 0.0,
        placement: Placement | None = None,
        flash_attn: bool | None = None,
        n_batch: int | None = None,
    ) -> None:
        self.path = path
        # temperature 0 (the default): greedy, the same answer every time; above 0 answers are
        # sampled, afresh each time with no seed, reproducibly with one (evaluation)
        self.seed = seed
        self.temperature = temperature
        self.name = path.name
        self.n_ctx = n_ctx
        self.verbose = verbose
        # a caller that already routes fd 2 elsewhere (the app) turns the per-call redirection off
        self._quiet = redirect_stderr and not verbose
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="llama")
        self.prompt_tokens_per_s: float | None = None
        self.cached_tokens = 0
        self._prefix: list[int] = []
        # the fixed start's cache (prefill), restored before every answer: the answer then
        # reads only what is new, whatever a side request (a translation, a guess) left there
        self._fixed: list[dict[str, str]] = []
        self._prefix_state: Any = None
        llama_cpp = import_llama()
        plan = plan_llama(
            path,
            str(getattr(llama_cpp, "__version__", "?")),
            placement,
            gpu_layers,
            flash_attn,
            n_batch,
            n_threads,
        )
        self.gpu = plan.gpu
        self.backend = plan.backend
        self.notice = plan.notice
        self._setup = plan.setup
        self.speed_key = plan.speed_key
        try:
            self._llm: Any = self._pool.submit(
                load_llama, llama_cpp, path, n_ctx, plan, verbose, self._quiet
            ).result()
        except (ValueError, RuntimeError) as exc:
            raise LectureTuiError(
                _("The answer model {model} cannot be loaded ({exc}).").format(
                    model=path.name, exc=exc
                ),
                hint=_("check the file, or use --llm with another .gguf"),
            ) from None
        self._formatter = self._chat_formatter()
        meta = self._llm.metadata or {}
        arch = meta.get("general.architecture", "")
        self.layers = int(meta.get(f"{arch}.block_count", 0) or 0)
        on_gpu = self.layers if plan.layers < 0 else min(plan.layers, self.layers)
        self.layers_on_gpu = on_gpu if self.gpu else 0

    @property
    def placement(self) -> str:
        """Where the model runs, for the status line and `doctor`: "CUDA, 28/28 layers" (in the
        current language), or "CPU"."""
        if not self.gpu or self.layers_on_gpu == 0:
            return "CPU"
        # TRANSLATORS: where the answer model runs: "CUDA, 28/28 layers"
        return _("{backend}, {on_gpu}/{layers} layers").format(
            backend=self.backend, on_gpu=self.layers_on_gpu, layers=self.layers
        )

    def _chat_formatter(self) -> Any:
        template = (self._llm.metadata or {}).get("tokenizer.chat_template")
        if not template:
            return None
        eos = self._llm.detokenize([self._llm.token_eos()]).decode("utf-8", "ignore")
        bos = self._llm.detokenize([self._llm.token_bos()]).decode("utf-8", "ignore")
        formatter = import_llama().llama_chat_format.Jinja2ChatFormatter
        return formatter(template=template, eos_token=eos, bos_token=bos)

    def _run(self, fn: Any) -> Any:
        return self._pool.submit(fn).result()

    def _prompt_tokens(self, messages: list[dict[str, str]]) -> list[int]:
        """The tokens create_chat_completion evaluates for these messages."""
        assert self._formatter is not None
        prompt = self._formatter(messages=messages).prompt
        tokens: list[int] = self._run(
            lambda: self._llm.tokenize(prompt.encode("utf-8"), add_bos=False, special=True)
        )
        return tokens

    def prefill(
        self, messages: list[dict[str, str]], keep: Path | None = None
    ) -> tuple[int, float]:
        """Read the fixed start of every prompt now (`messages`, as they begin each prompt), so
        every question reuses it from the cache. With `keep` (a data home), the state it leaves
        is restored from there when an earlier process saved it (core/llm/prefix_state.py),
        and saved there otherwise. Returns (tokens read, seconds it took: 0.0 when restored)."""
        if self._formatter is None:
            return 0, 0.0
        a = self._prompt_tokens([*messages, {"role": "user", "content": "a"}])
        b = self._prompt_tokens([*messages, {"role": "user", "content": "b"}])
        n = next(
            (i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b))
        )
        prefix = a[:n]
        key = f"{self.speed_key}|ctx {self.n_ctx}|{self._setup}"  # the tokens are checked below
        path = prefix_state.state_path(keep, key) if keep is not None else None
        saved = prefix_state.load(path, key) if path is not None else None
        self._prefix = prefix
        self._fixed = [dict(m) for m in messages]
        self.cached_tokens = n

        def restore() -> Any:
            assert saved is not None
            state = slim_state(self._llm, saved.tokens, saved.state)
            with quiet_stderr(self._quiet):
                try:
                    self._llm.reset()
                    self._llm.load_state(state)
                except (RuntimeError, ValueError):
                    return None
            return state

        if saved is not None and saved.tokens == prefix:
            restored = self._run(restore)
            if restored is not None:
                self._prefix_state = restored
                return n, 0.0

        def work() -> tuple[float, Any]:
            with quiet_stderr(self._quiet):
                t0 = time.perf_counter()
                self._llm.reset()
                self._llm.eval(prefix)
                seconds = time.perf_counter() - t0
                full = self._llm.save_state()
                return seconds, slim_state(self._llm, prefix, bytes(full.llama_state))

        seconds, self._prefix_state = self._run(work)
        if path is not None:
            state = self._prefix_state.llama_state
            prefix_state.save(path, key, prefix_state.SavedPrefix(prefix, state))
        return n, float(seconds)

    def count_tokens(self, text: str) -> int:
        return len(
            self._run(
                lambda: self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=False)
            )
        )

    def count_prompt_tokens(self, messages: list[dict[str, str]]) -> int:
        if self._formatter is not None:
            prompt = self._formatter(messages=messages).prompt
        else:  # ChatML-like estimate
            prompt = "".join(
                f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n" for m in messages
            )
        return len(
            self._run(
                lambda: self._llm.tokenize(prompt.encode("utf-8"), add_bos=True, special=True)
            )
        )

    def _start_from_prefix(self, answering: bool) -> None:
        """Where a reply starts: with a seed, from the fixed start alone (a prompt partly
        reused from the cache gets slightly different logits than one evaluated whole, so the
        same seed repeats whatever was asked before); an answer, from the fixed start's saved
        state (one that reused more of the cache, the same question again, would read its
        prompt in other batches and could turn out another greedy answer)."""
        if self.seed is not None:
            self._llm.reset()
            if self._prefix:
                self._llm.eval(self._prefix)
        elif answering and self._prefix_state is not None:
            self._llm.load_state(self._prefix_state)

    def stream(
        self,
        messages: list[dict[str, str]],
        max_tokens: int,
        stop: threading.Event | None = None,
        temperature: float | None = None,
    ) -> Iterator[str]:
        """Yield text pieces as they are generated; setting `stop` ends it between tokens.
        `temperature` overrides the model's own for this reply (0: greedy)."""
        out: queue.Queue[object] = queue.Queue()
        stop = stop or threading.Event()
        halt = threading.Event()  # the consumer went away (closed or interrupted)

        # an answer's prompt begins with the fixed start; a translation's or a guess's does not
        answering = bool(self._fixed) and messages[: len(self._fixed)] == self._fixed

        def work() -> None:
            try:
                with quiet_stderr(self._quiet):
                    self._start_from_prefix(answering)
                    chunks = self._llm.create_chat_completion(
                        messages=messages,
                        max_tokens=max_tokens,
                        temperature=self.temperature if temperature is None else temperature,
                        seed=self.seed,
                        stream=True,
                    )
                    for chunk in chunks:
                        if stop.is_set() or halt.is_set():
                            break
                        piece = chunk["choices"][0]["delta"].get("content")
                        if piece:
                            out.put(piece)
            except Exception as exc:  # surfaced in the consumer thread
                out.put(exc)
            finally:
                out.put(_DONE)

        future: Future[None] = self._pool.submit(work)
        try:
            while True:
                item = out.get()
                if item is _DONE:
                    break
                if isinstance(item, Exception):
                    raise LectureTuiError(
                        _("The answer model failed ({error}).").format(error=item)
                    ) from None
                yield str(item)
        finally:
            halt.set()
            future.result()

    def yes_probability(self, messages: list[dict[str, str]]) -> float:
        """How likely the model's reply to `messages` starts with yes rather than no (0-1),
        from its first token's logits: one read of the prompt, nothing generated. The next
        answer restores its fixed start, as after a translation."""
        tokens = self._prompt_tokens(messages)

        def words(*forms: str) -> list[int]:
            return [self._llm.tokenize(w.encode(), add_bos=False, special=False)[0] for w in forms]

        def work() -> float:
            with quiet_stderr(self._quiet):
                self._llm.reset()
                self._llm.eval(tokens)
                raw = self._llm._ctx.get_logits_ith(-1)
            logits = np.ctypeslib.as_array(raw, shape=(self._llm.n_vocab(),)).astype(np.float64)
            yes, no = words("Yes", "yes", "YES"), words("No", "no", "NO")
            top = float(logits[yes + no].max())
            p_yes = float(np.exp(logits[yes] - top).sum())
            p_no = float(np.exp(logits[no] - top).sum())
            return p_yes / (p_yes + p_no)

        try:
            return float(self._run(work))
        except (ValueError, RuntimeError) as exc:
            raise LectureTuiError(
                _("The answer model failed ({error}).").format(error=exc)
            ) from None

    def complete_json(
        self, messages: list[dict[str, str]], schema: dict[str, Any], max_tokens: int
    ) -> str:
        """A whole reply constrained by a JSON schema (llama.cpp turns it into a grammar)."""

        def work() -> str:
            with quiet_stderr(self._quiet):
                out = self._llm.create_chat_completion(
                    messages=messages,
                    max_tokens=max_tokens,
                    temperature=0.0,
                    response_format={"type": "json_object", "schema": schema},
                )
            return str(out["choices"][0]["message"]["content"] or "")

        try:
            return str(self._run(work))
        except (ValueError, RuntimeError) as exc:
            raise LectureTuiError(_("The judge model failed ({exc}).").format(exc=exc)) from None

    def close(self) -> None:
        self._pool.shutdown(wait=True)
