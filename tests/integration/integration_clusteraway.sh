#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_clusteraway — the cluster goes away between cells (a TCP forwarder in front of the
# real test cluster, killed once the first cell's file is written):
#  A. it comes back within --cluster-wait: preparing the next cell retries with a progress line,
#     then the campaign finishes, every row verified (exit 0);
#  B. it stays away: after --cluster-wait 3s the campaign stops with exit 3 and says how to go on;
#  C. run --resume DIR with the cluster back runs the failed cell again (verified) and keeps the
#     finished one.
source "$(dirname "$0")/lib.sh"
FP=$(free_port)
IDX="bf-away-$$"
FWD=""
start_fwd() {
    python3 "$SRC/tests/support/netns_forward.py" --listen "127.0.0.1:$FP" --to "${ES#http://}" \
        --log "$TMP/fwd.log" &
    FWD=$!
    for _ in $(seq 1 50); do curl -sf "http://127.0.0.1:$FP/" > /dev/null 2>&1 && return 0; sleep 0.1; done
    fail "the forwarder did not start"
}
stop_fwd() { [ -n "$FWD" ] && kill "$FWD" 2> /dev/null; wait "$FWD" 2> /dev/null || true; FWD=""; }
cleanup() {
    stop_fwd
    [ -n "${CPID:-}" ] && kill "$CPID" 2> /dev/null || true
    curl -sf -X DELETE "$ES/$IDX-*" > /dev/null 2>&1 || true
    cleanup_tmp
}
trap cleanup EXIT
cat > "$TMP/s.yaml" <<YAML
name: away
target: {hosts: ["http://127.0.0.1:$FP"]}
index: {name: "$IDX-{batch_size}", recreate: true}
variables: [{name: n, type: range, from: 1, to: 9}]
document: {source: '{"n": \$[[n]]}'}
run: {warmup: 0s, duration: 2s}
matrix: {batch_size: [50, 60], concurrency: [1]}
YAML
wait_first_cell() { # wait_first_cell RESULTS
    for _ in $(seq 1 600); do
        ls "$1"/*/cells/*.ndjson > /dev/null 2>&1 && return 0
        kill -0 "$CPID" 2> /dev/null || break
        sleep 0.05
    done
    cat "$TMP/err" >&2; fail "the first cell never finished"
}
rows_verified() { # rows_verified DIR N
    python3 - "$1" "$2" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1] + "/matrix.json"))["rows"]
assert len(rows) == int(sys.argv[2]), rows
for r in rows:
    assert r["verified"] is True and r["failed"] is False, r
PY
}
run_coord() { # run_coord RESULTS [args...]
    local res=$1; shift
    local p; p=$(free_port)
    "$COORD" run "$TMP/s.yaml" --local-agents 1 --threads 1 --insecure --bind "tcp://127.0.0.1:$p" \
        --results "$res" -q "$@" > "$TMP/out" 2> "$TMP/err" &
    CPID=$!
}

# A: away for ~3 s, back within --cluster-wait
start_fwd
run_coord "$TMP/a" --cluster-wait 30s
wait_first_cell "$TMP/a"
stop_fwd
for _ in $(seq 1 200); do grep -q "not reachable.*trying again" "$TMP/err" && break; sleep 0.05; done
grep -q "not reachable.*trying again" "$TMP/err" || { cat "$TMP/err" >&2; fail "A: no progress line while the cluster is away"; }
sleep 2
start_fwd
rc=0; wait "$CPID" || rc=$?; CPID=
[ "$rc" = 0 ] || { cat "$TMP/err" >&2; fail "A: exit $rc after the cluster came back"; }
rows_verified "$(ls -d "$TMP"/a/away-*)" 2 || fail "A: rows"

# B: away for good, --cluster-wait 3s
run_coord "$TMP/b" --cluster-wait 3s
wait_first_cell "$TMP/b"
stop_fwd
t0=$(date +%s)
rc=0; wait "$CPID" || rc=$?; CPID=
t1=$(date +%s)
[ "$rc" = 3 ] || { cat "$TMP/err" >&2; fail "B: exit $rc, expected 3"; }
[ $((t1 - t0)) -le 20 ] || fail "B: took $((t1 - t0)) s to give up (--cluster-wait 3s)"
grep -q "stopping the campaign: the cluster .* stayed unreachable" "$TMP/err" || { cat "$TMP/err" >&2; fail "B: no stop message"; }
grep -q -- "--resume" "$TMP/err" || fail "B: the message does not say --resume"
D=$(ls -d "$TMP"/b/away-*)

# C: back; --resume reruns the failed cell
start_fwd
run_coord "$TMP/b" --resume "$D"
rc=0; wait "$CPID" || rc=$?; CPID=
[ "$rc" = 0 ] || { cat "$TMP/err" >&2; fail "C: resume exit $rc"; }
grep -q "failed in .*running it again" "$TMP/err" || { cat "$TMP/err" >&2; fail "C: the failed cell was not run again"; }
grep -q "already finished in .*kept" "$TMP/err" || { cat "$TMP/err" >&2; fail "C: the finished cell was not kept"; }
rows_verified "$D" 2 || fail "C: rows after resume"
pass "cluster away between cells: retried and finished; gave up with exit 3; --resume reran the failed cell"
