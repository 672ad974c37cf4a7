#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# netns_failures — hosts and the coordinator dying mid-cell (net 10.213.2.0/24).
#
#   (b) kill -9 one of 3 agents in the middle of cell 1: cell 1 is marked degraded (which agent,
#       from which second), cell 2 runs with the 2 that are left (--min-agents 2)
#   (d) kill -9 the coordinator in the middle of cell 2: the load of every agent stops within
#       15 s (dead-man switch, measured at the target by the forwarder), and `run --resume DIR`
#       keeps cell 1 and completes the campaign with the same agents
# Cells last 25 s so that the dead-man switch, not the end of the cell, stops the load.
source "$(dirname "$0")/lib.sh"
source "$SRC/tests/support/netns.sh"
netns_require
T0=$SECONDS
netns_setup 2 3
netns_forwarder
netns_keys 3 1 2 3
netns_scenario failures nx 25s "  shards: [1]
  batch_size: [50, 100]
  concurrency: [3]"
CTRL="tcp://$(netns_coord_addr):7100"

"$COORD" run "$TMP/failures.yaml" --agents 3 --min-agents 2 --lost 5s --bind "$CTRL" \
    --keys "$TMP/keys/coord" --wait 30s --results "$TMP/results" -q > "$TMP/coord.out" 2> "$TMP/coord.log" &
COORD_PID=$!
netns_track $COORD_PID
wait_log "$TMP/coord.log" "waiting|target:" 20 || fail "the coordinator did not start"
for i in 1 2 3; do netns_agent $i --allow-target "$(netns_fwd_addr)"; done

# ---- (b) --------------------------------------------------------------------------------------
wait_log "$TMP/a3.log" "starts in" 40 || fail "(b) cell 1 did not start"
sleep 3
kill -KILL "$AGENT_PID_3"
echo "killed agent a3 in cell 1"

# ---- (d) --------------------------------------------------------------------------------------
for _ in $(seq 1 600); do
    [ "$(grep -c 'starts in' "$TMP/a1.log")" -ge 2 ] && break
    kill -0 $COORD_PID 2> /dev/null || fail "(d) the coordinator ended before cell 2"
    sleep 0.1
done
[ "$(grep -c 'starts in' "$TMP/a1.log")" -ge 2 ] || fail "(d) cell 2 did not start"
grep -q "cell 2/2 .* on 2 agents" "$TMP/coord.log" || fail "(b) cell 2 did not start with 2 agents"
sleep 3
KILLED=$(now)
kill -KILL $COORD_PID
echo "killed the coordinator in cell 2 at $KILLED"
# load must stop within 15 s of the coordinator's last word; look until 20 s
sleep 19
python3 - "$TMP/fwd.ndjson" "$KILLED" "$(netns_ip 1)" "$(netns_ip 2)" <<'PY' || fail "(d) load did not stop in time"
import json, sys
path, killed, ips = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
last = {ip: 0.0 for ip in ips}
during = {ip: 0 for ip in ips}
for line in open(path):
    r = json.loads(line)
    if r["src"] in last and r["bytes"] > 0:
        last[r["src"]] = max(last[r["src"]], r["t"])
        if r["t"] > killed:
            during[r["src"]] += r["bytes"]
for ip in ips:
    after = last[ip] - killed
    print(f"{ip}: last bytes at the target {after:+.1f} s after the coordinator died "
          f"({during[ip]} bytes after)")
    assert during[ip] > 0, f"{ip} was not loading when the coordinator died"
    # 15 s dead-man + the forwarder's 0.25 s accounting tick + scheduling slack
    assert after <= 17.0, f"{ip} still loaded the target {after:.1f} s after the coordinator died"
PY
for i in 1 2; do grep -q "dead-man switch" "$TMP/a$i.log" || fail "(d) a$i: no dead-man switch"; done
pass "(d) every agent stopped its load within 15 s of losing the coordinator"

DIR=$(ls -d "$TMP"/results/failures-*)
"$COORD" run "$TMP/failures.yaml" --resume "$DIR" --agents 2 --min-agents 2 --lost 5s \
    --bind "$CTRL" --keys "$TMP/keys/coord" --wait 30s -q > "$TMP/coord2.out" 2> "$TMP/coord2.log" &
COORD_PID=$!
netns_track $COORD_PID
netns_wait $COORD_PID 120
rc=$WAIT_RC
[ $rc = 1 ] || fail "(d) resumed coordinator exited with $rc, expected 1 (cell 1 degraded)"
grep -q "already finished" "$TMP/coord2.log" || fail "(d) resume did not keep finished cells"
python3 - "$DIR" <<'PY' || fail "(b)/(d) results"
import csv, json, os, sys
d = sys.argv[1]
rows = {r["batch_size"]: r for r in csv.DictReader(open(os.path.join(d, "matrix.csv")))}
assert set(rows) == {"50", "100"}, rows.keys()
c1, c2 = rows["50"], rows["100"]
# (b) cell 1 degraded, with which agent and from which second
assert c1["degraded"] == "true" and "agent a3 lost from second" in c1["reason"], c1
assert c1["agents"] == "3", c1["agents"]
# (d) cell 2, run again after the resume with the two that were left, complete and verified
assert c2["agents"] == "2" and c2["degraded"] == "false" and c2["verified"] == "true", c2
assert c2["failed"] == "false" and c2["aborted"] == "false", c2
for r in (c2,):
    lines = [json.loads(l) for l in open(os.path.join(d, "cells", r["cell"] + ".ndjson"))]
    agents = {l["agent"] for l in lines if l["type"] == "sample"}
    assert agents == {"a1", "a2"}, (r["cell"], agents)
print("cell 1:", c1["reason"])
print("cell 2:", c2["docs_counted"], "docs, verified with 2 agents")
PY
pass "(b) a killed agent degrades its cell, the next cell runs with 2"
pass "(d) --resume kept the finished cells and completed the campaign"
echo "netns_failures: $((SECONDS - T0)) s"
