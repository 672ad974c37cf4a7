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
# a free TCP port pair (p, p+1) on 127.0.0.1
free_port() {
    python3 - <<'PY'
import socket, random
for _ in range(200):
    p = random.randint(20000, 60000)
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
