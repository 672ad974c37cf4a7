#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_aa — an A/A campaign on the dev cluster: two cells that differ only in a setting
# indexing never reads (index.max_result_window 10000 vs 10001), 4 repetitions each in shuffled
# rounds, 3 s windows. The same configuration measured twice must get no "higher" or "lower"
# verdict: every comparison the findings state is same or unclear, with its interval and p
# value in matrix.json, and the rows carry each repetition's docs/s and the interval of the
# median (docs/results.md, How sure). By design a false "higher"/"lower" comes at most at the
# tests' alpha (0.05, Holm; with 4+4 repetitions only when all four of one cell beat all four of
# the other, 2/70 = 2.9 %, and the ratio's interval clears the 2 % band as well). About 45 s.
source "$(dirname "$0")/lib.sh"
PORT=$(free_port)
IDX="bf-aa-$$"
trap 'curl -sf -X DELETE "$ES/$IDX-*" > /dev/null 2>&1 || true; cleanup_tmp' EXIT
cd "$TMP"
cat > aa.yaml <<YAML
name: aa
target: {hosts: ["$ES"]}
index: {name: "$IDX-{max_result_window}", recreate: true, settings: {refresh_interval: 1s}}
variables: [{name: n, type: range, from: 1, to: 100000}]
document: {source: '{"n": \$[[n]], "msg": "a/a"}'}
run: {warmup: 1s, duration: 3s, repeat: 4, seed: 37}
matrix: {shards: [1], batch_size: [200], concurrency: [2], settings.max_result_window: [10000, 10001]}
YAML
"$COORD" run aa.yaml --local-agents 1 --threads 1 --insecure --bind "tcp://127.0.0.1:$PORT" \
    --first-warmup 2s --results res > out.txt 2> err.txt || {
    rc=$?; [ "$rc" = 1 ] || { tail -20 err.txt >&2; fail "A/A campaign exit $rc"; }; }
python3 - res <<'PY' || { cat out.txt; fail "A/A"; }
import glob, json, sys
m = json.load(open(glob.glob(sys.argv[1] + "/aa-*/matrix.json")[0]))
rows = m["rows"]
assert len(rows) == 2 and all(r["repeat"] == 4 for r in rows), [(r["cell"], r["repeat"]) for r in rows]
for r in rows:
    assert len(r["docs_per_s_reps"]) == 4, r["docs_per_s_reps"]
    assert r["docs_per_s_ci_low"] <= r["docs_per_s"] <= r["docs_per_s_ci_high"], r
tested = [i for i in m["findings"]["items"] if "verdict" in i]
assert tested, "no comparison was tested: " + json.dumps(m["findings"]["items"])[:2000]
for i in tested:
    f = i["figures"]
    print(f'{i["verdict"]:8} ratio {f.get("ratio")} CI {f.get("ci_low")}-{f.get("ci_high")} '
          f'p {f.get("p_value")} ({f.get("n_a")}+{f.get("n_b")}): {i["text"]}')
    assert i["verdict"] in ("same", "unclear"), i
    assert f["n_a"] == 4 and f["n_b"] == 4, f
PY
pass "A/A: no higher or lower verdict between identical cells (4+4 repetitions in rounds)"
