#!/usr/bin/env bash
# The moment check's speed on the GPU machine, in one device call carrying .gpucheck/ (filled
# by bench/gpu_check_stage.py): install the wheels, build llama-cpp-python from its sdist for
# CUDA, build the answer model's stand-in (bench/gguf_standin.py), time the check
# (bench/gpu_check.py: figures to $OUT/gpu_check.json), `doctor --no-load`. Run from the
# repository root there:
#   bash bench/gpu_check.sh
# For a dry run elsewhere: GPU_CHECK_DRY=1 skips the CUDA build (the python's own llama_cpp is
# used and no GPU is required); GPU_PYTHON (python3), GPU_SITE (/tmp/site) and GPU_WORK
# (/tmp/gpucheck) point elsewhere; GPU_CHECK_REPS (20) sets the timed repetitions.
set -euo pipefail
export PYTHONUNBUFFERED=1
REPO=$PWD
PY=${GPU_PYTHON:-python3}
SITE=${GPU_SITE:-/tmp/site}
W=${GPU_WORK:-/tmp/gpucheck}
DRY=${GPU_CHECK_DRY:-0}
STAGE=$REPO/.gpucheck
MODEL=$W/answer-standin.gguf
out=${OUT:-$W/out}
START=$EPOCHREALTIME
TIMES=""

trap 'echo "FAILED (line $LINENO): $BASH_COMMAND" >&2' ERR
trap 'rm -f "$MODEL"' EXIT
fail() { echo "FAILED: $*" >&2; exit 1; }
secs() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }
step() { echo "== [$(secs "$START") s] $*"; T=$EPOCHREALTIME; NAME=$1; }
done_step() { TIMES+="| $NAME | $(secs "$T") s |"$'\n'; echo "   $NAME: $(secs "$T") s"; }

mkdir -p "$W" "$SITE" "$out"
export PYTHONPATH=$SITE:$REPO/src

step facts
ls "$STAGE"/llama_cpp_python-*.tar.gz "$STAGE"/answer.skel "$STAGE"/whl/*.whl >/dev/null \
  || fail ".gpucheck/ is incomplete: run bench/gpu_check_stage.py and carry .gpucheck"
nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv,noheader \
  || echo "no nvidia-smi"
{ nvcc --version || /usr/local/cuda/bin/nvcc --version; } 2>/dev/null | tail -n 2 || echo "no nvcc"
echo "$($PY --version) at $(command -v "$PY"); $(nproc) cores; dry run: $DRY"
done_step

step wheels
$PY -m pip install -q --no-index --no-deps --no-compile --upgrade --target "$SITE" "$STAGE"/whl/*.whl
done_step

step build
if [ "$DRY" = 1 ]; then
  echo "   dry run: no build; $PY's own llama_cpp is used"
else
  args=$(bash scripts/llama_cmake_args.sh)
  echo "   CMAKE_ARGS=$args"
  case $args in *GGML_CUDA=on*) ;; *) fail "no CUDA build arguments (nvidia-smi or nvcc missing?)" ;; esac
  log=$W/llama_build.log
  CMAKE_ARGS="$args" CMAKE_BUILD_PARALLEL_LEVEL=16 $PY -m pip install -v --no-index --no-deps \
    --no-build-isolation --upgrade --target "$SITE" "$STAGE"/llama_cpp_python-*.tar.gz >"$log" 2>&1 &
  pid=$!
  i=0
  while kill -0 $pid 2>/dev/null; do  # progress: ninja's [done/total] every 30 s
    sleep 2
    i=$((i + 1))
    if [ $((i % 15)) = 0 ]; then
      echo "   [$(secs "$START") s] building: $(grep -o '\[[0-9]*/[0-9]*\]' "$log" | tail -n 1)"
    fi
  done
  rc=0
  wait $pid || rc=$?
  gzip -c "$log" >"$out/llama_build.log.gz"
  if [ $rc != 0 ]; then
    tail -n 40 "$log"
    fail "building llama-cpp-python (pip exit $rc; the log: llama_build.log.gz)"
  fi
fi
$PY -c "import llama_cpp as l; print('   llama-cpp-python', l.__version__, 'from', l.__file__, 'gpu offload:', l.llama_supports_gpu_offload())"
if [ "$DRY" != 1 ]; then
  $PY -c "import llama_cpp, sys; sys.exit(not llama_cpp.llama_supports_gpu_offload())" \
    || fail "the build has no GPU offload"
fi
done_step

step standin
$PY bench/gguf_standin.py build "$STAGE/answer.skel" "$MODEL"
ls -l "$MODEL"
done_step

step check
require=--require-gpu
[ "$DRY" = 1 ] && require=""
$PY -X faulthandler bench/gpu_check.py --model "$MODEL" --reps "${GPU_CHECK_REPS:-20}" --out "$out/gpu_check.json" $require 2>&1 | tee "$out/gpu_check.md" || echo "   gpu_check failed"
done_step

step doctor
$PY -m lecturetui --home "$W/home" doctor --no-load || echo "   doctor failed (not needed for the figures)"
done_step

echo
echo "| step | wall |"
echo "|---|---|"
echo -n "$TIMES"
echo "| all | $(secs "$START") s |"
