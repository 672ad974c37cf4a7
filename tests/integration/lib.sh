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
