#!/usr/bin/env bash
# Install the ONNX Runtime shared library that ragdownd and embedd load at run time.
#
#   scripts/install-ort.sh            # prints the library's full path on stdout
#
# Source: PyPI's official `onnxruntime==$ORT_VERSION` wheel (CPU build) for this platform. Only
# the shared library is kept, under $ORT_DIR/lib/ (default
# ~/.cache/ragdown/onnxruntime/<version>/lib/), with its full versioned file name
# (libonnxruntime.so.1.32.0): ort's `init_from` needs that exact name, the wheel ships no
# unversioned link. Point ragdownd/embedd at the printed path, or let them find it there.
#
# A second run finds the library in place and only prints its path.
#
# macOS: the wheel ships `onnxruntime/capi/libonnxruntime.<version>.dylib` (name checked in the
# 1.32.0 macosx_14_0_arm64 wheel); the code below handles it, but it is best effort: this script
# has not been run on a Mac.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

LIB_NAME=$(ort_lib_name)
LIB_PATH="$ORT_DIR/lib/$LIB_NAME"

# is_shared_object FILE : true when FILE is an ELF shared object (ET_DYN) or, on macOS, a
# Mach-O dynamic library (MH_DYLIB).
is_shared_object() {
    "$PYTHON" - "$1" <<'PY'
import struct, sys
with open(sys.argv[1], "rb") as f:
    head = f.read(20)
if head[:4] == b"\x7fELF":
    endian = "<" if head[5] == 1 else ">"
    (e_type,) = struct.unpack(endian + "H", head[16:18])
    sys.exit(0 if e_type == 3 else 1)  # ET_DYN
if head[:4] in (b"\xcf\xfa\xed\xfe", b"\xce\xfa\xed\xfe"):  # Mach-O 64/32, little-endian
    (filetype,) = struct.unpack("<I", head[12:16])
    sys.exit(0 if filetype == 6 else 1)  # MH_DYLIB
sys.exit(1)
PY
}

if [ -f "$LIB_PATH" ] && is_shared_object "$LIB_PATH"; then
    log "ONNX Runtime $ORT_VERSION already installed"
    echo "$LIB_PATH"
    exit 0
fi

command -v "$PYTHON" >/dev/null 2>&1 || die "$PYTHON not found (needed to download the wheel from PyPI)"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/ragdown-ort.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

log "downloading onnxruntime==$ORT_VERSION from PyPI"
"$PYTHON" -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
    -d "$WORK/wheel" "onnxruntime==$ORT_VERSION" >&2 \
    || die "pip could not download onnxruntime==$ORT_VERSION for this platform and Python ($("$PYTHON" --version 2>&1))"

WHEELS=("$WORK"/wheel/onnxruntime-*.whl)
WHEEL=${WHEELS[0]}
[ -f "$WHEEL" ] || die "no onnxruntime wheel in $WORK/wheel"
log "wheel: $(basename "$WHEEL")"

# Extract the library (and the tiny providers_shared helper, which execution providers other
# than CPU load from the same directory) into a staging dir beside the target, then rename it
# into place so an interrupted run never leaves half a library.
mkdir -p "$(dirname "$ORT_DIR")"
STAGE=$(mktemp -d "$(dirname "$ORT_DIR")/.staging-$ORT_VERSION.XXXXXX")
trap 'rm -rf "$WORK" "$STAGE"' EXIT
chmod 755 "$STAGE"   # mktemp makes it 0700
mkdir -p "$STAGE/lib"
"$PYTHON" - "$WHEEL" "$STAGE/lib" "$LIB_NAME" <<'PY'
import os, shutil, sys, zipfile
wheel, dest, want = sys.argv[1:4]
found = False
with zipfile.ZipFile(wheel) as z:
    for info in z.infolist():
        name = info.filename
        if not name.startswith("onnxruntime/capi/"):
            continue
        base = os.path.basename(name)
        keep = base == want or (base.startswith("libonnxruntime_providers_shared"))
        if not keep:
            continue
        with z.open(info) as src, open(os.path.join(dest, base), "wb") as dst:
            shutil.copyfileobj(src, dst)
        os.chmod(os.path.join(dest, base), 0o755)
        found = found or base == want
if not found:
    libs = [i.filename for i in zipfile.ZipFile(wheel).infolist() if "libonnxruntime" in i.filename]
    sys.exit(f"{want} not in the wheel; it has: {libs}")
PY

is_shared_object "$STAGE/lib/$LIB_NAME" || die "$LIB_NAME from the wheel is not a shared library"
sync "$STAGE/lib/$LIB_NAME" 2>/dev/null || sync

rm -rf "$ORT_DIR"
mv "$STAGE" "$ORT_DIR"
log "installed ONNX Runtime $ORT_VERSION ($(du -h "$LIB_PATH" | cut -f1))"
echo "$LIB_PATH"
