#!/usr/bin/env bash
# The Docker deployment built and run for real, and checked from outside, on one machine:
#
#   docker/e2e.sh          # as root: ~50 minutes cold on 2 cores (the release build), ~5 warm
#
# 1. A Docker engine: the one running, else a private dockerd (vfs storage, no iptables, no
#    default bridge) started here and stopped at the end.
# 2. The base images, made locally when absent (docker/base-images.sh: no registry here).
# 3. Every image of docker/Dockerfile: ragdownd, embedd (CPU) and embedd-cuda. Their sizes and
#    build times are recorded. No GPU here: the CUDA image's libraries are checked with ldd, and it
#    is run on the CPU, as EMBEDD_PROVIDER=auto does on a host without one.
# 4. docker/docker-compose.cpu.yml up, on a copy of examples/vault, then from the host:
#    both services healthy; /api/status ready; the web UI at /; a ragdown_recall over /mcp/runbooks
#    with the official MCP Python SDK, with the token and refused without it; a document written on
#    the host found within seconds; `docker-compose restart` with the index kept and nothing
#    re-embedded; embedd stopped, ragdownd answering with its in-process fallback; embedd started,
#    ragdownd back on it.
# 5. Everything torn down (containers, the index volume, the private engine).
#
# Results (each check with its time and what it saw): bench/results/<date>-docker-e2e.json, or
# E2E_RESULTS. Exit 1 when any check fails. E2E_SKIP_CUDA=1 skips the CUDA image (~3 GB of wheels).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$ROOT/scripts/lib.sh"
cd "$ROOT"
RESULTS=${E2E_RESULTS:-$ROOT/bench/results/$(date -u +%F)-docker-e2e.json}
PROJECT=ragdown-e2e
COMPOSE_FILE=$ROOT/docker/docker-compose.cpu.yml

[ "$(id -u)" -eq 0 ] || die "run as root (dockerd, debootstrap)"
need_command curl curl "the checks call the HTTP API"
need_command docker-compose docker-compose "Compose 1.29 or later"
"$ROOT/scripts/install-python-tools.sh" >/dev/null
VPY=$RAGDOWN_VENV/bin/python

WORK=$(mktemp -d "${TMPDIR:-/tmp}/ragdown-e2e.XXXXXX")
DOCKERD_PID=""
CHECKS=$WORK/checks.jsonl
: >"$CHECKS"
FAILED=0

# --- the engine and a client that builds with BuildKit --------------------------------------

# A client with BuildKit: one with the buildx plugin, or one older than 23.0 (BuildKit built in,
# DOCKER_BUILDKIT=1). Docker 23+ without buildx has neither.
pick_client() {
    local candidate major
    for candidate in ${DOCKER:-docker /usr/bin/docker}; do
        command -v "$candidate" >/dev/null 2>&1 || continue
        if "$candidate" buildx version >/dev/null 2>&1; then
            echo "$candidate"
            return 0
        fi
        major=$("$candidate" version --format '{{.Client.Version}}' 2>/dev/null | cut -d. -f1 || true)
        if [ -n "$major" ] && [ "$major" -lt 23 ]; then
            echo "$candidate"
            return 0
        fi
    done
    return 1
}
need_command dockerd docker.io "the Docker engine"
DOCKER=$(pick_client) || die "no docker client that builds with BuildKit (install the buildx plugin)"
export DOCKER_BUILDKIT=1 COMPOSE_DOCKER_CLI_BUILD=1

cleanup() {
    log "tearing down"
    compose down -v --remove-orphans >/dev/null 2>&1 || true
    "$DOCKER" rm -f "$PROJECT-cuda" >/dev/null 2>&1 || true
    if [ -n "$DOCKERD_PID" ]; then
        kill "$DOCKERD_PID" 2>/dev/null || true
        for _ in $(seq 1 100); do kill -0 "$DOCKERD_PID" 2>/dev/null || break; sleep 0.2; done
    fi
    rm -rf "$WORK"
}
trap cleanup EXIT

if ! "$DOCKER" info >/dev/null 2>&1; then
    log "no Docker engine answers; starting a private dockerd"
    dockerd --storage-driver=vfs --iptables=false --bridge=none --exec-root "$WORK/exec" \
        --pidfile "$WORK/dockerd.pid" >"$WORK/dockerd.log" 2>&1 &
    DOCKERD_PID=$!
    for _ in $(seq 1 150); do "$DOCKER" info >/dev/null 2>&1 && break; sleep 0.2; done
    "$DOCKER" info >/dev/null 2>&1 || { tail -20 "$WORK/dockerd.log" >&2; die "dockerd did not start"; }
fi
DOCKER="$DOCKER" "$ROOT/docker/base-images.sh"

# --- results --------------------------------------------------------------------------------

# record NAME OK SECONDS DETAIL : one check's line in the results.
record() {
    "$VPY" -c 'import json, sys; print(json.dumps({"check": sys.argv[1], "ok": sys.argv[2] == "0", "s": round(float(sys.argv[3]), 2), "detail": sys.argv[4]}))' \
        "$1" "$2" "$3" "$4" >>"$CHECKS"
}
now() { date +%s.%N; }
since() { "$VPY" -c 'import sys, time; print(time.time() - float(sys.argv[1]))' "$1"; }

# check NAME FUNCTION : runs FUNCTION, which prints what it saw; records it, pass or fail.
check() {
    local name=$1 start out rc=0
    shift
    start=$(now)
    out=$("$@" 2>&1) || rc=$?
    record "$name" "$rc" "$(since "$start")" "$out"
    if [ "$rc" -eq 0 ]; then log "ok: $name: $out"; else log "FAILED: $name: $out"; FAILED=1; fi
}

# --- the images -----------------------------------------------------------------------------

IMAGES=$WORK/images.jsonl
: >"$IMAGES"
build() { # TARGET TAG
    local start
    start=$(now)
    log "building $2 (--target $1)"
    "$DOCKER" build --network=host -f docker/Dockerfile --target "$1" -t "$2" . >"$WORK/build-$1.log" 2>&1 \
        || { tail -30 "$WORK/build-$1.log" >&2; die "docker build --target $1 failed"; }
    "$VPY" -c 'import json, sys; print(json.dumps({"image": sys.argv[1], "target": sys.argv[2], "bytes": int(sys.argv[3]), "build_s": round(float(sys.argv[4]), 1)}))' \
        "$2" "$1" "$("$DOCKER" image inspect -f '{{.Size}}' "$2")" "$(since "$start")" >>"$IMAGES"
}
build ragdownd ragdown:latest
build embedd ragdown-embedd:latest
[ "${E2E_SKIP_CUDA:-}" = 1 ] || build embedd-cuda ragdown-embedd-cuda:latest

# --- the two services -----------------------------------------------------------------------

free_port() { "$VPY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
RAGDOWN_TOKEN=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
EMBEDD_TOKEN=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
RAGDOWN_PORT=$(free_port)
DOCS=$WORK/docs
export RAGDOWN_TOKEN EMBEDD_TOKEN RAGDOWN_PORT DOCS
cp -r "$ROOT/examples/vault" "$DOCS"
chown -R 1000:1000 "$DOCS"
BASE=http://127.0.0.1:$RAGDOWN_PORT
compose() { docker-compose -p "$PROJECT" -f "$COMPOSE_FILE" "$@"; }

status() { curl -fsS "$BASE/api/status"; }
field() { # KEY[.KEY...] : that value of the JSON on stdin, as JSON
    "$VPY" -c 'import json, sys
value = json.load(sys.stdin)
for key in sys.argv[1].split("."):
    value = value.get(key) if isinstance(value, dict) else None
print(json.dumps(value))' "$1"
}
health_of() { "$DOCKER" inspect -f '{{.State.Health.Status}}' "$(compose ps -q "$1")"; }
recall() { "$VPY" "$ROOT/docker/e2e/mcp_recall.py" "$BASE/mcp/runbooks" "$1" "$2"; }
ragdownd_log() { compose logs --no-color ragdownd 2>&1; }

wait_healthy() { # SERVICE... : both healthy within 3 minutes
    local service
    for _ in $(seq 1 180); do
        local all=1
        for service in "$@"; do [ "$(health_of "$service")" = healthy ] || all=0; done
        [ "$all" = 1 ] && { echo "$* healthy"; return 0; }
        sleep 1
    done
    for service in "$@"; do echo "$service: $(health_of "$service")"; done
    return 1
}
wait_ready() {
    for _ in $(seq 1 300); do
        [ "$(status 2>/dev/null | field ready)" = true ] && [ "$(status | field syncing)" != true ] && {
            status | field last_sync
            return 0
        }
        sleep 1
    done
    status
    return 1
}

UP_START=$(now)
log "docker-compose up ($COMPOSE_FILE, port $RAGDOWN_PORT)"
compose up -d --no-build >"$WORK/up.log" 2>&1 || { cat "$WORK/up.log" >&2; die "docker-compose up failed"; }

check "both services healthy" wait_healthy embedd ragdownd
check "/api/status ready, first index done" wait_ready
record "start-up: compose up to index ready" 0 "$(since "$UP_START")" "$(status | field files) files, $(status | field chunks) chunks, embedder $(status | field embedder)"

web_ui() {
    local page asset
    page=$(curl -fsS "$BASE/")
    grep -q '<div id="root">' <<<"$page" || { echo "no app root in: ${page:0:200}"; return 1; }
    asset=$(grep -o '/assets/[^"]*\.js' <<<"$page" | head -1)
    curl -fsS -o /dev/null -D "$WORK/asset.headers" "$BASE$asset" || { echo "$asset did not load"; return 1; }
    grep -qi '^cache-control:.*immutable' "$WORK/asset.headers" || { echo "$asset is not immutable"; return 1; }
    curl -fsS -o /dev/null "$BASE/f/runbooks" || { echo "/f/runbooks did not get the page"; return 1; }
    echo "the page at /, $asset immutable, /f/runbooks served"
}
check "web UI at /" web_ui

recall_with_token() {
    local text
    text=$(recall "$RAGDOWN_TOKEN" "pg_restore twice") || { echo "$text"; return 1; }
    grep -q '^\[1\] postgres-backups.md:' <<<"$text" || { echo "top hit not postgres-backups.md: ${text:0:300}"; return 1; }
    echo "${text%%$'\n'*}"
}
check "ragdown_recall over /mcp/runbooks with the token (MCP Python SDK)" recall_with_token

refused_without_token() {
    local body='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"e2e","version":"0"}}}'
    local none wrong
    none=$(curl -s -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' \
        -H 'Accept: application/json, text/event-stream' -d "$body" "$BASE/mcp/runbooks")
    wrong=$(curl -s -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' -H 'Authorization: Bearer nope' \
        -H 'Accept: application/json, text/event-stream' -d "$body" "$BASE/mcp/runbooks")
    echo "no token: HTTP $none, a wrong one: HTTP $wrong"
    [ "$none" = 401 ] && [ "$wrong" = 401 ]
}
check "MCP refused without the token" refused_without_token

host_write_indexed() {
    local start
    start=$(now)
    printf '# Quokka drill\n\nThe quokka failover drill runs on the second Tuesday of each month.\n' \
        >"$DOCS/runbooks/quokka-drill.md"
    chown 1000:1000 "$DOCS/runbooks/quokka-drill.md"
    for _ in $(seq 1 100); do
        if recall "$RAGDOWN_TOKEN" "when does the quokka failover drill run" 2>/dev/null | grep -q '^\[1\] quokka-drill.md:'; then
            printf 'found as the top hit %.1f s after the write\n' "$(since "$start")"
            return 0
        fi
        sleep 0.3
    done
    echo "not the top hit within 30 s"
    return 1
}
check "a document written on the host is found within seconds" host_write_indexed

restart_keeps_index() {
    local before after sync
    before=$(status | field chunks)
    compose restart ragdownd >/dev/null 2>&1
    wait_ready >/dev/null || { echo "not ready after the restart"; return 1; }
    after=$(status | field chunks)
    sync=$(status | field last_sync)
    echo "chunks $before -> $after; first sync after the restart: $sync"
    [ "$before" = "$after" ] && "$VPY" -c 'import json, sys; s = json.loads(sys.argv[1]); sys.exit(0 if s["added"] == s["updated"] == s["chunks"] == 0 and s["unchanged"] > 0 else 1)' "$sync"
}
check "docker-compose restart keeps the index, nothing re-embedded" restart_keeps_index

fallback_when_embedd_stops() {
    local text
    compose stop embedd >/dev/null 2>&1
    text=$(recall "$RAGDOWN_TOKEN" "pg_restore twice") || { echo "$text"; return 1; }
    grep -q '^\[1\] postgres-backups.md:' <<<"$text" || { echo "top hit not postgres-backups.md: ${text:0:300}"; return 1; }
    ragdownd_log | grep -q 'no embedd worker answers; embedding in-process' || { echo "no fallback line in ragdownd's log"; return 1; }
    echo "embedd stopped; ${text%%$'\n'*}; ragdownd logged the switch to its in-process model"
}
check "embedd stopped: ragdownd answers with its in-process fallback" fallback_when_embedd_stops

back_on_embedd() {
    compose start embedd >/dev/null 2>&1
    wait_healthy embedd >/dev/null || { echo "embedd not healthy again"; return 1; }
    for _ in $(seq 1 60); do
        recall "$RAGDOWN_TOKEN" "rolling back a deploy" >/dev/null 2>&1 || true
        if ragdownd_log | grep -q 'embedd workers answer again'; then
            echo "embedd healthy again; ragdownd logged that its workers answer again"
            return 0
        fi
        sleep 1
    done
    echo "ragdownd did not go back to embedd within a minute"
    return 1
}
check "embedd started again: ragdownd back on it" back_on_embedd

# --- the CUDA image, on the CPU -------------------------------------------------------------

cuda_libraries() {
    local missing
    missing=$("$DOCKER" run --rm --network=none --entrypoint sh ragdown-embedd-cuda:latest -c \
        'ldd /opt/cuda/lib/libonnxruntime_providers_cuda.so | grep "not found" || true') \
        || { echo "could not run the image: $missing"; return 1; }
    echo "unresolved: ${missing:-none}" | tr -s ' \t\n' ' '
    # Only the driver's libcuda may be missing on a host without NVIDIA's driver.
    ! grep -v 'libcuda\.so' <<<"$missing" | grep -q .
}
cuda_on_cpu() {
    local port vector
    port=$(free_port)
    "$DOCKER" run -d --name "$PROJECT-cuda" --network=host -e EMBEDD_HTTP_ADDR="127.0.0.1:$port" \
        -e EMBEDD_GRPC_ADDR="127.0.0.1:$(free_port)" ragdown-embedd-cuda:latest >/dev/null
    for _ in $(seq 1 120); do
        vector=$(curl -fsS -H 'Content-Type: application/json' -d '{"input":["a GPU image on a CPU"],"model":"minilm"}' \
            "http://127.0.0.1:$port/v1/embeddings" 2>/dev/null) && break
        sleep 1
    done
    [ -n "$vector" ] || { "$DOCKER" logs "$PROJECT-cuda" 2>&1 | tail -5; return 1; }
    printf 'a %s-dimension vector; its log: %s\n' \
        "$("$VPY" -c 'import json, sys; print(len(json.load(sys.stdin)["data"][0]["embedding"]))' <<<"$vector")" \
        "$("$DOCKER" logs "$PROJECT-cuda" 2>&1 | grep -m1 'falling back\|provider active' | cut -c1-300)"
}
if [ "${E2E_SKIP_CUDA:-}" != 1 ]; then
    check "embedd-cuda: every library the CUDA provider needs is in the image but the driver's" cuda_libraries
    check "embedd-cuda runs without a GPU (on the CPU) and embeds" cuda_on_cpu
fi

# --- write the results ----------------------------------------------------------------------

mkdir -p "$(dirname "$RESULTS")"
"$VPY" - "$IMAGES" "$CHECKS" "$RESULTS" <<PY
import json, sys
images = [json.loads(line) for line in open(sys.argv[1])]
checks = [json.loads(line) for line in open(sys.argv[2])]
result = {
    "command": "docker/e2e.sh",
    "date": "$(date -u +%FT%TZ)",
    "commit": "$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)",
    "machine": "$(nproc) cores, $(free -g | awk '/^Mem:/ {print $2}') GiB, $(uname -sm)",
    "docker": "$("$DOCKER" version --format '{{.Server.Version}}') ($("$DOCKER" info --format '{{.Driver}}') storage)",
    "compose": "$(docker-compose version --short)",
    "compose_file": "docker/docker-compose.cpu.yml",
    "images": images,
    "checks": checks,
    "passed": all(c["ok"] for c in checks),
}
json.dump(result, open(sys.argv[3], "w"), indent=2)
open(sys.argv[3], "a").write("\n")
PY
log "results in $RESULTS"
[ "$FAILED" = 0 ] || die "some checks failed (see $RESULTS)"
log "all checks passed"
