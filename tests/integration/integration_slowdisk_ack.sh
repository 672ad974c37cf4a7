#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_slowdisk_ack — a results disk slower than the agents' dead-man timeout does not
# stop their load. Two agents (dead-man 15 s, the default) run one 20 s cell against the fault
# server; as soon as the first sample line is in cells/<cell>.samples.partial, the slow-disk
# shim (tests/support/bf_slowdisk.c, LD_PRELOAD in the coordinator) makes every fflush and
# fsync/fdatasync under the results directory sleep 20 s, for 30 s. Before, the coordinator
# wrote each sample on its only thread before acknowledging it: that thread sat in a 20 s
# fflush, no Ping went out, and each running agent said "dead-man switch: nothing heard from
# the coordinator" after 15 s and stopped its load (the row degraded). Now the samples are
# queued for a writer thread and acknowledged once on disk: the agents hear the fleet all the
# time, run their 20 s to the end, the cell's end waits (saying so) for the samples still
# queued, every sample of theirs is in the cell's file exactly once (seq 1..final, no gap),
# the row is verified by _count and not degraded, exit 0.
source "$(dirname "$0")/lib.sh"
trap 'stop_fs; kill ${A1:-} ${A2:-} ${FLIP:-} 2>/dev/null || true; cleanup_tmp' EXIT
cd "$TMP"
SHIM="$BUILD/tests/libbf_slowdisk.so"
[ -f "$SHIM" ] || fail "no $SHIM (the bf_slowdisk target)"
start_fs ok fs
mkdir res
cat > s.yaml <<YAML
name: slowdisk
target: {hosts: [http://127.0.0.1:$FS_PORT]}
index: {name: 'slowdisk-{batch_size}', recreate: true}
variables: [{name: n, type: range, from: 1, to: 9}]
document: {source: '{"n": \$[[n]]}'}
run: {warmup: 0s, duration: 20s}
matrix: {batch_size: [20], concurrency: [2]}
YAML
P=$(free_port)
"$AGENT" --coordinator "tcp://127.0.0.1:$P" --insecure --id sd-1 --threads 1 2> a1.err & A1=$!
"$AGENT" --coordinator "tcp://127.0.0.1:$P" --insecure --id sd-2 --threads 1 2> a2.err & A2=$!
echo 0 > slow.ms
# the slow window: from the first sample line on disk, 20 s per call, for 30 s
(
    for _ in $(seq 600); do
        f=$(ls res/*/cells/*.samples.partial 2> /dev/null | head -1 || true)
        [ -n "$f" ] && [ -s "$f" ] && break
        sleep 0.1
    done
    echo 20000 > slow.ms
    date +%s.%N > slow.on
    sleep 30
    echo 0 > slow.ms
) & FLIP=$!
rc=0
t0=$(date +%s)
LD_PRELOAD="$SHIM" BF_SLOWDISK_DIR="$TMP/res" BF_SLOWDISK_OPS=fsync,flush \
    BF_SLOWDISK_CONTROL="$TMP/slow.ms" BF_SLOWDISK_LOG="$TMP/slowdisk.log" \
    "$COORD" run s.yaml --agents 2 --insecure --bind "tcp://127.0.0.1:$P" --results res \
    > c.out 2> c.err || rc=$?
t1=$(date +%s)
kill $A1 $A2 2> /dev/null || true
wait $FLIP 2> /dev/null || true
[ -f slow.on ] || { cat c.err >&2; fail "no sample line reached the disk: the slow window never began"; }
slowed=$(grep -c '^\(fsync\|flush\) 20000 ' slowdisk.log || true)
[ "$slowed" -ge 1 ] || { cat c.err >&2; fail "the shim slowed no fsync or fflush: the test proves nothing"; }
if grep -E "dead-man switch" a1.err a2.err; then
    cat c.err >&2; fail "an agent stopped its load while the results disk was slow"
fi
if grep -E "stopped its load|lost:|suspect" c.err; then
    fail "the coordinator saw an agent stop or go silent (above)"
fi
[ $rc -eq 0 ] || { cat c.err >&2; fail "campaign exit $rc (expected 0)"; }
# the load ended while samples still waited for the disk: the end waited for them, saying so
grep -Eq "waiting [0-9]+ s for the results disk: [1-9][0-9]* samples" c.err ||
    { cat c.err >&2; fail "the cell's end did not wait for the samples still queued"; }
python3 - res/*/matrix.json res/*/cells/*.ndjson << 'PY' || { cat c.err >&2; fail "counts"; }
import json, sys
row = json.load(open(sys.argv[1]))["rows"][0]
assert row["verified"] is True, row.get("reason")
assert row["docs_ok_all"] > 0 and row.get("docs_counted") == row["docs_ok_all"], row
assert not row.get("degraded"), ("degraded", row.get("degraded"), row.get("flags"))
seqs, final, docs = {}, {}, {}
for line in open(sys.argv[2]):
    o = json.loads(line)
    if o.get("type") != "sample":
        continue
    seqs.setdefault(o["agent"], []).append(o["seq"])
    docs[o["agent"]] = docs.get(o["agent"], 0) + o.get("docs_ok", 0)
    if o.get("final"):
        final[o["agent"]] = o["seq"]
assert sorted(seqs) == ["sd-1", "sd-2"], sorted(seqs)
for a, s in seqs.items():
    assert s == list(range(1, len(s) + 1)), (a, "not each seq once, in order", s)
    assert final.get(a) == len(s), (a, "final sample missing or not last", final.get(a), len(s))
    assert len(s) >= 20, (a, "fewer samples than seconds of load", len(s))
print("samples per agent: %s; docs %d = _count %d"
      % ({a: len(s) for a, s in sorted(seqs.items())}, row["docs_ok_all"], row["docs_counted"]))
PY
pass "2 agents ran their 20 s through $slowed slowed calls of 20 s; nothing lost ($((t1 - t0)) s)"
