#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_standalone — `bulkfleet-agent run` without a coordinator, on
# the real test cluster: (1) it prints the coordinator's progress line (cell n/N, the second
# within its phase, docs/s); (2) Ctrl-C (SIGINT) ends it with exit 130 and prints the partial
# row, over the seconds measured before the interruption (not diluted over the planned 30 s) and
# flagged aborted, not stalled; (3) when something else writes into the cell's index meanwhile,
# the UNVERIFIED reason says there is another writer. Also: every subcommand's --help.
source "$(dirname "$0")/lib.sh"
# each subcommand's --help is its own usage (exit 0), and keygen takes no option for a folder
cd "$TMP"
"$COORD" find-max --help > h.out || fail "find-max --help exit $?"
grep -q "^usage: bulkfleet-coordinator find-max SCENARIO" h.out && grep -q -- "--sustain DURATION" h.out ||
    { cat h.out >&2; fail "find-max --help is not find-max's usage"; }
"$COORD" run --help | grep -q "^usage: bulkfleet-coordinator run SCENARIO" || fail "run --help"
"$AGENT" run --help | grep -q "Ctrl-C stops the load and prints the partial row" || fail "agent run --help"
"$COORD" keygen --help | grep -q "^usage: bulkfleet-coordinator keygen DIR" || fail "keygen --help"
"$AGENT" keygen --help | grep -q "^usage: bulkfleet-agent keygen DIR" || fail "agent keygen --help"
"$AGENT" selftest --help > h.out 2> h.err || fail "agent selftest --help exit $?"
grep -q "^usage: bulkfleet-agent selftest SCENARIO" h.out && [ ! -s h.err ] ||
    { cat h.out h.err >&2; fail "agent selftest --help is not selftest's usage"; }
rc=0; "$COORD" keygen -x 2> /dev/null || rc=$?
[ $rc = 2 ] && [ ! -e -x ] && [ ! -e ./--help ] || fail "keygen made a folder of an option (exit $rc)"
IDX="bf-standalone-$$"
trap 'kill ${AP:-} 2>/dev/null || true; curl -sf -X DELETE "$ES/$IDX" > /dev/null 2>&1 || true; cleanup_tmp' EXIT
cd "$TMP"
cat > s.yaml <<YAML
name: standalone
target: {hosts: ["$ES"]}
index: {name: "$IDX", recreate: true, settings: {number_of_replicas: 0}}
variables: [{name: n, type: range, from: 1, to: 9}]
document: {source: '{"n": \$[[n]]}'}
run: {warmup: 1s, duration: 30s}
matrix: {batch_size: [200], concurrency: [2]}
YAML
# (1) + (2): interrupted about 7 s into a 31 s cell
"$AGENT" run s.yaml --threads 1 --results r1 > a1.out 2> a1.err & AP=$!
for _ in $(seq 1 300); do grep -q "measure 4/30s" a1.err && break; sleep 0.05; done
grep -q "info: cell 1/1 i1-s1-r0-b200-c2 measure 4/30s: [0-9]* docs/s, errors 0, 429 0, elapsed" a1.err ||
    { cat a1.err >&2; fail "no progress line for the 4th measured second"; }
sleep 1.5
kill -INT $AP
rc=0; wait $AP || rc=$?; AP=
[ $rc = 130 ] || { cat a1.err >&2; fail "exit $rc after SIGINT, expected 130"; }
grep -q "| aborted" a1.out || { cat a1.out >&2; fail "no aborted row printed"; }
grep -q "interrupted .* s into the cell; its row covers the [0-9]* seconds measured in full" a1.err ||
    { cat a1.err >&2; fail "the interruption was not explained"; }
python3 - r1 <<'PY' || { cat a1.out a1.err >&2; fail "the partial row is wrong"; }
import glob, json, sys
r = json.load(open(glob.glob(sys.argv[1] + "/*/matrix.json")[0]))["rows"][0]
# interrupted 6-8 s after the start: 5-7 whole seconds measured after the 1 s warmup
assert r["aborted"] and not r["stalled"], r
assert 4 <= r["duration_s"] <= 8, r["duration_s"]
# docs/s is over those seconds, not over 30
assert r["docs_ok"] > 0 and abs(r["docs_per_s"] * r["duration_s"] - r["docs_ok"]) < 1, r
print("partial row: %d s measured, %.0f docs/s, %d acknowledged" % (r["duration_s"], r["docs_per_s"], r["docs_ok"]))
PY
# (3): another writer adds 3000 documents to the index while the agent loads it
sed -i 's/duration: 30s/duration: 4s/' s.yaml
curl -sf -X DELETE "$ES/$IDX" > /dev/null   # so that the index below is the new cell's
"$AGENT" run s.yaml --threads 1 > a2.out 2> a2.err & AP=$!
for _ in $(seq 1 300); do curl -sf "$ES/$IDX/_count" > /dev/null 2>&1 && break; sleep 0.05; done
body=""
for i in $(seq 1 1000); do body+=$'{"index":{}}\n{"other":'$i$'}\n'; done
for _ in 1 2 3; do
    curl -sf -X POST "$ES/$IDX/_bulk" -H 'Content-Type: application/x-ndjson' --data-binary "$body" > /dev/null ||
        fail "the other writer's bulk failed"
done
rc=0; wait $AP || rc=$?; AP=
[ $rc = 1 ] || { cat a2.err >&2; fail "exit $rc with another writer, expected 1 (unverified)"; }
grep -q "not verified: the cluster counts [0-9]* documents but the agents report [0-9]* acknowledged; another writer: the indices grew by 3000 more documents than this run sent" a2.err ||
    { cat a2.err >&2; fail "the reason does not name the other writer"; }
pass "progress line; Ctrl-C: exit 130 and the partial row; another writer named in the reason"
