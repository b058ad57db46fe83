#!/usr/bin/env bash
# Prints the CMAKE_ARGS that build llama-cpp-python for this machine's GPU, and says on stderr,
# once, why the GPU is not used when one is here but cannot be built for.
#   - CMAKE_ARGS already set: kept as given (the user knows best).
#   - macOS: Metal is llama.cpp's default there.
#   - an NVIDIA GPU that answers nvidia-smi AND CUDA's compiler (nvcc): CUDA, for this GPU's
#     architecture only (minutes to build instead of most of an hour for every architecture).
#     nvcc without a GPU (a build server) builds for the CPU: a CUDA build needs the driver's
#     libcuda to even import.
#   - an NVIDIA GPU without nvcc: the CPU, and the exact command that enables the GPU later.
set -euo pipefail
base="-DLLAVA_BUILD=OFF"
if [ -n "${CMAKE_ARGS:-}" ]; then
  echo "$CMAKE_ARGS"
  exit 0
fi
if [ "$(uname -s)" = "Darwin" ]; then
  echo "$base"
  exit 0
fi
gpu=""
if command -v nvidia-smi >/dev/null 2>&1; then
  gpu="$(nvidia-smi --query-gpu=name,compute_cap --format=csv,noheader 2>/dev/null | head -n 1 || true)"
fi
if [ -z "$gpu" ]; then
  echo "$base"
  exit 0
fi
name="${gpu%%,*}"
cap="$(echo "${gpu#*,}" | tr -d ' .')"
nvcc="$(command -v nvcc 2>/dev/null || true)"
root="${CUDA_HOME:-/usr/local/cuda}"  # where the toolkit lives when nvcc is not on PATH
if [ -z "$nvcc" ] && [ -x "$root/bin/nvcc" ]; then
  nvcc="$root/bin/nvcc"
fi
if [ -z "$nvcc" ]; then
  cat >&2 <<MSG
An NVIDIA GPU ($name) is here but CUDA's compiler (nvcc) is not, so llama.cpp is built for the
CPU and answers will not use the GPU. To use it, install the CUDA toolkit, then run:
  CMAKE_ARGS="-DGGML_CUDA=on -DCMAKE_CUDA_ARCHITECTURES=${cap:-native}" .venv/bin/pip install --force-reinstall --no-deps --no-cache-dir llama-cpp-python
MSG
  echo "$base"
  exit 0
fi
case "$cap" in
  '' | *[!0-9]*) arch="native" ;;
  *) arch="$cap" ;;
esac
echo "$base -DGGML_CUDA=on -DCMAKE_CUDA_ARCHITECTURES=$arch -DCMAKE_CUDA_COMPILER=$nvcc"
