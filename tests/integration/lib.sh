# SPDX-License-Identifier: MIT
# lib.sh — helpers shared by the integration tests (sourced, not run).
set -euo pipefail
BUILD=${BF_BUILD_DIR:?run through ctest (BF_BUILD_DIR)}
SRC=${BF_SOURCE_DIR:?run through ctest (BF_SOURCE_DIR)}
ES=${BF_TEST_ES:-http://127.0.0.1:19200}
COORD="$BUILD/coordinator/bulkfleet-coordinator"
AGENT="$BUILD/agent/bulkfleet-agent"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/bf-test.XXXXXX")
cleanup_tmp() { rm -rf "$TMP"; }
trap cleanup_tmp EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "PASS: $*"; }

# The scripted fault server (tests/support/fault_server.py), for the faults a cluster cannot
# produce on demand. A test that starts one sets: trap 'stop_fs; cleanup_tmp' EXIT
FS="$SRC/tests/support/fault_server.py"
FS_PID=""
# stop_fs — stop the fault server start_fs started (if any)
stop_fs() {
    if [ -n "$FS_PID" ]; then
        kill "$FS_PID" 2>/dev/null || true
        wait "$FS_PID" 2>/dev/null || true
        FS_PID=""
    fi
}
# start_fs MODE NAME — fault server on a free port (its own pick, --port 0), its request log in
# $TMP/NAME.log; sets FS_PORT, FS_LOG, FS_PID
start_fs() {
    stop_fs
    FS_LOG="$TMP/$2.log"
    : > "$FS_LOG"
    python3 "$FS" --port 0 --mode "$1" --log "$FS_LOG" --max-lifetime 120 > "$TMP/$2.fs.out" 2>&1 &
    FS_PID=$!
    for _ in $(seq 1 100); do
        FS_PORT=$(awk '/^READY/{print $2}' "$TMP/$2.fs.out" 2>/dev/null || true)
        [ -n "$FS_PORT" ] && return 0
        sleep 0.1
    done
    fail "fault server ($1) did not start"
}
# a free TCP port pair (p, p+1) on 127.0.0.1, below the kernel's ephemeral range: a port inside
# it was free when picked and then taken by an outgoing connection (curl, agents) before the
# coordinator bound it ("Address already in use" in a fresh-clone make check)
free_port() {
    python3 - <<'PY'
import socket, random
try:
    low = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
except (OSError, ValueError, IndexError):
    low = 32768
hi = max(low - 2, 22000)
for _ in range(200):
    p = random.randint(22000, hi)
    ok = True
    for q in (p, p + 1):
        s = socket.socket()
        try:
            s.bind(("127.0.0.1", q))
        except OSError:
            ok = False
        finally:
            s.close()
    if ok:
        print(p)
        break
PY
}
# warm_cluster URL — a few bulk requests into a scratch index spread over every node, so a
# freshly started (cold JIT) cluster answers in milliseconds rather than seconds before a test
# measures anything; the index is deleted afterwards.
warm_cluster() {
    local url=$1 idx="bf-warm-$$" i body=""
    curl -sf -X PUT "$url/$idx" -H 'Content-Type: application/json' \
        -d '{"settings": {"number_of_shards": 6, "number_of_replicas": 0}}' > /dev/null || return 0
    for i in $(seq 1 200); do body+=$'{"index":{}}\n{"w":'$i$'}\n'; done
    for i in 1 2 3 4 5 6; do
        curl -sf -X POST "$url/$idx/_bulk" -H 'Content-Type: application/x-ndjson' --data-binary "$body" > /dev/null || true
    done
    curl -sf -X DELETE "$url/$idx" > /dev/null || true
}
