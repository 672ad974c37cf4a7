#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# netns_fleet — a fleet of agent hosts in network namespaces, closed to strangers (net 10.213.1.0/24).
#
#   (a) 3 agents (CURVE, keys in the allow-list) run a cell: the sum of their docs_ok equals the
#       cluster's _count, and the target saw load from each of the three hosts
#   (e) an agent whose key is not in the allow-list is refused (ZAP) and never sees a cell
#   (f) a Hello with protocol major 99 gets a Reject with the reason
#   (g) an agent with --allow-target 127.0.0.1 refuses a Prepare aimed at the bridge address:
#       the cell fails with that reason and the target never sees the agent
#   (i) SIGTERM to the coordinator mid-cell: it stops every agent (their load ends at the target
#       within 2 s), keeps what was measured as an aborted cell, and exits 143
source "$(dirname "$0")/lib.sh"
source "$SRC/tests/support/netns.sh"
netns_require
T0=$SECONDS
PROBE="$BUILD/tests/bf_fleetprobe"
netns_setup 1 5
netns_forwarder
netns_keys 5 1 2 3 5    # a4 is the stranger: its key is not in the allow-list
netns_scenario fleet nf 3s "  shards: [1]
  batch_size: [100]
  concurrency: [3]"
FWD=$(netns_fwd_addr)
CTRL="tcp://$(netns_coord_addr):7100"

# ---- (a) (e) (f) ------------------------------------------------------------------------------
"$COORD" run "$TMP/fleet.yaml" --agents 3 --bind "$CTRL" --keys "$TMP/keys/coord" \
    --wait 30s --results "$TMP/results" -q > "$TMP/coord.out" 2> "$TMP/coord.log" &
COORD_PID=$!
netns_track $COORD_PID
wait_log "$TMP/coord.log" "waiting|target:" 20 || fail "the coordinator did not start"
netns_agent 4 --allow-target "$FWD"       # first, so it would be in the cell if it got in
sleep 0.5
for i in 1 2 3; do netns_agent $i --allow-target "$FWD"; done

# (f) a wrong protocol major, from an agent host with an admitted key
ip netns exec bfn1-a1 "$PROBE" --coordinator "$CTRL" --keys "$TMP/keys/a1" --major 99 \
    --id probe > "$TMP/probe.out" 2>&1 || true
grep -q "^REJECT protocol major 99" "$TMP/probe.out" || { cat "$TMP/probe.out"; fail "(f) no Reject for major 99"; }
pass "(f) protocol major 99: $(cat "$TMP/probe.out")"

netns_wait $COORD_PID 120
rc=$WAIT_RC
[ $rc = 0 ] || fail "(a) coordinator exited with $rc"
DIR=$(ls -d "$TMP"/results/fleet-*)
python3 - "$DIR" "$ES" "$(netns_ip 1) $(netns_ip 2) $(netns_ip 3)" "$TMP/fwd.ndjson" <<'PY' || fail "(a) results"
import csv, json, os, sys, urllib.request
d, es, ips, fwd = sys.argv[1], sys.argv[2], sys.argv[3].split(), sys.argv[4]
rows = list(csv.DictReader(open(os.path.join(d, "matrix.csv"))))
assert len(rows) == 1, rows
r = rows[0]
assert r["agents"] == "3", r["agents"]
samples = [json.loads(l) for l in open(os.path.join(d, "cells", r["cell"] + ".ndjson"))]
samples = [s for s in samples if s["type"] == "sample"]
per_agent = {}
for s in samples:
    per_agent[s["agent"]] = per_agent.get(s["agent"], 0) + s["docs_ok"]
assert set(per_agent) == {"a1", "a2", "a3"}, per_agent
assert all(v > 0 for v in per_agent.values()), per_agent
index = "nf-1s-100b"
urllib.request.urlopen(f"{es}/{index}/_refresh", data=b"").read()
count = json.load(urllib.request.urlopen(f"{es}/{index}/_count"))["count"]
total = sum(per_agent.values())
assert total == count, f"sum of docs_ok {total} != _count {count}"
assert r["verified"] == "true" and int(r["docs_counted"]) == count, r
seen = {}
for line in open(fwd):
    x = json.loads(line)
    seen[x["src"]] = seen.get(x["src"], 0) + x["bytes"]
for ip in ips:
    assert seen.get(ip, 0) > 0, f"the target saw no load from {ip}: {seen}"
print(f"(a) docs_ok per agent {per_agent}, sum {total} == _count {count}")
PY
pass "(a) 3 agent hosts: sum of docs_ok == _count"

A4=$(netns_ip 4)
grep -q "refused an agent from $A4" "$TMP/coord.log" || fail "(e) no ZAP refusal of $A4 in the coordinator log"
grep -q "refused this agent's key" "$TMP/a4.log" || fail "(e) the stranger was not told it was refused"
if grep -q "prepared cell" "$TMP/a4.log"; then fail "(e) the stranger prepared a cell"; fi
if grep -q '"agent":"a4"' "$DIR"/cells/*.ndjson; then fail "(e) the stranger is in the results"; fi
if grep -q "\"src\": \"$A4\"" "$TMP/fwd.ndjson"; then fail "(e) the stranger loaded the target"; fi
pass "(e) the agent with a key outside the allow-list was refused and never saw a cell"

# ---- (i) interrupt: the same three agents join the next coordinator ----------------------------
netns_scenario interrupt ni 10s "  shards: [1]
  batch_size: [100]
  concurrency: [3]"
"$COORD" run "$TMP/interrupt.yaml" --agents 3 --bind "$CTRL" --keys "$TMP/keys/coord" \
    --wait 30s --results "$TMP/results3" -q > "$TMP/coord3.out" 2> "$TMP/coord3.log" &
COORD_PID=$!
netns_track $COORD_PID
wait_log "$TMP/coord3.log" "cell 1/1 .* on 3 agents" 30 || fail "(i) the cell did not start on 3 agents"
sleep 4
TERMED=$(now)
kill -TERM $COORD_PID
netns_wait $COORD_PID 30
[ $WAIT_RC = 143 ] || fail "(i) coordinator exited with $WAIT_RC after SIGTERM, expected 143"
for i in 1 2 3; do
    grep -q "coordinator stopped cell" "$TMP/a$i.log" || fail "(i) a$i was not stopped"
done
ls "$TMP"/results3/interrupt-*/cells/*.aborted.ndjson > /dev/null || fail "(i) no aborted cell kept"
python3 - "$TMP/fwd.ndjson" "$TERMED" "$(netns_ip 1) $(netns_ip 2) $(netns_ip 3)" \
    "$TMP"/results3/interrupt-*/matrix.csv <<'PY' || fail "(i) load after SIGTERM"
import csv, json, sys
path, termed, ips, matrix = sys.argv[1], float(sys.argv[2]), sys.argv[3].split(), sys.argv[4]
last = {ip: 0.0 for ip in ips}
for line in open(path):
    r = json.loads(line)
    if r["src"] in last and r["bytes"] > 0:
        last[r["src"]] = max(last[r["src"]], r["t"])
for ip in ips:
    print(f"{ip}: last bytes at the target {last[ip] - termed:+.1f} s after SIGTERM")
    assert last[ip] - termed <= 2.0, f"{ip} kept loading after SIGTERM"
row = list(csv.DictReader(open(matrix)))[0]
assert row["aborted"] == "true", row
PY
pass "(i) SIGTERM stopped every agent, kept the aborted cell, exit 143"
for i in 1 2 3 4; do eval "kill -TERM \$AGENT_PID_$i" 2> /dev/null || true; done

# ---- (g) --allow-target -----------------------------------------------------------------------
netns_scenario refuse ng 3s "  shards: [1]
  batch_size: [100]
  concurrency: [1]"
"$COORD" run "$TMP/refuse.yaml" --agents 1 --bind "$CTRL" --keys "$TMP/keys/coord" \
    --wait 30s --results "$TMP/results2" -q > "$TMP/coord2.out" 2> "$TMP/coord2.log" &
COORD_PID=$!
netns_track $COORD_PID
netns_agent 5 --allow-target 127.0.0.1
netns_wait $COORD_PID 120
rc=$WAIT_RC
[ $rc = 1 ] || fail "(g) coordinator exited with $rc, expected 1 (cell failed)"
grep -q "not in this agent's --allow-target list" "$TMP/coord2.log" || fail "(g) no refusal reason in the coordinator log"
grep -q "refusing the cell" "$TMP/a5.log" || fail "(g) the agent did not say it refused"
python3 - "$TMP"/results2/refuse-*/matrix.csv <<'PY' || fail "(g) row"
import csv, sys
r = list(csv.DictReader(open(sys.argv[1])))[0]
assert r["failed"] == "true" and "allow-target" in r["reason"], r
PY
if grep -q "\"src\": \"$(netns_ip 5)\"" "$TMP/fwd.ndjson"; then fail "(g) the refusing agent loaded the target"; fi
pass "(g) a Prepare aimed outside --allow-target was refused; the target never saw that agent"
echo "netns_fleet: $((SECONDS - T0)) s"
