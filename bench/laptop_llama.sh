#!/usr/bin/env bash
# llama.cpp as a student's laptop runs it: built for AVX2 at most (no AVX-512, no AVX-VNNI), into
# bench/.laptop/llama/, which bench/cold_start.py --profiles laptop puts first on the answer
# model's path. Once; about ten minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(.venv/bin/python -c "import llama_cpp; print(llama_cpp.__version__)")
out=bench/.laptop/llama
if [ -f "$out/llama_cpp/__init__.py" ] && grep -q "$version" "$out/VERSION" 2>/dev/null; then
    echo "$out: llama-cpp-python $version for AVX2, already built"; exit 0
fi
rm -rf "$out"
CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON \
-DGGML_BMI2=ON -DGGML_AVX_VNNI=OFF -DGGML_AVX512=OFF -DGGML_AVX512_VBMI=OFF \
-DGGML_AVX512_VNNI=OFF -DGGML_AVX512_BF16=OFF -DGGML_CUDA=OFF" \
  .venv/bin/pip install --no-deps --no-cache-dir --target "$out" "llama-cpp-python==$version"
echo "$version" > "$out/VERSION"
