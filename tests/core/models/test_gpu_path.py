"""The GPU path: the set-up's build choice (with a fake nvcc / nvidia-smi on PATH), the doctor's
report, the workload policy; the CUDA encode path itself where a CUDA GPU is present."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from lecturetui.cli import cli
from lecturetui.core.models.devices import WorkloadPolicy, estimate_tokens
from lecturetui.core.models.doctor import problems
from lecturetui.core.models.hardware import LlamaReport, TorchReport, backend_of, parse_nvidia_smi

ROOT = Path(__file__).resolve().parents[3]
ARGS = ROOT / "scripts" / "llama_cmake_args.sh"


def fake_bin(tmp_path: Path, gpu: str | None, nvcc: bool) -> dict[str, str]:
    """PATH with only the basics and, as asked, an nvidia-smi answering `gpu` and an nvcc."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("bash", "head", "tr", "cat", "uname", "sh"):
        target = subprocess.run(["which", tool], capture_output=True, text=True).stdout.strip()
        if target:
            (bin_dir / tool).symlink_to(target)
    if gpu is not None:
        smi = bin_dir / "nvidia-smi"
        smi.write_text(f"#!/bin/sh\necho '{gpu}'\n")
        smi.chmod(0o755)
    if nvcc:
        tool = bin_dir / "nvcc"
        tool.write_text("#!/bin/sh\necho fake nvcc\n")
        tool.chmod(0o755)
    # no CMAKE_ARGS; CUDA_HOME points nowhere, so a toolkit in /usr/local/cuda is not found
    return {"PATH": str(bin_dir), "CUDA_HOME": str(tmp_path / "no-cuda")}


def cmake_args(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(ROOT / "scripts" / "llama_cmake_args.sh")],
        capture_output=True, text=True, env=env, check=True,
    )  # fmt: skip


def test_a_gpu_and_nvcc_build_cuda_for_that_gpu_only(tmp_path: Path) -> None:
    done = cmake_args(fake_bin(tmp_path, "NVIDIA GeForce RTX 4060 Laptop GPU, 8.9", nvcc=True))
    assert "-DGGML_CUDA=on" in done.stdout
    assert "-DCMAKE_CUDA_ARCHITECTURES=89" in done.stdout
    assert f"-DCMAKE_CUDA_COMPILER={tmp_path / 'bin' / 'nvcc'}" in done.stdout
    assert done.stderr == ""


def test_a_gpu_without_nvcc_builds_for_the_cpu_and_says_how_to_enable_it(tmp_path: Path) -> None:
    done = cmake_args(fake_bin(tmp_path, "NVIDIA GeForce RTX 3050, 8.6", nvcc=False))
    assert "GGML_CUDA" not in done.stdout
    assert "RTX 3050" in done.stderr and "nvcc" in done.stderr
    assert 'CMAKE_ARGS="-DGGML_CUDA=on -DCMAKE_CUDA_ARCHITECTURES=86"' in done.stderr


def test_nvcc_without_a_gpu_builds_for_the_cpu(tmp_path: Path) -> None:
    # a build server or CI machine: CUDA's compiler, no GPU (nvidia-smi absent or failing)
    done = cmake_args(fake_bin(tmp_path, None, nvcc=True))
    assert done.stdout.strip() == "-DLLAVA_BUILD=OFF"
    assert done.stderr == ""


def test_cmake_args_given_by_the_user_are_kept(tmp_path: Path) -> None:
    env = fake_bin(tmp_path, "NVIDIA H100 80GB HBM3, 9.0", nvcc=True)
    env["CMAKE_ARGS"] = "-DGGML_VULKAN=on"
    assert cmake_args(env).stdout.strip() == "-DGGML_VULKAN=on"


def test_nvidia_smi_rows_are_parsed() -> None:
    gpus = parse_nvidia_smi("NVIDIA H100 80GB HBM3, 81559, 80123, 9.0\nbroken line\n")
    assert len(gpus) == 1
    assert (gpus[0].name, gpus[0].total_mib, gpus[0].free_mib) == (
        "NVIDIA H100 80GB HBM3",
        81559,
        80123,
    )
    assert gpus[0].cuda_arch == "90"


def test_llama_backend_is_read_from_its_system_info() -> None:
    assert backend_of("CUDA : ARCHS = 900 | USE_GRAPHS = 1 | CPU : SSE3 = 1", True) == "CUDA"
    assert backend_of("Metal : EMBED_LIBRARY = 1 | CPU : NEON = 1", True) == "Metal"
    assert backend_of("CPU : SSE3 = 1 | AVX2 = 1", False) == "CPU"


def test_problems_say_why_a_gpu_is_not_used() -> None:
    gpus = parse_nvidia_smi("NVIDIA GeForce RTX 4060, 8188, 7000, 8.9")
    cpu_torch = TorchReport("2.13.0+cpu", "", False, False)
    cpu_llama = LlamaReport("0.3.36", "CPU", False, "CPU : AVX2 = 1")
    found = problems(gpus, "", cpu_torch, cpu_llama)
    assert len(found) == 2
    assert "torch" in found[0] and "download.pytorch.org" in found[0]
    assert "nvcc" in found[1] and "GGML_CUDA=on" in found[1]
    with_nvcc = problems(gpus, "/usr/local/cuda/bin/nvcc", cpu_torch, cpu_llama)
    assert "make setup" in with_nvcc[1]
    cuda_torch = TorchReport("2.11.0+cu130", "13.0", True, False)
    cuda_llama = LlamaReport("0.3.36", "CUDA", True, "CUDA : ARCHS = 890")
    assert problems(gpus, "/usr/bin/nvcc", cuda_torch, cuda_llama) == []
    assert problems([], "", cpu_torch, cpu_llama) == []  # no GPU: nothing to fix


def test_doctor_json_without_loading_models(home: Path) -> None:
    result = CliRunner().invoke(cli, ["--home", str(home), "doctor", "--no-load", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["schema"] == 2
    assert data["embedder_device"] == "not loaded"
    assert data["llama"]["backend"] in ("CPU", "CUDA", "Metal", "Vulkan", "ROCm", "SYCL", "GPU")
    assert isinstance(data["gpus"], list)
    # the lecturer's guess is on by default exactly when llama.cpp offloads to a GPU
    assert data["guess_auto"] == data["llama"]["gpu_offload"]


def test_the_policy_moves_only_when_the_cpu_time_would_exceed_the_start() -> None:
    policy = WorkloadPolicy("cuda", start_cost_s=1.0, cpu_tokens_per_s=1000.0)
    assert not policy.move(20)  # one query: 20 ms on the CPU
    assert policy.move(5_000)  # an ingest: 5 s on the CPU
    policy.record_cpu(600, 0.6)
    assert not policy.move(300)  # 0.6 s spent + 0.3 s: still under the start
    policy.record_cpu(300, 0.3)
    assert policy.move(200)  # 0.9 s spent + 0.2 s: the GPU pays for itself from here
    assert not WorkloadPolicy("", 1.0).move(10**9)  # no accelerator, never


def test_token_estimate_grows_with_text() -> None:
    short, long = estimate_tokens(["query: o que é"]), estimate_tokens(["passage: " + "x " * 800])
    assert 0 < short < 20 < 300 < long


@pytest.mark.slow
def test_auto_stays_on_the_cpu_without_an_accelerator(e5_dir: Path) -> None:
    import torch

    from lecturetui.core.models.torch_embedder import TorchEmbedder

    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    emb = TorchEmbedder(e5_dir, device="auto")
    vectors = emb.embed_passages(["uma aula sobre redes neurais"] * 3)
    assert emb.device == "cpu" and emb.policy is None and emb.planned == "cpu"
    assert vectors.shape == (3, emb.dim)


cuda = pytest.mark.skipif(
    os.environ.get("LECTURETUI_NO_CUDA") == "1"
    or not __import__("importlib").util.find_spec("torch")
    or not __import__("torch").cuda.is_available(),
    reason="needs a CUDA GPU",
)


@pytest.mark.cuda
@cuda
def test_cuda_pipelined_vectors_match_the_plain_encode(e5_dir: Path) -> None:
    from lecturetui.core.models.torch_embedder import TorchEmbedder

    texts = [("aula sobre gradiente " * (i % 40 + 1)).strip() for i in range(300)]
    cpu = TorchEmbedder(e5_dir, device="cpu").embed_passages(texts[:40])
    emb = TorchEmbedder(e5_dir, device="auto")
    emb.use_accelerator()
    assert emb.device == "cuda" and emb.dtype == "float16"
    gpu = emb.embed_passages(texts)
    assert gpu.shape == (300, emb.dim)
    cos = np.sum(cpu * gpu[:40], axis=1)
    assert float(cos.min()) > 0.999
