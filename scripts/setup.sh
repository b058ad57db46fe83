#!/usr/bin/env bash
# Creates .venv and installs lecturetui into it; idempotent (skips when nothing changed).
# Usage: scripts/setup.sh [dev]
set -euo pipefail
cd "$(dirname "$0")/.."
extra="${1:-}"
py="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$py" -m venv .venv
fi
stamp=.venv/.lecturetui-setup
want="$(cat pyproject.toml scripts/setup.sh | sha256sum | cut -d' ' -f1) $extra"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  exit 0
fi
.venv/bin/python -m pip install -q --upgrade pip
target="."
[ "$extra" = "dev" ] && target=".[dev]"
.venv/bin/python -m pip install -q -e "$target"
.venv/bin/python -c "import lecturetui" || { echo "set-up failed: lecturetui does not import" >&2; exit 1; }
echo "$want" > "$stamp"
