#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_metrics_store — `run` with a metrics store: the store is the
# dev cluster itself, allowed explicitly (--metrics-store URL --metrics-store-allow-target; the
# refusal is checked with a metrics_store: section); a campaign of 2 cells
# (1 s warmup + 4 s) writes merged seconds while the first cell still runs (live), and in the end
# every merged second, agent second, telemetry node sample, row and matrix row
# exactly once (each kind's _count equals what the results files hold); the index templates
# give keyword axes, long counters and a date @timestamp; matrix.json says 0 dropped; publish of
# the same directory afterwards leaves every count unchanged (same ids). Without allow_target
# the same scenario is refused (exit 2) before any load.
source "$(dirname "$0")/lib.sh"
cd "$TMP"
IDX="bf-mstore-$$"
trap 'curl -sf -X DELETE "$ES/$IDX" > /dev/null 2>&1 || true; cleanup_tmp' EXIT
PORT=$(free_port)
write_scenario() { # $1: the metrics_store: line, or nothing (--metrics-store on the command line)
    cat > s.yaml <<YAML
name: mstore-$$
target: {hosts: ["$ES"]}
$1
index: {name: $IDX, recreate: true}
variables: [{name: n, type: range, from: 1, to: 9}]
document: {source: '{"n": \$[[n]]}'}
run: {warmup: 1s, duration: 4s}
matrix: {batch_size: [50], concurrency: [1, 2], shards: [1]}
YAML
}

# the store is the target: refused unless allowed, before agents or load
write_scenario "metrics_store: {hosts: [\"$ES\"], allow_target: false, flush_wait: 20s}"
set +e
timeout 60 "$COORD" run s.yaml --local-agents 1 --insecure --bind "tcp://127.0.0.1:$PORT" --results r -q > out0 2> err0
rc=$?
set -e
[ $rc = 2 ] && grep -q "is the target cluster itself" err0 && grep -q "allow_target: true" err0 ||
    { cat err0 >&2; fail "a store that is the target: exit $rc"; }
[ ! -d r ] || [ -z "$(ls r)" ] || fail "refused run left a results directory"

# the allowed run: the store from the command line, no metrics_store: section (its defaults:
# flush_wait 10s; a bug made it 0 s without the section, dropping the end of the run)
write_scenario ""
timeout 180 "$COORD" run s.yaml --local-agents 1 --threads 1 --insecure --bind "tcp://127.0.0.1:$PORT" \
    --metrics-store "$ES" --metrics-store-allow-target --results r -q > out 2> err &
CPID=$!
# live: merged seconds reach the store while the first cell still runs (before its file exists)
LIVE=0
for _ in $(seq 600); do
    D=$(ls -d r/mstore-$$-* 2> /dev/null || true)
    [ -n "$D" ] && break
    sleep 0.1
done
[ -n "$D" ] || fail "no results directory"
CAMP=$(basename "$D")
for _ in $(seq 300); do
    [ -z "$(ls "$D"/cells/*.ndjson 2> /dev/null)" ] || break
    curl -sf -X POST "$ES/bulkfleet-samples-*/_refresh?allow_no_indices=true" > /dev/null 2>&1 || true
    n=$(curl -sf "$ES/bulkfleet-samples-*/_count?allow_no_indices=true" -H 'Content-Type: application/json' \
        -d "{\"query\":{\"bool\":{\"filter\":[{\"term\":{\"campaign\":\"$CAMP\"}},{\"term\":{\"kind\":\"second\"}}]}}}" |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["count"])' 2> /dev/null || echo 0)
    if [ -z "$(ls "$D"/cells/*.ndjson 2> /dev/null)" ] && [ "${n:-0}" -gt 0 ]; then LIVE=$n; break; fi
    sleep 0.2
done
wait $CPID || { cat err >&2; fail "campaign exit $?"; }
[ "$LIVE" -gt 0 ] || fail "no merged second reached the store while the first cell ran (not live)"
echo "live: $LIVE merged seconds in the store before the first cell's file was written"
grep -q "metrics store .*: [0-9]* documents indexed, 0 dropped" err || { cat err >&2; fail "no store summary"; }
python3 "$SRC/tests/support/ms_expect.py" check "$D" "$ES" > check1 || { cat check1 >&2; fail "store counts differ from the results files"; }
python3 - "$D" "$ES" check1 <<'PY'
import json, sys, urllib.request
d, es, chk = sys.argv[1:4]
c = json.load(open(chk))
exp = c["expect"]
assert exp["row"] == 2 and exp["second"] >= 6 and exp["agent_second"] >= 6 and exp["node"] >= 6, exp
m = json.load(open(d + "/matrix.json"))
ms = m["metrics_store"]
total = sum(exp.values())
# every document once in the store (counted above); sent more often: live seconds are sent
# again with their final values when the cell ends (same ids)
assert ms["dropped"] == 0 and ms["indexed"] == ms["documents"] >= total, (ms, total)
assert all(r["verified"] for r in m["rows"]), [r["verified"] for r in m["rows"]]
mp = json.load(urllib.request.urlopen(es + "/bulkfleet-samples-*/_mapping", timeout=10))
props = next(iter(mp.values()))["mappings"]["properties"]
assert props["@timestamp"]["type"] == "date", props["@timestamp"]
for k in ("campaign", "scenario", "cell", "kind", "node_name"):
    assert props[k]["type"] == "keyword", (k, props[k])
assert props["docs_ok"]["type"] == "long" and props["docs_per_s"]["type"] == "double"
assert props["queue"]["type"] == "long"
ax = props["axes"]["properties"]
assert ax["batch_size"]["type"] == "keyword" and ax["concurrency"]["type"] == "keyword", ax
rp = json.load(urllib.request.urlopen(es + "/bulkfleet-results/_mapping", timeout=10))["bulkfleet-results"]["mappings"]["properties"]
assert rp["service_p99_ms"]["type"] == "double" and rp["verified"]["type"] == "boolean", rp["verified"]
assert rp["axes"]["properties"]["concurrency"]["type"] == "keyword"
print("store:", c["store"], "matrix.json metrics_store:", ms)
PY
# publish afterwards: the same documents, the same ids, the same counts
"$COORD" publish "$D" --metrics-store "$ES" > pub 2> puberr || { cat pub puberr >&2; fail "publish exit $?"; }
python3 "$SRC/tests/support/ms_expect.py" check "$D" "$ES" > check2 || { cat check2 >&2; fail "counts changed after publish"; }
cat check2
pass "metrics store on the target (allowed): every document once, publish afterwards changes no count"
