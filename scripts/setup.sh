#!/usr/bin/env bash
# Creates .venv and installs lecturetui into it; idempotent (skips when nothing changed).
# Usage: scripts/setup.sh [dev]
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
echo "Installing lecturetui${extra:+ with its $extra tools}…"
pipi -e "$target"
.venv/bin/python -c "import lecturetui" || { echo "set-up failed: lecturetui does not import" >&2; exit 1; }
echo "$want" > "$stamp"
