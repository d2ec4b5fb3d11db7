#!/usr/bin/env bash
# The test command: install what the tests need, then run the whole suite.
#
#   scripts/test.sh
#
# Formatting and lints (warnings denied), every Rust test (unit and integration, real LanceDB,
# real stdio and HTTP, the real minilm model), then interop checks with the official MCP
# Inspector CLI and the official Python SDK client.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$ROOT/scripts/lib.sh"
cd "$ROOT"

command -v cargo >/dev/null 2>&1 || die "cargo not found: install Rust from https://rustup.rs"
need_protoc
"$ROOT/scripts/install-ort.sh" >/dev/null
"$ROOT/scripts/install-model.sh" minilm >/dev/null
# The fp32 build of the same model: remote tests check that a worker serving other weights is refused.
"$ROOT/scripts/install-model.sh" minilm-fp32 >/dev/null
"$ROOT/scripts/install-python-tools.sh" >/dev/null
"$ROOT/scripts/install-node.sh" >/dev/null

log "cargo fmt --check"
cargo fmt --all --check
log "cargo clippy (warnings denied)"
cargo clippy --locked --workspace --all-targets -- -D warnings
log "cargo test"
# ragdownd's remote tests start real embedd processes from the workspace's binary.
cargo build --locked -p embedd --bin embedd
cargo test --locked --workspace --all-targets
log "interop: MCP Inspector CLI and the Python SDK client"
"$ROOT/tests/interop/run.sh"
log "all tests passed"
