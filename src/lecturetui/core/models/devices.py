"""When the embedding model moves to the GPU, for bulk work under `--device auto`.

Under `auto` a one-shot command never comes here: its embedders run on the CPU runtime
(core/models/placement.py), which starts in about a second from its compiled cache. Bulk work on
a machine with a GPU loads them on PyTorch, and this decides when they move to the GPU. A GPU is
not free to start: torch creates its CUDA context, the weights move to the GPU and the first
kernels are compiled or loaded before the first vector. So the model starts on the CPU and moves
once the CPU time spent plus the CPU time the next job would take exceeds what starting the GPU
costs (the rent-or-buy rule: never more than twice the better choice in hindsight, and on a
long session it pays the start once). A job known to be large (an ingest, a reindex) moves at
once; the app, which embeds every sentence in the background, moves at its start; an evaluation
moves after its first questions. Figures: bench/RESULTS.md, "The GPU path".
"""

from __future__ import annotations

from dataclasses import dataclass

#: seconds to start embedding on the accelerator (torch's CUDA context and the first kernels):
#: CUDA's as `bench/gpu.py workload` measured the move on an NVIDIA H200 (0.33 s, bench/RESULTS.md,
#: "The GPU path"); MPS's an estimate until it is measured on a Mac
START_COST_S = {"cuda": 0.33, "mps": 1.0}
#: E5-small passage tokens a second on a 2-core laptop CPU, before this process measured its own
CPU_TOKENS_PER_S = 2_300.0


def estimate_tokens(texts: list[str]) -> int:
    """About four characters a token (E5's SentencePiece on Portuguese and English prose)."""
    return sum(len(t) for t in texts) // 4 + 2 * len(texts)


@dataclass(slots=True)
class WorkloadPolicy:
    """Decides, job by job, whether the embedder should move to `accelerator`."""

    accelerator: str  # "cuda" or "mps"; "" when there is none
    start_cost_s: float
    cpu_tokens_per_s: float = CPU_TOKENS_PER_S
    cpu_spent_s: float = 0.0

    @classmethod
    def for_accelerator(cls, accelerator: str) -> WorkloadPolicy:
        return cls(accelerator, START_COST_S.get(accelerator, 1.0))

    def cpu_seconds(self, tokens: int) -> float:
        return tokens / self.cpu_tokens_per_s

    def move(self, tokens: int) -> bool:
        """True when a job of `tokens` should run on the accelerator (and every job after it)."""
        if not self.accelerator:
            return False
        return self.cpu_spent_s + self.cpu_seconds(tokens) > self.start_cost_s

    def record_cpu(self, tokens: int, seconds: float) -> None:
        """What a CPU job took: the spent time counts, and the speed estimate follows it."""
        self.cpu_spent_s += seconds
        if tokens >= 64 and seconds > 0:
            measured = tokens / seconds
            self.cpu_tokens_per_s = 0.5 * self.cpu_tokens_per_s + 0.5 * measured
