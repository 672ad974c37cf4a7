#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_ctrlc — Ctrl-C at a terminal (SIGINT to the whole foreground process group) in the
# middle of a cell run with --local-agents: the agents are in their own process group, so only
# the coordinator gets the signal; it tells them to stop, and their last seconds reach the
# results (cells/<cell>.aborted.ndjson has both agents' samples up to the interruption); exit
# 130, and the row covers the seconds measured before the interruption. Also: kill -9 of the
# coordinator leaves no local agent running (they die with it).
source "$(dirname "$0")/lib.sh"
IDX="bf-ctrlc-$$"
trap 'curl -sf -X DELETE "$ES/$IDX" > /dev/null 2>&1 || true; cleanup_tmp' EXIT
cat > "$TMP/s.yaml" <<YAML
name: ctrlc
target: {hosts: ["$ES"]}
index: {name: "$IDX", recreate: true}
variables: [{name: n, type: range, from: 1, to: 9}]
document: {source: '{"n": \$[[n]]}'}
run: {warmup: 0s, duration: 30s}
matrix: {batch_size: [50], concurrency: [2]}
YAML
P=$(free_port)
# setsid: the coordinator leads its own group, as a shell's foreground job does
setsid "$COORD" run "$TMP/s.yaml" --local-agents 2 --threads 1 --insecure --bind "tcp://127.0.0.1:$P" \
    --results "$TMP/r" > "$TMP/out" 2> "$TMP/err" &
CPID=$!
for _ in $(seq 1 400); do grep -q "cell 1/1" "$TMP/err" && break; sleep 0.05; done
sleep 4
PGID=$(ps -o pgid= -p "$CPID" | tr -d ' ')
kill -INT -- "-$PGID"   # what the terminal does on Ctrl-C
rc=0; wait "$CPID" || rc=$?
[ "$rc" = 130 ] || { cat "$TMP/err" >&2; fail "exit $rc, expected 130"; }
F=$(ls "$TMP"/r/ctrlc-*/cells/*.aborted.ndjson 2> /dev/null | head -1)
[ -n "$F" ] || { cat "$TMP/err" >&2; fail "no aborted cell file"; }
python3 - "$F" <<'PY' || fail "the agents' last seconds did not reach the results"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
samples = [l for l in lines if l["type"] == "sample"]
agents = {s["agent"] for s in samples}
assert agents == {"local-1", "local-2"}, agents
for a in sorted(agents):
    secs = [s["second"] for s in samples if s["agent"] == a]
    fin = [s for s in samples if s["agent"] == a and s.get("final")]
    assert max(secs) >= 2, (a, secs)   # interrupted ~4 s into the load
    assert fin, (a, "no final sample")
print("both agents' samples kept up to seconds", max(s["second"] for s in samples))
PY
# the interrupted cell's row covers the seconds measured before Ctrl-C, not the planned 30 s
python3 - "$TMP"/r/ctrlc-*/matrix.json <<'PY' || { cat "$TMP/err" >&2; fail "the partial row is wrong"; }
import json, sys
r = json.load(open(sys.argv[1]))["rows"][0]
assert r["aborted"] and not r["stalled"], r
# interrupted ~4 s after the cell began (its preparation included): 0 to 4 whole seconds
assert r["duration_s"] <= 5, r["duration_s"]
if r["duration_s"]:
    assert r["docs_ok"] > 0 and abs(r["docs_per_s"] * r["duration_s"] - r["docs_ok"]) < 1, r
else:
    assert r["docs_per_s"] == 0, r
print("partial row: %d s measured, %.0f docs/s" % (r["duration_s"], r["docs_per_s"]))
PY
# the cluster's figures cover the same seconds as the row, not the planned 30 s (notes2/i14.md)
python3 - "$TMP"/r/ctrlc-*/matrix.json "$TMP"/r/ctrlc-*/telemetry/*.aborted.ndjson <<'PY' || fail "the telemetry window is not the row's"
import json, sys
r = json.load(open(sys.argv[1]))["rows"][0]
lines = [json.loads(l) for l in open(sys.argv[2])]
info = [l for l in lines if l["type"] == "info"][0]
summ = [l for l in lines if l["type"] == "summary"][0]
assert info["planned_duration_s"] == 30, info
assert info["duration_s"] == r["duration_s"], (info, r["duration_s"])
if r["duration_s"] >= 1:
    span = summ["window_to_ms"] - summ["window_from_ms"]
    assert abs(span - 1000 * r["duration_s"]) <= 600, (summ, r["duration_s"])
else:
    assert r["cluster_docs_per_s"] is None, r
print("telemetry window: %s s of the planned 30 s, cluster docs/s %s" % (info["duration_s"], r["cluster_docs_per_s"]))
PY
# kill -9: the local agents die with the coordinator
P=$(free_port)
"$COORD" run "$TMP/s.yaml" --local-agents 2 --threads 1 --insecure --bind "tcp://127.0.0.1:$P" \
    --results "$TMP/r2" -q > /dev/null 2> "$TMP/err2" &
CPID=$!
for _ in $(seq 1 400); do grep -q "cell 1/1" "$TMP/err2" && break; sleep 0.05; done
sleep 1
KIDS=$(pgrep -P "$CPID" || true)
[ -n "$KIDS" ] || fail "no local agents found"
kill -9 "$CPID"; wait "$CPID" 2> /dev/null || true
t0=$(date +%s.%N)
for _ in $(seq 1 100); do
    alive=0
    for k in $KIDS; do kill -0 "$k" 2> /dev/null && alive=1; done
    [ "$alive" = 0 ] && break
    sleep 0.1
done
t1=$(date +%s.%N)
for k in $KIDS; do kill -0 "$k" 2> /dev/null && { kill -9 "$k"; fail "local agent $k outlived kill -9 of the coordinator by 10 s"; }; done
echo "local agents gone $(python3 -c "print(round($t1 - $t0, 1))") s after kill -9"
pass "Ctrl-C: agents stopped by the coordinator, their last seconds kept, exit 130; kill -9 takes the local agents with it"
