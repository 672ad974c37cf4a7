#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_repeat_auto — run.repeat: auto on the dev cluster. (1) An A/A pair (two cells that
# differ only in a setting indexing never reads) with findings.alpha 0.001 and noise band 0:
# no number of repetitions up to run.until.max_repeat 3 can decide it (3 + 3 cannot reach
# p < 0.001, and an interval never fits inside a band of 0), so the campaign runs min_repeat 2
# rounds, names the open comparison before round 3, runs both cells again and stops on
# max_repeat, recorded in matrix.json. (2) batch 20 vs 200: decided (higher) after the 4
# rounds of min_repeat, so it stops there, well before max_repeat 8. plan prints the worst
# case. 1 s windows: about 60 s.
source "$(dirname "$0")/lib.sh"
PORT=$(free_port)
IDX="bf-rauto-$$"
trap 'curl -sf -X DELETE "$ES/$IDX-*" > /dev/null 2>&1 || true; cleanup_tmp' EXIT
cd "$TMP"
cat > aa.yaml <<YAML
name: aa
target: {hosts: ["$ES"]}
index: {name: "$IDX-{max_result_window}", recreate: true}
variables: [{name: n, type: range, from: 1, to: 100000}]
document: {source: '{"n": \$[[n]]}'}
run: {warmup: 0s, duration: 1s, seed: 5, repeat: auto, until: {min_repeat: 2, max_repeat: 3}}
findings: {alpha: 0.001, noise_band: 0}
matrix: {batch_size: [50], concurrency: [2], settings.max_result_window: [10000, 10001]}
YAML
cat > ab.yaml <<YAML
name: ab
target: {hosts: ["$ES"]}
index: {name: "$IDX-ab", recreate: true}
variables: [{name: n, type: range, from: 1, to: 100000}]
document: {source: '{"n": \$[[n]]}'}
run: {warmup: 0s, duration: 1s, seed: 6, repeat: auto, until: {max_repeat: 8, max_time: 30m}}
matrix: {batch_size: [20, 200], concurrency: [2]}
YAML
"$COORD" plan ab.yaml > plan.txt || fail "plan exit $?"
grep -q "^run.repeat: auto: worst case 8 rounds (run.until.max_repeat) = " plan.txt ||
    { cat plan.txt; fail "plan does not print the worst case"; }
grep -q "^run order: up to 8 rounds" plan.txt || { cat plan.txt; fail "plan: no 'up to 8 rounds'"; }
"$COORD" run aa.yaml --local-agents 1 --threads 1 --insecure --bind "tcp://127.0.0.1:$PORT" \
    --results res > out.txt 2> err.txt || {
    rc=$?; [ "$rc" = 1 ] || { tail -20 err.txt >&2; fail "A/A campaign exit $rc"; }; }
grep -q "run.repeat: auto: round 3 of at most 3 runs 2 of 2 cells again: 1 of 1 comparisons open: settings.max_result_window=1000[01] vs 1000[01] (p " err.txt ||
    { grep -E "auto|run [0-9]" err.txt >&2; fail "A/A: no line naming the open comparison before round 3"; }
grep -q "open: settings.max_result_window=1000[01] vs 1000[01] (p .*) i1-s1-r0-b50-c2-max_result_window" err.txt ||
    { grep -E "run [0-9]" err.txt >&2; fail "A/A: round 3's cell lines do not name the open comparison"; }
grep -q "run.until.max_repeat (3 rounds) reached with 1 of 1 comparisons still unclear" err.txt ||
    { grep auto err.txt >&2; fail "A/A: no max_repeat warning"; }
"$COORD" run ab.yaml --local-agents 1 --threads 1 --insecure --bind "tcp://127.0.0.1:$PORT" \
    --results res > out2.txt 2> err2.txt || { tail -20 err2.txt >&2; fail "A/B campaign exit $?"; }
python3 - res <<'PY' || fail "matrix.json repeat_auto"
import glob, json, sys
aa = json.load(open(glob.glob(sys.argv[1] + "/aa-*/matrix.json")[0]))
ra = aa["repeat_auto"]
print("A/A:", json.dumps(ra))
assert ra["stopped"] == "max_repeat" and ra["rounds"] == 3, ra
assert ra["min_repeat"] == 2 and ra["max_repeat"] == 3 and ra["tested"] == 1, ra
assert ra["open_count"] == 1 and ra["open"][0]["n_a"] == 3 and ra["open"][0]["n_b"] == 3, ra
assert ra["open"][0]["comparison"] in ("settings.max_result_window=10000 vs 10001", "settings.max_result_window=10001 vs 10000"), ra
assert [r["repeat"] for r in aa["rows"]] == [3, 3], [(r["cell"], r["repeat"]) for r in aa["rows"]]
assert len(aa["schedule"]) == 6, aa["schedule"]
tested = [i for i in aa["findings"]["items"] if "verdict" in i]
assert tested and all(i["verdict"] == "unclear" for i in tested), tested
ab = json.load(open(glob.glob(sys.argv[1] + "/ab-*/matrix.json")[0]))
rb = ab["repeat_auto"]
print("A/B:", json.dumps(rb))
for r in ab["rows"]:
    print(" ", r["cell"], r["docs_per_s_reps"])
assert rb["stopped"] == "decided" and rb["rounds"] == 4 and rb["open_count"] == 0, rb
assert rb["max_repeat"] == 8 and rb["max_time_s"] == 1800, rb
assert [r["repeat"] for r in ab["rows"]] == [4, 4], [(r["cell"], r["repeat"]) for r in ab["rows"]]
assert len(ab["schedule"]) == 8, ab["schedule"]
tested = [i for i in ab["findings"]["items"] if "verdict" in i]
assert tested and all(i["verdict"] in ("higher", "lower") for i in tested), tested
PY
grep -q "run.repeat: auto: every comparison the findings state is decided (1 tested) after 4 rounds" err2.txt ||
    { grep auto err2.txt >&2; fail "A/B: no 'decided' line"; }
pass "repeat: auto: an A/A pair stops on max_repeat naming the open comparison; batch 20 vs 200 decided after 4 rounds"
