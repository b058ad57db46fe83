#!/usr/bin/env bash
# bench/cold_start.py on the GPU machine, in one device call carrying .coldgpu/ (filled by
# bench/cold_gpu_stage.py): install the wheels, build hnswlib and llama-cpp-python (CUDA, the
# set-up's arguments) while the three models' stand-ins are made, then run the faces one at a
# time (search, ask, ingest, app), pass after pass while the time lasts, against the staged
# snapshot of src/. Run from the repository root there:
#   bash bench/cold_gpu.sh
# Output under $OUT: cold_start.md (each face's table as it finishes), run.log (everything),
# ask_example.txt (one answer as printed), llama_build.log.gz.
# COLD_GPU_SECONDS (500): no face starts that could not end before this many seconds from the
# start. COLD_GPU_DRY=1: a dry run elsewhere, in a copy of the checkout whose .venv is a working
# one: no wheels, no builds (the venv's own packages), the stand-ins made all the same.
# COLD_GPU_ARGS: more arguments for cold_start.py (a dry run on a CPU: --runtime torch);
# COLD_GPU_FACES: the faces (default "search ask ingest app"; also "summary"; empty: only the
# printed answer).
set -uo pipefail
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1
REPO=$PWD
STAGE=$REPO/.coldgpu
DRY=${COLD_GPU_DRY:-0}
SITE=${COLD_GPU_SITE:-/tmp/coldsite}
W=${COLD_GPU_WORK:-/tmp/coldgpu}
out=${OUT:-$W/out}
LIMIT=${COLD_GPU_SECONDS:-500}
LLM=qwen2.5-coder-1.5b-instruct-q4_k_m.gguf
START=$SECONDS
mkdir -p "$W" "$SITE" "$out" "$REPO/models"
exec > >(tee -a "$out/run.log") 2>&1

say() { echo "== [$((SECONDS - START)) s] $*"; }
fail() { say "FAILED: $*"; exit 1; }
left() { echo $((LIMIT - (SECONDS - START))); }

say facts
[ -d "$STAGE/src/lecturetui" ] || fail ".coldgpu/ is incomplete: run bench/cold_gpu_stage.py and carry .coldgpu"
echo "src snapshot: $(cat "$STAGE/src/COMMIT")"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || echo "no nvidia-smi"
{ nvcc --version || /usr/local/cuda/bin/nvcc --version; } 2>/dev/null | tail -n 1 || echo "no nvcc"
if [ "$DRY" = 1 ]; then
  PY=$REPO/.venv/bin/python
else
  PY=$(command -v python3)
  # cold_start.py runs ROOT/.venv/bin/python and sets PYTHONPATH to --src: the image's python,
  # with the installed wheels after the snapshot
  mkdir -p "$REPO/.venv/bin"
  printf '#!/bin/sh\nexport PYTHONPATH="${PYTHONPATH:+$PYTHONPATH:}%s"\nexec %s "$@"\n' "$SITE" "$PY" \
    >"$REPO/.venv/bin/python"
  chmod +x "$REPO/.venv/bin/python"
fi
echo "$($PY --version) at $PY; $(nproc) cores; dry run: $DRY"
$PY -c "import torch; print('torch', torch.__version__, 'cuda', torch.cuda.is_available())"
if command -v tmux >/dev/null; then
  echo "tmux: $(tmux -V)"
elif [ -x "$STAGE/tmux/tmux" ]; then
  mkdir -p "$W/bin"
  printf '#!/bin/sh\nLD_LIBRARY_PATH=%s exec %s "$@"\n' "$STAGE/tmux" "$STAGE/tmux/tmux" >"$W/bin/tmux"
  chmod +x "$W/bin/tmux"
  export PATH=$W/bin:$PATH
  echo "tmux (carried): $(tmux -V 2>&1)"
fi

if [ "$DRY" != 1 ]; then
  say wheels
  $PY -m pip install -q --no-index --no-deps --no-compile --upgrade --target "$SITE" "$STAGE"/whl/*.whl \
    || fail "installing the wheels"
  say "builds (background): hnswlib, llama-cpp-python for CUDA"
  args=$(bash scripts/llama_cmake_args.sh)
  echo "   CMAKE_ARGS=$args"
  case $args in *GGML_CUDA=on*) ;; *) fail "no CUDA build arguments (nvidia-smi or nvcc missing?)" ;; esac
  (
    $PY -m pip install --no-index --no-deps --no-build-isolation --target "$SITE" \
      "$STAGE"/sdist/hnswlib-*.tar.gz >"$W/hnsw.log" 2>&1
    echo $? >"$W/hnsw.rc"
  ) &
  (
    CMAKE_ARGS="$args" CMAKE_BUILD_PARALLEL_LEVEL=16 $PY -m pip install -v --no-index --no-deps \
      --no-build-isolation --target "$SITE" "$STAGE"/sdist/llama_cpp_python-*.tar.gz >"$W/llama.log" 2>&1
    echo $? >"$W/llama.rc"
  ) &
fi

say "stand-ins"
MP=$REPO/models
rm -rf "$MP/multilingual-e5-small" "$MP/embeddinggemma-300m"
$PY bench/embed_standin.py build "$STAGE/models/multilingual-e5-small.skel" "$MP/multilingual-e5-small" || fail "E5 stand-in"
$PY bench/embed_standin.py build "$STAGE/models/embeddinggemma-300m.skel" "$MP/embeddinggemma-300m" || fail "EmbeddingGemma stand-in"
$PY bench/gguf_standin.py build "$STAGE/models/answer.skel" "$MP/$LLM" || fail "answer model stand-in"
cp "$STAGE/models/.lecturetui-prepared.json" "$MP/"
# the weights' sha256 cache, as the set-up leaves it (the first command would make it)
PYTHONPATH=$STAGE/src $PY -c "from pathlib import Path; from lecturetui.core.models.embedding import weights_hash as h; [print('  ', d, h(Path('$MP') / d)[:12]) for d in ('multilingual-e5-small', 'embeddinggemma-300m')]" \
  || fail "the weights' hash"
du -sh "$MP"/* | sed 's/^/   /'

if [ "$DRY" != 1 ]; then
  say "waiting for the builds"
  while [ ! -f "$W/llama.rc" ] || [ ! -f "$W/hnsw.rc" ]; do
    sleep 5
    [ $((SECONDS % 30)) -lt 5 ] && echo "   [$((SECONDS - START)) s] $(grep -o '\[[0-9]*/[0-9]*\]' "$W/llama.log" | tail -n 1)"
  done
  gzip -c "$W/llama.log" >"$out/llama_build.log.gz"
  [ "$(cat "$W/hnsw.rc")" = 0 ] || { tail -n 30 "$W/hnsw.log"; fail "hnswlib build"; }
  [ "$(cat "$W/llama.rc")" = 0 ] || { tail -n 40 "$W/llama.log"; fail "llama-cpp-python build"; }
fi
export PYTHONPATH=$STAGE/src
"$REPO/.venv/bin/python" -c "import llama_cpp as l, hnswlib; print('   llama-cpp-python', l.__version__, 'gpu offload:', l.llama_supports_gpu_offload())" \
  || fail "llama_cpp or hnswlib does not import"
say doctor
LECTURETUI_MODELS=$MP timeout 60 "$REPO/.venv/bin/python" -m lecturetui --home "$W/doctor-home" doctor --no-load || echo "   doctor failed"
unset PYTHONPATH

# one face, one run: its table appended to cold_start.md; on failure, the face's commands again
# with their output shown (cold_start.py hides it)
runs=0
face() {
  local f=$1 budget t0 rc
  budget=$(left)
  t0=$SECONDS
  say "face $f (pass $pass, $budget s left)"
  timeout "$budget" "$REPO/.venv/bin/python" bench/cold_start.py --faces "$f" --runs 1 \
    --profiles machine --src "$STAGE/src" --lecture "$STAGE/lecture.srt" ${COLD_GPU_ARGS:-} >"$W/face.md" 2>"$W/face.err"
  rc=$?
  cat "$W/face.md" "$W/face.err"
  { echo "pass $pass, $f: rc $rc, $((SECONDS - t0)) s"; echo; cat "$W/face.md"; echo; } >>"$out/cold_start.md"
  took[$f]=$((SECONDS - t0))
  if [ $rc != 0 ] && [ $rc != 124 ]; then
    diagnose "$f"
    failed[$f]=1
  fi
}

diagnose() {
  local home=$W/diag-$1
  say "diagnosis of $1"
  export PYTHONPATH=$STAGE/src LECTURETUI_MODELS=$MP LECTURETUI_LANGUAGE=en
  timeout 90 "$REPO/.venv/bin/python" -m lecturetui --home "$home" ingest examples/seed_lectures.jsonl \
    --course "Sistemas distribuídos para aprendizado profundo" 2>&1 | tail -n 20
  case $1 in
    search) timeout 60 "$REPO/.venv/bin/python" -m lecturetui --home "$home" search "O TensorFlow prioriza a execução de operações em qual dispositivo?" 2>&1 | tail -n 30 ;;
    ask | app) timeout 90 "$REPO/.venv/bin/python" -m lecturetui --home "$home" ask "O TensorFlow prioriza a execução de operações em qual dispositivo?" 2>&1 | tail -n 30 ;;
    ingest) timeout 60 "$REPO/.venv/bin/python" -m lecturetui --home "$home" ingest "$STAGE/lecture.srt" 2>&1 | tail -n 30 ;;
    summary) timeout 90 "$REPO/.venv/bin/python" -m lecturetui --home "$home" summary --all 2>&1 | tail -n 30 ;;
  esac
  unset PYTHONPATH LECTURETUI_MODELS LECTURETUI_LANGUAGE
}

declare -A took=([search]=45 [ask]=60 [ingest]=50 [summary]=60 [app]=50) failed=()
faces=${COLD_GPU_FACES-search ask ingest app}
command -v tmux >/dev/null || { faces=${faces/app/}; echo "no tmux: the app face is skipped"; }
for pass in 1 2 3; do
  for f in $faces; do
    [ -n "${failed[$f]:-}" ] && continue
    # a pass after the first only where the face fits, with a margin, in what is left
    need=$((pass == 1 ? 25 : took[$f] + 10))
    if [ "$(left)" -lt $need ]; then
      say "face $f, pass $pass: not started ($(left) s left, it needs about $need)"
      continue
    fi
    if [ $f = app ] && grep -q "lecturer's words, fresh | - " "$out/cold_start.md"; then
      say "face app: not started (ask showed no quote, so the app would wait for one in vain)"
      failed[app]=1
      continue
    fi
    face "$f"
  done
done

if [ "$(left)" -gt 25 ]; then
  say "one answer as printed (a used home)"
  home=$W/example
  export PYTHONPATH=$STAGE/src LECTURETUI_MODELS=$MP LECTURETUI_LANGUAGE=en
  timeout "$(left)" "$REPO/.venv/bin/python" -m lecturetui --home "$home" ingest examples/seed_lectures.jsonl \
    --course "Sistemas distribuídos para aprendizado profundo" >/dev/null 2>&1
  timeout "$(left)" "$REPO/.venv/bin/python" -m lecturetui --home "$home" ask \
    "O TensorFlow prioriza a execução de operações em qual dispositivo?" >"$out/ask_example.txt" 2>&1
  cat "$out/ask_example.txt"
fi
say done
