#!/bin/sh
# Points embedd at the onnxruntime-gpu wheel's library and the NVIDIA wheels' CUDA libraries.
set -eu
SITE=$(ls -d /opt/ort-gpu/lib/python3*/site-packages)
ORT_DYLIB_PATH=$(ls "$SITE"/onnxruntime/capi/libonnxruntime.so.* | head -1)
LD_LIBRARY_PATH=$(find "$SITE/nvidia" -maxdepth 2 -type d -name lib | tr '\n' ':')${LD_LIBRARY_PATH:-}
export ORT_DYLIB_PATH LD_LIBRARY_PATH
exec embedd "$@"
