#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_resume_alone — Ctrl-C and `run --resume DIR` as printed: a
# 3-cell campaign with --local-agents is interrupted (SIGINT) during its second cell. The
# coordinator says so on a line of its own (the cell it stopped, that cell's documents in flight
# unknown by design, which cells did not finish, the resume command), exit 130. The command it
# printed is then run exactly as printed, without the scenario or the agents' options: the
# campaign continues from its own record (resume.json), keeps the first cell and runs the
# other two; every row verified, exit 0; the findings (matrix.json, matrix.md) say which cells
# the first run measured and which the resumed one, and how long after.
source "$(dirname "$0")/lib.sh"
IDX="bf-resalone-$$"
trap 'curl -sf -X DELETE "$ES/$IDX-*" > /dev/null 2>&1 || true; cleanup_tmp' EXIT
cat > "$TMP/s.yaml" <<YAML
name: resalone
target: {hosts: ["$ES"]}
index: {name: "$IDX-{batch_size}", recreate: true}
variables: [{name: n, type: range, from: 1, to: 9}]
document: {source: '{"n": \$[[n]]}'}
run: {warmup: 0s, duration: 2s}
matrix: {batch_size: [50, 60, 70], concurrency: [1]}
YAML
P=$(free_port)
cd "$TMP"
setsid "$COORD" run s.yaml --local-agents 1 --threads 1 --insecure --bind "tcp://127.0.0.1:$P" \
    --results r -q > out 2> err &
CPID=$!
for _ in $(seq 1 600); do
    [ "$(ls r/*/cells/*.ndjson 2> /dev/null | wc -l)" -ge 1 ] && break
    sleep 0.05
done
sleep 1 # into the second cell's load
kill -INT -- "-$(ps -o pgid= -p "$CPID" | tr -d ' ')"
rc=0; wait "$CPID" || rc=$?
[ "$rc" = 130 ] || { cat err >&2; fail "exit $rc, expected 130"; }
line=$(grep "interrupted (SIGINT)" err || true)
echo "said: $line"
[ -n "$line" ] || { cat err >&2; fail "no line of its own on Ctrl-C"; }
grep -q "during cell i1-s1-r0-b60-c1 (its documents still in flight .* unknown outcome by design" <<< "$line" ||
    fail "the interrupted cell and its documents in flight are not said"
grep -qF "2 cells did not finish: i1-s1-r0-b60-c1, i1-s1-r0-b70-c1" <<< "$line" || fail "the cells not run are not listed"
cmd=$(sed -n 's/.*continue with: //p' <<< "$line")
[ -n "$cmd" ] || fail "no command to continue with"
# exactly as printed, the program's name being on PATH
set +e
timeout 180 env PATH="$(dirname "$COORD"):$PATH" bash -c "$cmd" > out2 2> err2
rc=$?
set -e
[ "$rc" = 0 ] || { cat err2 >&2; fail "'$cmd': exit $rc"; }
grep -q "already finished in .*; kept" err2 || { cat err2 >&2; fail "the first cell was not kept"; }
python3 - "$(ls -d r/*/)" <<'PY' || fail "rows, runs and findings after the resume"
import json, sys
m = json.load(open(sys.argv[1] + "matrix.json"))
rows = m["rows"]
assert len(rows) == 3, len(rows)
for r in rows:
    assert r["verified"] is True and not r["failed"], (r["cell"], r["reason"])
# the findings say which cells each run measured, and how far apart
runs = m["runs"]
assert [r["repetitions"] for r in runs] == [["i1-s1-r0-b50-c1"], ["i1-s1-r0-b60-c1", "i1-s1-r0-b70-c1"]], runs
assert runs[0]["started_at_ms"] < runs[1]["started_at_ms"], runs
line = [l for l in m["findings"]["lines"] if l.startswith("Measured in 2 runs")]
assert len(line) == 1, m["findings"]["lines"]
assert ": i1-s1-r0-b50-c1; run 2 from " in line[0] and "after run 1's last repetition started: i1-s1-r0-b60-c1, i1-s1-r0-b70-c1." in line[0], line[0]
assert "- " + line[0] in open(sys.argv[1] + "matrix.md").read(), "not in matrix.md's findings"
print("findings: " + line[0])
PY
pass "Ctrl-C said what did not run and how to go on; '$cmd' continued the campaign (3 rows verified, the runs said)"
