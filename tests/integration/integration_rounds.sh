#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_rounds — run.repeat in rounds: with repeat 3 each round runs every cell once, in
# the order `plan` prints for run.seed (a new shuffle each round), the progress lines count
# repetitions and rounds, and matrix.json's schedule records each repetition's round, position
# and start time in the order they ran (each repetition's cell file too); run.order: sequential
# keeps each cell's repetitions back to back. Two cells, 1 s windows: about 25 s.
source "$(dirname "$0")/lib.sh"
PORT=$(free_port)
IDX="bf-rounds-$$"
trap 'curl -sf -X DELETE "$ES/$IDX" > /dev/null 2>&1 || true; cleanup_tmp' EXIT
cd "$TMP"
scenario() { # ORDER REPEAT
    cat <<YAML
name: rounds
target: {hosts: ["$ES"]}
index: {name: $IDX, recreate: true}
variables: [{name: n, type: range, from: 1, to: 9}]
document: {source: '{"n": \$[[n]]}'}
run: {warmup: 0s, duration: 1s, repeat: $2, seed: 7, order: $1}
matrix: {batch_size: [50, 100], concurrency: [1]}
YAML
}
scenario rounds 3 > r.yaml
scenario sequential 2 > s.yaml
"$COORD" plan r.yaml > plan.txt || fail "plan exit $?"
grep -q "^run order: 3 rounds" plan.txt || { cat plan.txt; fail "plan does not print the rounds"; }
"$COORD" run r.yaml --local-agents 1 --threads 1 --insecure --bind "tcp://127.0.0.1:$PORT" \
    --results res > out.txt 2> err.txt || { tail -20 err.txt >&2; fail "rounds campaign exit $?"; }
grep -q "run 4/6 (round 2/3, cell 2/2) " err.txt || { grep " run " err.txt >&2; fail "no 'run 4/6 (round 2/3, cell 2/2)' line"; }
"$COORD" run s.yaml --local-agents 1 --threads 1 --insecure --bind "tcp://127.0.0.1:$PORT" \
    --results seq > out2.txt 2> err2.txt || { tail -20 err2.txt >&2; fail "sequential campaign exit $?"; }
python3 - res seq plan.txt <<'PY' || fail "schedule"
import glob, json, re, sys
cells = ["i1-s1-r0-b50-c1", "i1-s1-r0-b100-c1"]
plan = {int(m.group(1)): [cells[int(x) - 1] for x in m.group(2).split()]
        for m in re.finditer(r"^  round (\d+): ([\d ]+)$", open(sys.argv[3]).read(), re.M)}
assert sorted(plan) == [1, 2, 3], plan
d = glob.glob(sys.argv[1] + "/rounds-*")[0]
m = json.load(open(d + "/matrix.json"))
sched = m["schedule"]
assert len(sched) == 6, sched
starts = [s["started_at"] for s in sched]
assert all(starts) and starts == sorted(starts), starts
for r in (1, 2, 3):
    ran = [s for s in sched if s["round"] == r]
    # every cell once a round, in the order plan printed for this seed and round
    assert [s["cell"] for s in ran] == plan[r], (r, ran, plan[r])
    assert [s["position"] for s in ran] == [1, 2] and all(s["repetition"] == r for s in ran), ran
    for s in ran:
        row = json.loads(open(f"{d}/cells/{s['name']}.ndjson").readline())
        assert row["round"] == r and row["position"] == s["position"], (s, row)
        assert row["started_at_ms"] > 0 and row["verified"] is True, row
assert len({tuple(plan[r]) for r in plan}) > 1, "every round had the same order"
assert [r["cell"] for r in m["rows"]] == cells and all(r["repeat"] == 3 for r in m["rows"]), m["rows"]
d = glob.glob(sys.argv[2] + "/rounds-*")[0]
sched = json.load(open(d + "/matrix.json"))["schedule"]
assert [(s["cell"], s["repetition"], s["round"], s["position"]) for s in sched] == [
    (cells[0], 1, 0, 1), (cells[0], 2, 0, 2), (cells[1], 1, 0, 3), (cells[1], 2, 0, 4)], sched
print("rounds:", {r: plan[r] for r in plan})
PY
pass "repeat 3 in shuffled rounds as plan printed them; the schedule in matrix.json; sequential order kept"
