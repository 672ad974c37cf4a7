#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_corpus_liveness — an agent preparing a large corpus keeps answering the fleet.
# A 210 MB corpus (3,000,000 documents) takes the agent seconds to parse and lay out after its
# chunks arrived (1,500,000 took only 1.91 s in a fresh-clone check:
# too close to --lost); the coordinator runs with --lost 2s (a heartbeat is 1 s). Before, the agent built the cell on its
# session thread and answered nothing meanwhile: "agent ... suspect" / "lost: silent for ...",
# the cell prepared again (or degraded). Now the build runs on a thread of its own while the
# session answers Pings and sends its own: no suspect or lost agent in the coordinator's log,
# no "nothing heard" in the agent's, the row verified by _count, exit 0. The test checks that
# the preparation took longer than --lost (else it proves nothing) and prints how long.
source "$(dirname "$0")/lib.sh"
trap 'stop_fs; kill ${A:-} 2>/dev/null || true; cleanup_tmp' EXIT
cd "$TMP"
python3 - << 'PY'
import json
pad = "x" * 40
with open("docs.json", "w") as f:
    for i in range(3000000):
        f.write(json.dumps({"n": i, "msg": "GET /item/%d %s" % (i, pad)}) + "\n")
PY
start_fs ok fs
cat > s.yaml << YAML
name: liveness
target: {hosts: [http://127.0.0.1:$FS_PORT]}
index: {name: 'liveness-{batch_size}', recreate: true}
document: {action: create, corpus: {path: docs.json}}
run: {warmup: 0s, duration: 2s}
matrix: {batch_size: [100], concurrency: [2]}
YAML
P=$(free_port)
"$AGENT" --coordinator "tcp://127.0.0.1:$P" --insecure --id big-1 --threads 2 2> a.err & A=$!
rc=0
"$COORD" run s.yaml --agents 1 --insecure --bind "tcp://127.0.0.1:$P" --results res --lost 2s \
    > c.out 2> c.err || rc=$?
kill $A 2> /dev/null || true
wait $A 2> /dev/null || true
# how long the build took: from the corpus being whole to "prepared cell"
prep=$(python3 - a.err << 'PY'
import re, sys
t = {}
for line in open(sys.argv[1]):
    m = re.match(r"(\d+):(\d+):(\d+\.\d+) ", line)
    if not m:
        continue
    s = int(m[1]) * 3600 + int(m[2]) * 60 + float(m[3])
    if "here in" in line and "checked" in line:
        t["whole"] = s
    if "prepared cell" in line and "whole" in t:
        t["prepared"] = s
print("%.2f" % (t["prepared"] - t["whole"]) if len(t) == 2 else "")
PY
)
[ -n "$prep" ] || { cat a.err >&2; fail "the agent never said the corpus was whole and the cell prepared"; }
echo "the agent prepared the cell in $prep s after the corpus was whole (--lost 2s)"
python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) > 2.0 else 1)" "$prep" ||
    fail "preparing took only $prep s, no longer than --lost 2s: the test proves nothing (make the corpus larger)"
if grep -E "suspect|lost:|said hello again" c.err; then
    fail "the coordinator took the preparing agent for silent (above)"
fi
if grep -E "nothing heard from the coordinator" a.err; then
    fail "the preparing agent heard nothing from the coordinator (above)"
fi
[ $rc -eq 0 ] || { cat c.err >&2; fail "campaign exit $rc"; }
python3 - res/*/matrix.json << 'PY' || { cat c.err >&2; fail "row"; }
import json, sys
row = json.load(open(sys.argv[1]))["rows"][0]
assert row["verified"] is True, row.get("reason")
assert row["docs_ok_all"] > 0 and row.get("docs_counted") == row["docs_ok_all"], row
assert not row.get("degraded"), row.get("flags")
PY
pass "an agent $prep s in preparation was never suspect or lost (--lost 2s)"
