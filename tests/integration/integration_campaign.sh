#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_campaign — the walking skeleton end to end: real OpenSearch (1 node) +
# coordinator + 2 agent processes on loopback; shards {1,2} x batch_size {100,1000} x
# concurrency {2}, warmup 2 s, duration 5 s -> 4 rows, each with docs/s > 0 and
# docs_counted == docs_ok. The first cell warms up for run.first_warmup (4 s), the others for
# run.warmup, and each row records its own.
source "$(dirname "$0")/lib.sh"
PORT=$(free_port)
cat > "$TMP/scenario.yaml" <<YAML
name: it-campaign
target:
  hosts: [$ES]
index:
  name: it-campaign-{shards}s
  recreate: true
  settings: {refresh_interval: 1s}
variables:
  - {name: uuid, type: uuid}
  - {name: n, type: range, from: 1, to: 1000}
document:
  action: create
  id: \$[[uuid]]
  source: '{"n": \$[[n]], "msg": "hello \$[[uuid]]"}'
run: {warmup: 2s, first_warmup: 4s, duration: 5s}
matrix:
  shards: [1, 2]
  batch_size: [100, 1000]
  concurrency: [2]
YAML
"$COORD" run "$TMP/scenario.yaml" --local-agents 2 --threads 1 --insecure \
    --bind "tcp://127.0.0.1:$PORT" --results "$TMP/results" -q > "$TMP/out.txt" 2> "$TMP/err.txt" || {
    cat "$TMP/err.txt" >&2; cat "$TMP/out.txt"; fail "coordinator exited with $?"; }
cat "$TMP/out.txt"
grep -q "cell i1-s1-r0-b100-c2: the first cell of this run warms up for 4.0s instead of 2.0s" \
    "$TMP/err.txt" || { cat "$TMP/err.txt" >&2; fail "the first cell's longer warmup was not said"; }
[ "$(grep -c "the first cell of this run warms up" "$TMP/err.txt")" = 1 ] || fail "first_warmup said twice"
DIR=$(ls -d "$TMP"/results/it-campaign-*)
for f in matrix.csv matrix.md matrix.json scenario.yaml; do
    [ -s "$DIR/$f" ] || fail "$f missing"
done
python3 - "$DIR" <<'PY'
import csv, json, os, sys
d = sys.argv[1]
rows = list(csv.DictReader(open(os.path.join(d, "matrix.csv"))))
assert len(rows) == 4, f"expected 4 rows, got {len(rows)}"
seen = set()
for r in rows:
    key = (r["shards"], r["batch_size"], r["concurrency"])
    seen.add(key)
    assert float(r["docs_per_s"]) > 0, f"docs/s not > 0 in {r['cell']}"
    assert r["verified"] == "true", f"cell {r['cell']}: docs_counted {r['docs_counted']} != docs_ok {r['docs_ok_all']}"
    assert int(r["docs_counted"]) == int(r["docs_ok_all"]), r
    assert r["agents"] == "2", r["agents"]
    assert r["failed"] == "false"
    assert float(r["service_p50_ms"]) > 0
    cell = os.path.join(d, "cells", r["cell"] + ".ndjson")
    lines = [json.loads(l) for l in open(cell)]
    assert lines[0]["type"] == "row"
    # run.first_warmup: the first cell (by matrix order) warmed up 4 s, the others 2 s
    want_w = 4 if r["cell"] == "i1-s1-r0-b100-c2" else 2
    assert lines[0]["warmup_s"] == want_w, (r["cell"], lines[0]["warmup_s"], want_w)
    agents = {l["agent"] for l in lines if l["type"] == "sample"}
    assert agents == {"local-1", "local-2"}, agents
assert seen == {(s, b, "2") for s in ("1", "2") for b in ("100", "1000")}, seen
m = json.load(open(os.path.join(d, "matrix.json")))
assert m["cluster"]["distribution"] == "opensearch"
print("matrix ok:", len(rows), "rows verified")
PY
pass "4 cells measured and verified against _count"
