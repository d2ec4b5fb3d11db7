#!/usr/bin/env bash
# The libraries of the embedd-cuda image: ONNX Runtime's CUDA build and the CUDA and cuDNN
# libraries it loads, all from PyPI (`onnxruntime-gpu[cuda,cudnn]` at scripts/lib.sh's
# ORT_GPU_VERSION with NVIDIA's runtime wheels: CUDA 13 and cuDNN 9 for 1.31), gathered into one
# folder, so that the image needs nothing from the host but its NVIDIA driver (libcuda).
#
#   docker/cuda-libs.sh DEST      # install into a throwaway venv and copy the libraries to DEST
#   docker/cuda-libs.sh --check   # resolve the pinned requirement on PyPI, installing nothing
#                                 # (the test command: a broken pin fails there, not in a build)
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib.sh"
DEST=${1:?usage: cuda-libs.sh DEST | --check}
REQUIREMENT="onnxruntime-gpu[cuda,cudnn]==$ORT_GPU_VERSION"

if [ "$DEST" = --check ]; then
    # Resolution only: pip reads the wheels' metadata, downloads none of them.
    REPORT=$("$PYTHON" -m pip install --dry-run --quiet --ignore-installed --only-binary=:all: \
        --no-warn-conflicts --report - "$REQUIREMENT") || die "pip cannot resolve $REQUIREMENT"
    echo "$REPORT" | "$PYTHON" -c '
import json, sys
names = {item["metadata"]["name"].lower() for item in json.load(sys.stdin)["install"]}
for need in ("onnxruntime-gpu", "nvidia-cudnn", "nvidia-cublas", "nvidia-cuda-runtime"):
    if not any(name == need or name.startswith(need + "-cu") for name in names):
        sys.exit(f"{need} is not among what {sys.argv[1]} installs: {sorted(names)}")
cudnn = [name for name in names if name.startswith("nvidia-cudnn")]
print(f"{sys.argv[1]} resolves, with {cudnn[0]}")
' "$REQUIREMENT"
    exit 0
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/ragdown-cuda.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
"$PYTHON" -m venv "$WORK/venv"
"$WORK/venv/bin/pip" install --quiet --no-cache-dir --disable-pip-version-check "$REQUIREMENT"
SITE=$(echo "$WORK"/venv/lib/python3*/site-packages)
mkdir -p "$DEST"
cp -a "$SITE"/onnxruntime/capi/lib*.so* "$SITE"/nvidia/*/lib/lib*.so* "$DEST/"
ln -sf "libonnxruntime.so.$ORT_GPU_VERSION" "$DEST/libonnxruntime.so"
# What ONNX Runtime's CUDA provider never loads: the TensorRT provider (TensorRT is not shipped)
# and the BLAS and FFTW front ends of cuBLAS and cuFFT.
rm -f "$DEST"/libonnxruntime_providers_tensorrt.so "$DEST"/libnvblas.so* "$DEST"/libcufftw.so*
[ -f "$DEST/libonnxruntime_providers_cuda.so" ] || die "no CUDA provider library in $REQUIREMENT"
log "gathered $(find "$DEST" -maxdepth 1 -name '*.so*' | wc -l) libraries into $DEST ($(du -sh "$DEST" | cut -f1))"
