#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# netns_partition — one agent host cut off from the coordinator for 20 s mid-cell (net 10.213.3.0/24).
#
#   (c) the fleet traffic (both ways) between agent host a2 and the coordinator is dropped for
#       20 s while a2 can still reach the cluster: a2's load stops within 15 s by itself
#       (dead-man switch, measured at the target by the forwarder), the coordinator marks it
#       lost (10 s) and the cell degraded, a2 reconnects after the cut, and every one of its
#       samples reaches the results exactly once (seq 1..N, no gap, no duplicate, final last).
# The cell lasts 32 s so the dead-man switch, not the end of the cell, stops the load, and a2 is
# back before a1 finishes.
source "$(dirname "$0")/lib.sh"
source "$SRC/tests/support/netns.sh"
netns_require
T0=$SECONDS
netns_setup 3 2
netns_forwarder
netns_keys 2 1 2
netns_scenario partition np 31s "  shards: [1]
  batch_size: [50]
  concurrency: [2]"
CTRL="tcp://$(netns_coord_addr):7100"

"$COORD" run "$TMP/partition.yaml" --agents 2 --bind "$CTRL" --keys "$TMP/keys/coord" \
    --wait 30s --results "$TMP/results" -q > "$TMP/coord.out" 2> "$TMP/coord.log" &
COORD_PID=$!
netns_track $COORD_PID
wait_log "$TMP/coord.log" "waiting|target:" 20 || fail "the coordinator did not start"
for i in 1 2; do netns_agent $i --allow-target "$(netns_fwd_addr)"; done
wait_log "$TMP/a2.log" "starts in" 40 || fail "the cell did not start"
sleep 3
CUT=$(now)
netns_cut 2
echo "cut a2 from the coordinator at $CUT"
sleep 20
netns_heal 2
HEALED=$(now)
echo "healed at $HEALED"
netns_wait $COORD_PID 90
rc=$WAIT_RC
[ $rc = 1 ] || fail "coordinator exited with $rc, expected 1 (cell degraded)"

grep -q "dead-man switch" "$TMP/a2.log" || fail "a2: no dead-man switch"
if grep -q "dead-man switch" "$TMP/a1.log"; then fail "a1 was never cut but fired its dead-man switch"; fi
grep -q "resending .* samples" "$TMP/a2.log" || fail "a2 did not resend its samples"
DIR=$(ls -d "$TMP"/results/partition-*)
python3 - "$DIR" "$TMP/fwd.ndjson" "$CUT" "$HEALED" "$(netns_ip 2)" <<'PY' || fail "(c) results"
import csv, json, os, sys
d, fwd, cut, healed, ip = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
# load of a2 at the target: still going after the cut (the dead-man switch stops it, not the
# cut), and stopped within 15 s of the cut (+0.25 s accounting tick, +1.75 s slack)
last, after_heal = 0.0, 0
for line in open(fwd):
    r = json.loads(line)
    if r["src"] == ip and r["bytes"] > 0:
        last = max(last, r["t"])
        if r["t"] > healed + 1.0:
            after_heal += r["bytes"]
stop = last - cut
print(f"a2's load at the target stopped {stop:.1f} s after the cut")
assert 8.0 <= stop <= 17.0, f"a2 stopped loading {stop:.1f} s after the cut"
assert after_heal == 0, f"a2 loaded the target again after the cut healed ({after_heal} bytes)"
row = list(csv.DictReader(open(os.path.join(d, "matrix.csv"))))[0]
assert row["degraded"] == "true" and "agent a2 lost from second" in row["reason"], row
lines = [json.loads(l) for l in open(os.path.join(d, "cells", row["cell"] + ".ndjson"))]
for agent in ("a1", "a2"):
    seqs = [l["seq"] for l in lines if l["type"] == "sample" and l["agent"] == agent]
    assert seqs == list(range(1, len(seqs) + 1)), f"{agent}: seqs {seqs}"
    finals = [l for l in lines if l["type"] == "sample" and l["agent"] == agent and l.get("final")]
    assert len(finals) == 1 and finals[0]["seq"] == len(seqs), f"{agent}: finals {finals}"
    print(f"{agent}: samples 1..{len(seqs)}, each once, final last")
seconds = [l["second"] for l in lines if l["type"] == "sample" and l["agent"] == "a2" and not l.get("final")]
assert max(seconds) >= 8, f"a2's samples end at second {max(seconds)}: not the ones of the cut"
print("row:", row["reason"])
PY
pass "(c) cut for 20 s: load stopped by the dead-man switch, a2 reconnected, samples arrived exactly once"
echo "netns_partition: $((SECONDS - T0)) s"
