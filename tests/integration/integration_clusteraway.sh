#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_clusteraway — the cluster goes away between cells (a TCP forwarder in front of the
# real test cluster, killed once the first cell's file is written):
#  A. it comes back within --cluster-wait: preparing the next cell retries with a progress line,
#     then the campaign finishes, every row verified (exit 0);
#  B. it stays away: after --cluster-wait 3s the campaign stops with exit 3 and says how to go on;
#  C. run --resume DIR with the cluster back runs the failed cell again (verified) and keeps the
#     finished one.
#  D. it goes away in the middle of a cell's load (the forwarder killed, as a killed node looks
#     to bulkfleet: connections reset, then refused): that row is UNVERIFIED with docs_counted
#     null, the next cell (never started) is FAILED without "stalled"; the findings name the row as
#     left out; --resume with the cluster back runs the uncounted one again by itself and the
#     other named by --rerun (both verified); --rerun without --resume or with a bad name is
#     refused (exit 2).
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

# A: away for ~3 s, back within --cluster-wait. The forwarder must be gone before the next cell
# is prepared: the first cell's file appears, then the matrix is rewritten, then cell 2's index
# is created, a few ms in all (once the test's 50 ms poll missed it and cell 2 loaded). The
# slow-disk shim holds each rename under the results folder 400 ms, so after cells/*.ndjson
# appears the matrix's renames leave the test more than a second to stop the forwarder.
start_fwd
LD_PRELOAD="$BUILD/tests/libbf_slowdisk.so" BF_SLOWDISK_DIR="$TMP/a" BF_SLOWDISK_OPS=rename \
    BF_SLOWDISK_MS=400 BF_SLOWDISK_LOG="$TMP/slowdisk.log" run_coord "$TMP/a" --cluster-wait 30s
wait_first_cell "$TMP/a"
stop_fwd
grep -q '^rename 400 ' "$TMP/slowdisk.log" || fail "A: the shim held no rename (is $BUILD/tests/libbf_slowdisk.so there?)"
for _ in $(seq 1 200); do grep -q "not reachable.*trying again" "$TMP/err" && break; sleep 0.05; done
grep -q "not reachable.*trying again" "$TMP/err" || { cat "$TMP/err" >&2; fail "A: no progress line while the cluster is away"; }
sleep 2
start_fwd
rc=0; wait "$CPID" || rc=$?; CPID=
[ "$rc" = 0 ] || { cat "$TMP/err" >&2; fail "A: exit $rc after the cluster came back"; }
rows_verified "$(ls -d "$TMP"/a/away-*)" 2 || fail "A: rows"

# B: away for good, --cluster-wait 3s (the renames held as in A)
LD_PRELOAD="$BUILD/tests/libbf_slowdisk.so" BF_SLOWDISK_DIR="$TMP/b" BF_SLOWDISK_OPS=rename \
    BF_SLOWDISK_MS=400 run_coord "$TMP/b" --cluster-wait 3s
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

# D: away in the middle of the first cell's load (3 s), for good: --cluster-wait 2s
sed -i 's/duration: 2s/duration: 3s/' "$TMP/s.yaml"
run_coord "$TMP/d" --cluster-wait 2s
for _ in $(seq 1 600); do
    ls "$TMP"/d/*/cells/*.samples.partial > /dev/null 2>&1 && break
    kill -0 "$CPID" 2> /dev/null || break
    sleep 0.05
done
ls "$TMP"/d/*/cells/*.samples.partial > /dev/null 2>&1 || { cat "$TMP/err" >&2; fail "D: the first cell never started"; }
sleep 1.5
kill -9 "$FWD"; wait "$FWD" 2> /dev/null || true; FWD=""
rc=0; wait "$CPID" || rc=$?; CPID=
[ "$rc" = 3 ] || { cat "$TMP/err" >&2; fail "D: exit $rc, expected 3"; }
grep -q "failed cells and cells whose documents could not be counted run again" "$TMP/err" ||
    { cat "$TMP/err" >&2; fail "D: the stop message does not say what --resume reruns"; }
D=$(ls -d "$TMP"/d/away-*)
python3 - "$D" <<'PY' || { cat "$TMP/err" >&2; fail "D: rows of the interrupted campaign"; }
import json, sys
m = json.load(open(sys.argv[1] + "/matrix.json"))
rows = {r["cell"]: r for r in m["rows"]}
a, b = rows["i1-s1-r0-b50-c1"], rows["i1-s1-r0-b60-c1"]
assert a["verified"] is False and a["docs_counted"] is None and a["failed"] is False, a
assert "could not be counted" in a["reason"], a["reason"]
assert b["failed"] is True and b["stalled"] is False and b["few_requests"] is False, b
assert "stalled" not in b["reason"] and "missing" not in b["reason"], b["reason"]
left = [i for i in m["findings"]["items"] if i["kind"] == "left_out"]
assert left and [c["cell"] for c in left[0]["figures"]["cells"]] == ["i1-s1-r0-b50-c1", "i1-s1-r0-b60-c1"], left
assert not any(i["kind"] == "best" for i in m["findings"]["items"]), m["findings"]["lines"]
PY
grep -q "| FAILED |" "$D/matrix.md" || { cat "$D/matrix.md" >&2; fail "D: the never-started cell is not FAILED alone"; }
start_fwd
run_coord "$TMP/d" --rerun 1
rc=0; wait "$CPID" || rc=$?; CPID=
[ "$rc" = 2 ] && grep -q -- "--rerun runs cells of a campaign again: give it with --resume" "$TMP/err" ||
    { cat "$TMP/err" >&2; fail "D: --rerun without --resume: exit $rc"; }
run_coord "$TMP/d" --resume "$D" --rerun nosuchcell
rc=0; wait "$CPID" || rc=$?; CPID=
[ "$rc" = 2 ] && grep -q -- "--rerun: 'nosuchcell' is neither a cell id nor a number" "$TMP/err" ||
    { cat "$TMP/err" >&2; fail "D: --rerun nosuchcell: exit $rc"; }
# the uncounted cell runs again by itself; the failed one (C checks that case) is named by
# --rerun, which wins over any other reason: one resume checks both
run_coord "$TMP/d" --resume "$D" --rerun 2
rc=0; wait "$CPID" || rc=$?; CPID=
[ "$rc" = 0 ] || { cat "$TMP/err" >&2; fail "D: resume exit $rc"; }
grep -q "cell i1-s1-r0-b50-c1 in .* could not be counted (.*): running it again" "$TMP/err" ||
    { cat "$TMP/err" >&2; fail "D: the uncounted cell was not run again"; }
grep -q "cell i1-s1-r0-b60-c1 finished in .*: running it again (--rerun)" "$TMP/err" ||
    { cat "$TMP/err" >&2; fail "D: --rerun 2"; }
rows_verified "$D" 2 || fail "D: rows after resume"
pass "cluster away between cells: retried and finished; gave up with exit 3; --resume reran the failed cell; away mid-cell: uncounted row left out of the findings, never-started cell FAILED not stalled, --resume reran it, --rerun the other"
