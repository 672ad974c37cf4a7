#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# netns_chaos — bench/chaos.sh with a fixed seed and 10 faults: a 6-cell campaign of
# a coordinator and 3 agent hosts (network namespaces bfc1-a1..a3 on a bridge, 10.214.1.0/24,
# reaching the fault server through bench/chaos_forward.py) while kill -9 / SIGSTOP of agents
# and of the coordinator (then --resume), SIGSTOP of the target, the fault server's 429s,
# 429 / 400 / 409 items, 413, resets, hang-ups, stalls and rare HTML answers, a full results
# disk (a 16 MiB tmpfs), an agent host's link down, the forwarder's delay and loss and a slow
# results disk (the LD_PRELOAD shim tests/support/bf_slowdisk.c) hit it; every invariant of
# bench/chaos_check.py must hold: "faults 10, invariant violations 0". Seed 263 (seed 26 until
# slow_disk joined the menu and changed the draws) brings a partition, a stopped target, a kill
# of the coordinator, a slow disk of 1 s per call for 6.6 s and one of 0.5 s for 6.2 s, a stall,
# a full disk, a stopped agent and two delays. Root tier (namespaces, the tmpfs mount). About
# 1 minute (53 s by hand).
source "$(dirname "$0")/lib.sh"
if [ "$(id -u)" != 0 ]; then
    echo "SKIP: netns_chaos needs root (the full-disk fault mounts a tmpfs)"; exit 77
fi
set +e
BF_BUILD_DIR="$BUILD" timeout 300 python3 "$SRC/bench/chaos.py" --seed 263 --faults 10 \
    --out "$TMP/chaos" > "$TMP/chaos.txt" 2>&1
rc=$?
set -e
cat "$TMP/chaos.txt"
[ "$rc" -ne 124 ] || fail "chaos.sh did not end within 300 s"
last=$(tail -n 1 "$TMP/chaos.txt")
[ "$last" = "faults 10, invariant violations 0" ] || fail "last line: '$last' (exit $rc)"
[ "$rc" = 0 ] || fail "chaos.sh exit $rc"
grep -q "kill_coordinator" "$TMP/chaos/chaos.log" || fail "seed 263 should kill the coordinator"
grep -q '"kind": "disk_full"' "$TMP/chaos/chaos.log" || fail "seed 263 should fill the results disk"
grep -q '"kind": "partition"' "$TMP/chaos/chaos.log" || fail "seed 263 should cut an agent host's link"
grep -q '"kind": "net_delay"' "$TMP/chaos/chaos.log" || fail "seed 263 should make the forwarder delay"
grep -q '"kind": "slow_disk"' "$TMP/chaos/chaos.log" || fail "seed 263 should slow the results disk"
grep -Eq '^chaos: slow disk: [1-9][0-9]* calls' "$TMP/chaos.txt" ||
    fail "the slow disk slowed no call of the coordinator's"
if ip netns list | grep -q '^bfc1-'; then fail "namespaces left: $(ip netns list | grep '^bfc1-')"; fi
pass "seed 263: 10 faults, every invariant holds"
