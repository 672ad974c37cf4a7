#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# netns_slowdisk — a campaign on a slow results disk: bench/chaos.sh's 6-cell
# campaign (coordinator and 3 agents on 127.0.0.1, the fault server as the target, no random
# fault) with every fsync under the results directory 300 ms late, all the way through (the
# LD_PRELOAD shim tests/support/bf_slowdisk.c: this kernel has no dm-delay). Every row must end
# verified and not degraded (the target's count, the rows' acknowledged documents and the
# coordinator's _count agree), every invariant of bench/chaos_check.py hold, no agent be
# called lost, and the shim must have slowed the campaign's fsyncs (at least 30 of them).
# Root tier beside netns_chaos (the results tmpfs is mounted as in chaos.sh). About 70 s.
source "$(dirname "$0")/lib.sh"
if [ "$(id -u)" != 0 ]; then
    echo "SKIP: netns_slowdisk needs root (chaos.sh mounts the results tmpfs)"; exit 77
fi
set +e
BF_BUILD_DIR="$BUILD" timeout 300 python3 "$SRC/bench/chaos.py" --seed 1 --faults 0 --net 0 \
    --slow-disk-ms 300 --slow-disk-ops fsync --out "$TMP/chaos" > "$TMP/chaos.txt" 2>&1
rc=$?
set -e
cat "$TMP/chaos.txt"
[ "$rc" -ne 124 ] || fail "chaos.sh did not end within 300 s"
last=$(tail -n 1 "$TMP/chaos.txt")
[ "$last" = "faults 0, invariant violations 0" ] || fail "last line: '$last' (exit $rc)"
[ "$rc" = 0 ] || fail "chaos.sh exit $rc"
verified=$(grep -c '^chaos: cell .*: verified, ' "$TMP/chaos.txt" || true)
[ "$verified" = 6 ] || fail "$verified of 6 cells verified"
if grep -q '^chaos: cell .*degraded' "$TMP/chaos.txt"; then fail "a degraded row"; fi
if grep -E 'lost: silent|did not finish cell' "$TMP/chaos/coordinator.err"; then
    fail "the coordinator called an agent lost or late on a slow disk (above)"
fi
fsyncs=$(grep -c '^fsync 300 ' "$TMP/chaos/slowdisk.log" || true)
others=$(grep -vc '^fsync ' "$TMP/chaos/slowdisk.log" || true)
[ "$fsyncs" -ge 30 ] || fail "only $fsyncs fsyncs were slowed (the shim is not in the coordinator?)"
[ "$others" = 0 ] || fail "$others calls other than fsync were slowed (BF_SLOWDISK_OPS=fsync)"
pass "6 cells verified with $fsyncs fsyncs 300 ms late"
