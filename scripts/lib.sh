# shellcheck shell=bash
# Shared settings and helpers for the ragdown set-up scripts. Source it, don't run it:
#
#   . "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
#
# Everything the scripts install lives under $RAGDOWN_CACHE (default ~/.cache/ragdown), never in
# the repository. Override any of the variables below from the environment.

RAGDOWN_CACHE=${RAGDOWN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ragdown}
# Cargo's build output goes to the cache too, so the checkout stays small.
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$RAGDOWN_CACHE/target}
RAGDOWN_MODELS=${RAGDOWN_MODELS:-$RAGDOWN_CACHE/models}

# ONNX Runtime release whose shared library ragdownd/embedd load at run time (ort `load-dynamic`,
# api-22: accepts libraries from 1.22 on). Taken from PyPI's official `onnxruntime` wheel; the
# Python tools (golden_vectors.py) use the same version so both sides run the same kernels.
ORT_VERSION=${ORT_VERSION:-1.32.0}
ORT_DIR=${ORT_DIR:-$RAGDOWN_CACHE/onnxruntime/$ORT_VERSION}
# The CUDA build for the embedd-cuda image (docker/cuda-libs.sh): PyPI's `onnxruntime-gpu`, whose
# releases trail the CPU wheel's (1.32.0 has none); ort's api-22 loads either.
ORT_GPU_VERSION=${ORT_GPU_VERSION:-1.31.1}

# Python virtual environment for the helper tools (onnxruntime, tokenizers, numpy, mcp).
RAGDOWN_VENV=${RAGDOWN_VENV:-$RAGDOWN_CACHE/venv}

PYTHON=${PYTHON:-python3}

# Node 22 (from npm's `node-linux-<arch>` package) and the MCP Inspector, for interop tests.
# install-node.sh writes two wrappers into $RAGDOWN_BIN: `node22` and `mcp-inspector`
# (the Inspector's launcher under Node 22: `mcp-inspector --cli <server...> --method tools/list`).
NODE_VERSION=${NODE_VERSION:-22.23.5}
INSPECTOR_VERSION=${INSPECTOR_VERSION:-2.12.0}
NODE22_DIR=${NODE22_DIR:-$RAGDOWN_CACHE/node22}
INSPECTOR_DIR=${INSPECTOR_DIR:-$RAGDOWN_CACHE/inspector}
RAGDOWN_BIN=${RAGDOWN_BIN:-$RAGDOWN_CACHE/bin}

# log MESSAGE... : one line on stderr, prefixed with the calling script's name.
log() {
    printf '[%s] %s\n' "$(basename "${0:-ragdown}")" "$*" >&2
}

# die MESSAGE... : log and exit 1.
die() {
    log "error: $*"
    exit 1
}

# wait_for_embedd PID LOG : wait until the embedd process PID says in LOG that it serves; show
# LOG and exit when it dies first or has not started within a minute.
wait_for_embedd() {
    for _ in $(seq 1 600); do
        grep -q "embedd serving" "$2" && return 0
        kill -0 "$1" 2>/dev/null || { cat "$2" >&2; die "embedd did not start ($2)"; }
        sleep 0.1
    done
    die "embedd did not start within a minute ($2)"
}

# as_root CMD... : run CMD as root (directly when we are root, else through sudo when it exists
# is installed; it may prompt for a password). Returns 127 when neither is possible.
as_root() {
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        sudo "$@"
    else
        return 127
    fi
}

# apt_install PACKAGE PROBLEM ELSEWHERE : installs Debian's PACKAGE, which fixes PROBLEM (a
# phrase: "protoc not found"), when we can (root or sudo, apt-get); otherwise exits with the exact
# command for the user to run, and ELSEWHERE (how to fix it on other systems).
apt_install() {
    local cmd="apt-get update && apt-get install -y $1"
    if ! command -v apt-get >/dev/null 2>&1; then
        die "$2. Install it (Debian/Ubuntu: $cmd; $3)."
    fi
    if [ "$(id -u)" -ne 0 ] && ! command -v sudo >/dev/null 2>&1; then
        die "$2 and neither root nor sudo is available. Run as root: $cmd"
    fi
    log "$2; installing Debian's $1"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q >&2 \
        || die "apt-get update failed. Run as root: $cmd"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$1" >&2 \
        || die "installing $1 failed. Run as root: $cmd"
}

# need_command CMD PACKAGE ELSEWHERE : make sure CMD is on PATH, installing Debian's PACKAGE as
# apt_install does.
need_command() {
    if command -v "$1" >/dev/null 2>&1; then
        return 0
    fi
    apt_install "$2" "$1 not found" "$3"
    command -v "$1" >/dev/null 2>&1 || die "$1 still not on PATH after installing $2"
}

# need_protoc : the Protocol Buffers compiler, which the proto/ crate's build script needs.
need_protoc() {
    need_command protoc protobuf-compiler "macOS: brew install protobuf; or set PROTOC=/path/to/protoc"
    # LanceDB's build also needs protobuf's own .proto files (google/protobuf/empty.proto ...).
    # Debian ships them in libprotobuf-dev, which apt adds to protoc only as a recommendation, so
    # an install without recommends (a Docker build) has protoc without them.
    protoc_has_well_known_types && return 0
    apt_install libprotobuf-dev "protoc cannot find google/protobuf/empty.proto" "macOS: brew install protobuf"
    protoc_has_well_known_types || die "protoc still cannot find google/protobuf/empty.proto"
}

# protoc_has_well_known_types : true when protoc compiles a file importing one of protobuf's own.
protoc_has_well_known_types() {
    local dir ok=0
    dir=$(mktemp -d "${TMPDIR:-/tmp}/ragdown-protoc.XXXXXX")
    printf 'syntax = "proto3";\nimport "google/protobuf/empty.proto";\n' >"$dir/probe.proto"
    "${PROTOC:-protoc}" --proto_path="$dir" -o /dev/null "$dir/probe.proto" 2>/dev/null || ok=1
    rm -rf "$dir"
    return "$ok"
}

# sha256_of FILE : print the file's sha256 in hex.
sha256_of() {
    if command -v sha256sum >/dev/null 2>&1; then
        sha256sum "$1" | cut -d' ' -f1
    else
        shasum -a 256 "$1" | cut -d' ' -f1   # macOS
    fi
}

# use_node22 : Node 22 first on PATH (installed when missing), for npm22.
use_node22() {
    "$(dirname "${BASH_SOURCE[0]}")/install-node.sh" --node-only >/dev/null
    NODE_BIN=$(dirname "$(readlink -f "$("$RAGDOWN_BIN/node22" -p process.execPath)")")
    export PATH="$NODE_BIN:$PATH"
    NPM_CLI="$(dirname "$(readlink -f "$(command -v npm)")")/npm-cli.js"
}

# npm22 ARGS... : npm under Node 22 (after use_node22).
npm22() {
    node "$NPM_CLI" "$@"
}

# npm_ci_when_changed DIR WHAT : `npm ci` in DIR (after use_node22) when its package-lock.json
# changed since the last install there; npm ci wipes node_modules, so it is not run for nothing.
npm_ci_when_changed() {
    local stamp="$1/node_modules/.ragdown-lock.sha256" want
    want=$(sha256_of "$1/package-lock.json")
    if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
        log "installing $2 (npm ci)"
        (cd "$1" && npm22 ci --no-audit --no-fund --loglevel=error >&2)
        echo "$want" > "$stamp"
    fi
}

# ort_lib_name : the versioned file name of the ONNX Runtime shared library in the wheel.
ort_lib_name() {
    case "$(uname -s)" in
        Darwin) echo "libonnxruntime.${ORT_VERSION}.dylib" ;;
        *) echo "libonnxruntime.so.${ORT_VERSION}" ;;
    esac
}

# ort_lib_path : where install-ort.sh puts that library.
ort_lib_path() {
    echo "$ORT_DIR/lib/$(ort_lib_name)"
}

# fastest_minilm : the build of minilm the run command installs on this CPU. On x86-64 the fp32
# weights embed faster than the published int8 file: 1.3-1.4x on an AVX-512 CPU
# (bench/results/2026-11-30-fp32.md) and 1.12-1.18x on an AVX2 one (2026-12-01, same binary, same
# run; bench/results/README.md). Those are the only kinds of CPU where the two were measured, so
# elsewhere it keeps the int8 file, which is also the smaller download.
fastest_minilm() {
    if [ "$(uname -m)" = x86_64 ] && grep -qw avx2 /proc/cpuinfo 2>/dev/null; then
        echo minilm-fp32
    else
        echo minilm
    fi
}

# build_ragdown_bench : builds bench/'s ragdown-bench with the cargo profile $PROFILE and sets BENCH
# to its path. A release build goes to $RAGDOWN_CACHE/target-release (it takes far longer than the
# dev one and must not evict the test command's cache); dev uses $CARGO_TARGET_DIR.
# shellcheck disable=SC2034 # BENCH is for the scripts that source this file
build_ragdown_bench() {
    if [ "$PROFILE" = release ]; then
        export CARGO_TARGET_DIR="$RAGDOWN_CACHE/target-release"
        BENCH="$CARGO_TARGET_DIR/release/ragdown-bench"
    else
        BENCH="$CARGO_TARGET_DIR/debug/ragdown-bench"
    fi
    (cd "$(dirname "${BASH_SOURCE[0]}")/.." && cargo build --locked --profile "$PROFILE" -p bench --bin ragdown-bench)
}
