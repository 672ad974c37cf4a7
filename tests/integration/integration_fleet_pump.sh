#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_fleet_pump — the coordinator keeps its fleet answered through every blocking step
# of a cell's end, not only its preparation: the fault server
# answers the telemetry's _nodes/stats after 2 s and each _refresh, _count and _stats (store
# size) after 1.5 s, as a loaded cluster with many shards does, so the end of the cell takes
# ~6 s. Before, the coordinator ran no fleet loop there, and the idle agent, hearing
# nothing for 3 s, said Hello again (and after 10 s reopened its sockets). The agent logs at info
# here: until the coordinator exits it must never say it heard nothing, and the row must be
# verified (what the fleet hears meanwhile does not change it).
source "$(dirname "$0")/lib.sh"
cd "$TMP"
FS=$(free_port)
python3 "$SRC/tests/support/fault_server.py" --port "$FS" --mode ok --log fs.log \
    --admin-delay '_nodes/stats=2000' --admin-delay '/_refresh=1500' \
    --admin-delay '/_count=1500' --admin-delay '/_stats=1500' \
    --max-lifetime 120 > fs.out 2>&1 &
FSP=$!
trap 'kill $FSP ${A:-} 2>/dev/null || true; cleanup_tmp' EXIT
for _ in $(seq 50); do grep -q READY fs.out && break; sleep 0.1; done
cat > s.yaml <<YAML
name: pump
target: {hosts: [http://127.0.0.1:$FS]}
index: {name: 'pump-{batch_size}', recreate: true}
variables: [{name: n, type: range, from: 1, to: 9}]
document: {source: '{"n": \$[[n]]}'}
run: {warmup: 0s, duration: 2s}
matrix: {batch_size: [10], concurrency: [1]}
YAML
P=$(free_port)
"$AGENT" --coordinator "tcp://127.0.0.1:$P" --insecure --id pump-1 2> a.err & A=$!
rc=0
t0=$(date +%s.%N)
"$COORD" run s.yaml --agents 1 --insecure --bind "tcp://127.0.0.1:$P" --results res \
    > c.out 2> c.err || rc=$?
t1=$(date +%s.%N)
cp a.err a.at_exit # what the agent said while the coordinator ran
kill $A 2> /dev/null || true
[ $rc -eq 0 ] || [ $rc -eq 1 ] || { cat c.err >&2; fail "campaign exit $rc"; }
grep -q "cell 1/1" c.err || { cat c.err >&2; fail "no cell ran"; }
# the delays did happen: each of the four calls answered late at least once
python3 - fs.log << 'PY' || fail "the cluster calls were not slow: the test proves nothing"
import json, sys
seen = set()
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("delayed_ms"):
        for k in ("_nodes/stats", "_refresh", "_count", "_stats/store"):
            if k in r.get("path", "") or (k == "_stats/store" and "/_stats" in r.get("path", "")
                                           and "indexing" not in r.get("path", "")):
                seen.add(k)
missing = {"_nodes/stats", "_refresh", "_count", "_stats/store"} - seen
if missing:
    print("not delayed: %s" % sorted(missing), file=sys.stderr)
    sys.exit(1)
PY
python3 -c "import sys; sys.exit(0 if float(sys.argv[2]) - float(sys.argv[1]) >= 7 else 1)" \
    "$t0" "$t1" || fail "the campaign took less than 7 s: the calls were not slow"
if grep -E "nothing heard from the coordinator|reconnecting to" a.at_exit; then
    cat c.err >&2; fail "the agent heard nothing from the coordinator while it verified the cell"
fi
if grep -E "said hello again|suspect|lost:" c.err; then fail "fleet churn in the coordinator's log"; fi
python3 - res/*/matrix.json << 'PY' || { cat c.err >&2; fail "row"; }
import json, sys
row = json.load(open(sys.argv[1]))["rows"][0]
assert row["verified"] is True, row.get("reason")
assert row["docs_ok_all"] > 0 and row.get("docs_counted") == row["docs_ok_all"], row
PY
pass "the idle agent heard the coordinator all through a 6 s end of the cell ($(grep -c . a.at_exit) agent log lines)"
