#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_slowdisk_cellend — a slow results disk at a cell's end holds up no heartbeat. One
# agent runs two 2 s cells against the fault server; from its welcome until the first cell's
# file is in place, the slow-disk shim (tests/support/bf_slowdisk.c, LD_PRELOAD in the coordinator)
# makes every rename under the results directory sleep 3.5 s (the samples' file is appended and
# never renamed: only whole files are slowed). The first cell's end writes
# telemetry/<cell>.ndjson and cells/<cell>.ndjson (each a temporary file renamed into place):
# before, on the fleet's thread, which sent no Ping for 7 s, and the agent, idle between cells,
# said "nothing heard from the coordinator ... saying hello again". Now those files are
# written on a thread of their own while the fleet keeps pinging: no such line before the
# second cell is done, no suspect or lost agent, both cells' files complete and in place
# (rows verified, each sample once), exit 0.
source "$(dirname "$0")/lib.sh"
trap 'stop_fs; kill ${A1:-} ${FLIP:-} 2>/dev/null || true; cleanup_tmp' EXIT
cd "$TMP"
SHIM="$BUILD/tests/libbf_slowdisk.so"
[ -f "$SHIM" ] || fail "no $SHIM (the bf_slowdisk target)"
start_fs ok fs
mkdir res
cat > s.yaml <<YAML
name: slowcellend
target: {hosts: [http://127.0.0.1:$FS_PORT]}
index: {name: 'slowcellend-{batch_size}', recreate: true}
variables: [{name: n, type: range, from: 1, to: 9}]
document: {source: '{"n": \$[[n]]}'}
run: {warmup: 0s, duration: 2s}
matrix: {batch_size: [20, 30], concurrency: [1]}
YAML
P=$(free_port)
"$AGENT" --coordinator "tcp://127.0.0.1:$P" --insecure --id ce-1 --threads 1 2> a1.err & A1=$!
echo 0 > slow.ms
# slow from the agent's welcome until the first cell's file is in place (its end inside)
(
    for _ in $(seq 600); do grep -q "welcomed by the coordinator" a1.err && break; sleep 0.05; done
    echo 3500 > slow.ms
    for _ in $(seq 1200); do ls res/*/cells/*-b20-*.ndjson > /dev/null 2>&1 && break; sleep 0.05; done
    echo 0 > slow.ms
) & FLIP=$!
rc=0
LD_PRELOAD="$SHIM" BF_SLOWDISK_DIR="$TMP/res" BF_SLOWDISK_OPS=rename \
    BF_SLOWDISK_CONTROL="$TMP/slow.ms" BF_SLOWDISK_LOG="$TMP/slowdisk.log" \
    timeout 120 "$COORD" run s.yaml --agents 1 --insecure --bind "tcp://127.0.0.1:$P" --results res \
    > c.out 2> c.err || rc=$?
kill $A1 2> /dev/null || true
wait $FLIP 2> /dev/null || true
[ $rc -eq 0 ] || { cat c.err a1.err >&2; fail "campaign exit $rc (expected 0)"; }
grep -q '^rename 3500 .*/cells/.*\.ndjson' slowdisk.log ||
    { cat slowdisk.log >&2; fail "no rename of a cell's file was slowed: the test proves nothing"; }
# the agent's lines until its second cell is done: the first cell's end is among them
awk '/ done: /{n++} {print} n >= 2 {exit}' a1.err > a1.head
if grep "nothing heard from the coordinator" a1.head; then
    cat c.err a1.err >&2
    fail "the coordinator sent nothing while it wrote a cell's files"
fi
if grep -E "suspect|lost:" c.err; then
    fail "the coordinator saw its agent go silent (above)"
fi
python3 - res/*/matrix.json res/*/cells/*.ndjson << 'PY' || { cat c.err >&2; fail "files"; }
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
assert len(rows) == 2, len(rows)
for row in rows:
    assert row["verified"] is True and row.get("docs_counted") == row["docs_ok_all"] > 0, row
files = sys.argv[2:]
assert len(files) == 2, files
for path in files:
    lines = [json.loads(l) for l in open(path)]
    assert lines[0]["type"] == "row", (path, lines[0].get("type"))
    seqs = [o["seq"] for o in lines if o.get("type") == "sample"]
    assert seqs == list(range(1, len(seqs) + 1)) and len(seqs) >= 2, (path, seqs)
print("2 cells, rows verified, cell files complete: %s" % [len(open(f).readlines()) for f in files])
PY
pass "a cell's files written on a slow disk (3.5 s per rename): the fleet kept pinging, nothing lost"
