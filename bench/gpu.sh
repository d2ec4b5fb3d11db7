#!/usr/bin/env bash
# embedd's benchmark on a machine with an NVIDIA GPU: installs PyPI's onnxruntime-gpu (with the
# CUDA 12 and cuDNN 9 runtime wheels) into its own venv, builds release, and runs
# bench/run-embedd.sh with --provider cuda, so both embedd and the raw Python baseline use the
# GPU. Prints the figures and appends them to bench/results/<date>-embedd.jsonl.
#
#   bench/gpu.sh                       # THREADS, CONCURRENCY, RUNS, MODEL as in run-embedd.sh
#
# Not yet run: no GPU has been lent to this project's machines so far.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$ROOT/scripts/lib.sh"

GPU_VENV=${GPU_VENV:-$RAGDOWN_CACHE/venv-gpu}
command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader >&2 \
    || log "warning: nvidia-smi not found; CUDA may not be usable"

if [ ! -x "$GPU_VENV/bin/python" ]; then
    "$PYTHON" -m venv "$GPU_VENV"
fi
# The [cuda,cudnn] extras pull the CUDA runtime, cuBLAS, cuFFT, cuRAND and cuDNN wheels, so no
# system CUDA toolkit is needed; only the NVIDIA driver.
"$GPU_VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
    "onnxruntime-gpu[cuda,cudnn]==$ORT_VERSION" "tokenizers==0.23.3" "numpy==2.4.6" >&2

SITE=$("$GPU_VENV/bin/python" -c 'import onnxruntime, os; print(os.path.dirname(os.path.dirname(onnxruntime.__file__)))')
ORT_LIB=$(ls "$SITE"/onnxruntime/capi/libonnxruntime.so.* | head -1)
[ -f "$ORT_LIB" ] || die "no libonnxruntime.so.* in $SITE/onnxruntime/capi"
[ -f "$SITE/onnxruntime/capi/libonnxruntime_providers_cuda.so" ] || die "the onnxruntime-gpu wheel has no CUDA provider"
# The Rust binary does not run onnxruntime's Python preloading: put the NVIDIA wheels' libraries
# on the loader path instead.
NVIDIA_LIBS=$(find "$SITE/nvidia" -maxdepth 2 -type d -name lib 2>/dev/null | tr '\n' ':')
export LD_LIBRARY_PATH="${NVIDIA_LIBS}${LD_LIBRARY_PATH:-}"
"$GPU_VENV/bin/python" -c 'import onnxruntime as o; o.preload_dlls(); print("onnxruntime", o.__version__, o.get_available_providers())' >&2

export ORT_DYLIB_PATH=$ORT_LIB
export VPY=$GPU_VENV/bin/python
export PROVIDER=cuda
export LABEL=${LABEL:-$(uname -n)-cuda}
# A GPU wants more work in flight and bigger batches than the 2-core CPU default.
export CONCURRENCY=${CONCURRENCY:-16}
export EMBEDD_MAX_BATCH_TOKENS=${EMBEDD_MAX_BATCH_TOKENS:-8192}
export EMBEDD_MAX_BATCH_SIZE=${EMBEDD_MAX_BATCH_SIZE:-128}
exec "$ROOT/bench/run-embedd.sh"
