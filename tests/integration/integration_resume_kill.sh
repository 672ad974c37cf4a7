#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_resume_kill — kill -9 of the coordinator in the middle of cell 2, then at once
# `run --resume DIR` with the same two agents (separate processes, still loading cell 2): the new
# coordinator stops them and, if they are still draining (they answer "busy" to a Prepare),
# waits for them instead of failing the cell, recreates the index only then, and the rerun of cell 2 is verified; cell 1 is
# kept, and matrix.json keeps the campaign's seed; each agent's "still running ... stopping it"
# line is logged once (it came twice: an agent's Hello is repeated); the rerun of the
# interrupted cell is said, with what it had recorded; the first run said its results directory
# and the --resume command at its start.
source "$(dirname "$0")/lib.sh"
P=$(free_port)
IDX="bf-kill-$$"
APIDS=()
cleanup() {
    for p in "${APIDS[@]}" ${CPID:-}; do kill "$p" 2> /dev/null || true; done
    curl -sf -X DELETE "$ES/$IDX-*" > /dev/null 2>&1 || true
    cleanup_tmp
}
trap cleanup EXIT
cat > "$TMP/s.yaml" <<YAML
name: resumekill
target: {hosts: ["$ES"]}
index: {name: "$IDX-{batch_size}", recreate: true}
variables: [{name: n, type: range, from: 1, to: 9}]
document: {source: '{"n": \$[[n]]}'}
run: {warmup: 0s, duration: 6s}
matrix: {batch_size: [50, 60], concurrency: [2]}
YAML
for i in 1 2; do
    "$AGENT" --coordinator "tcp://127.0.0.1:$P" --insecure --id "k$i" --threads 1 -q 2> "$TMP/agent$i.err" &
    APIDS+=($!)
done
"$COORD" run "$TMP/s.yaml" --agents 2 --insecure --bind "tcp://127.0.0.1:$P" --results "$TMP/r" -q \
    > "$TMP/out1" 2> "$TMP/err1" &
CPID=$!
for _ in $(seq 1 600); do
    ls "$TMP"/r/*/cells/*.ndjson > /dev/null 2>&1 && break
    kill -0 "$CPID" 2> /dev/null || break
    sleep 0.05
done
ls "$TMP"/r/*/cells/*.ndjson > /dev/null 2>&1 || { cat "$TMP/err1" >&2; fail "cell 1 never finished"; }
for _ in $(seq 1 200); do grep -q "cell 2/2" "$TMP/err1" && break; sleep 0.05; done
sleep 2.5   # cell 2 is loading
kill -9 "$CPID"; wait "$CPID" 2> /dev/null || true; CPID=
D=$(ls -d "$TMP"/r/resumekill-*)
# the directory and the command that continues it are said at the start, as a kill -9 says nothing
grep -qF "results: $D (if this run is interrupted: run --resume $D continues it)" "$TMP/err1" ||
    { cat "$TMP/err1" >&2; fail "the results directory was not said at the start"; }
SEED=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["seed"])' "$D/matrix.json")
rc=0
timeout 120 "$COORD" run "$TMP/s.yaml" --agents 2 --insecure --bind "tcp://127.0.0.1:$P" --resume "$D" -q \
    > "$TMP/out2" 2> "$TMP/err2" || rc=$?
[ "$rc" = 0 ] || { cat "$TMP/err2" >&2; fail "resume after kill -9: exit $rc"; }
# an agent still draining when the Prepare comes answers busy and is waited for; one that
# drained in the milliseconds between Stop and Prepare needs no wait (seen in about half the
# runs: the agent stops its in-flight requests at once). Either way the cell must not fail
# (the rows below are verified); say which path this run took.
if grep -q "is still draining another cell; waiting for it" "$TMP/err2"; then
    drain="waited for the draining agents"
else
    grep -q "cell 2/2 i1-s1-r0-b60-c2 .* on 2 agents" "$TMP/err2" && ! grep -q "failed" "$TMP/err2" ||
        { cat "$TMP/err2" >&2; fail "the agents neither drained before the Prepare nor were waited for"; }
    drain="the agents had drained before the Prepare"
fi
# the options it reuses, said as a sentence when there are none ("the campaign's no --cells")
grep -qF -- "--resume: continuing with the options the campaign started with: no --cells, --warmup, --first-warmup or --duration" "$TMP/err2" ||
    { cat "$TMP/err2" >&2; fail "--resume did not say it reuses no options"; }
grep -q "already finished in .*kept" "$TMP/err2" || { cat "$TMP/err2" >&2; fail "cell 1 was not kept"; }
# the cell the kill interrupted is said to run again (it ran again without a word)
grep -Eq "cell i1-s1-r0-b60-c2 started in .* and did not finish \(cells/i1-s1-r0-b60-c2.samples.partial, [0-9]+ sample lines\): running it again from the start" "$TMP/err2" ||
    { cat "$TMP/err2" >&2; fail "the rerun of the interrupted cell 2 is not said"; }
# each agent's Hello comes more than once; what it said is logged once per agent (nu3: every
# "still running ... stopping it" and "holds samples ... discarded" line came twice)
for pat in "is still running cell .*, which is not running here; stopping it" "holds samples of cell .* that this run does not need: discarded"; do
    dup=$(grep -o "agent [^ ]* $(printf '%s' "$pat" | cut -c1-200)" "$TMP/err2" | sed 's/ cell .*//' | sort | uniq -d)
    [ -z "$dup" ] || { cat "$TMP/err2" >&2; fail "logged more than once for $dup: $pat"; }
done
grep -q "is still running cell .*, which is not running here; stopping it" "$TMP/err2" ||
    { cat "$TMP/err2" >&2; fail "no agent was said to be still running the old cell"; }
python3 - "$D" "$SEED" <<'PY' || fail "rows after resume"
import glob, json, sys
d, seed = sys.argv[1], int(sys.argv[2])
m = json.load(open(d + "/matrix.json"))
assert m["seed"] == seed, (m["seed"], seed)
assert len(m["rows"]) == 2, m["rows"]
for r in m["rows"]:
    assert r["verified"] is True and r["failed"] is False, r
print("both rows verified, seed", seed, "kept")
PY
pass "kill -9 mid-cell, immediate --resume: $drain, rerun verified, seed kept"
