#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# elasticsearch_findmax — a short find-max against the real 3-node Elasticsearch 8.17.0 (the
# "devcluster_es8" fixture): batch 250 to 500, concurrency up to 2, 1 s + 2 s steps,
# a 2 s sustain stepping down 40 % at a time: the search ends with a result line, its held step
# is a row verified by _count with no rejection or failure and a store-bytes factor (from
# Elasticsearch's _stats), and find-max deletes the index its last step left.
source "$(dirname "$0")/lib.sh"
cd "$TMP"
IDX="bf-es-findmax-$$"
trap 'curl -s -X DELETE "$ES/$IDX?ignore_unavailable=true" > /dev/null 2>&1 || true; cleanup_tmp' EXIT
cat > fm.yaml <<YAML
name: es-findmax
target: {hosts: ["$ES"]}
index: {name: $IDX, settings: {refresh_interval: 1s}}
variables: [{name: n, type: range, from: 1, to: 999}]
document: {source: '{"n": \$[[n]], "msg": "find-max test document"}'}
run: {warmup: 1s, duration: 2s}
find_max: {batch_start: 250, batch_max: 500, concurrency_max: 2, sustain: 2s, step_down_pct: 40,
           sustain_tries: 6, max_time: 2m}
YAML
P=$(free_port)
timeout 200 "$COORD" find-max fm.yaml --local-agents 1 --bind "tcp://127.0.0.1:$P" --results res \
    -q > fm.out 2> fm.err || { rc=$?; tail -20 fm.err >&2; cat fm.out >&2; fail "find-max on Elasticsearch 8: exit $rc"; }
tail -n 1 fm.out | grep -Eq '^max sustainable: [0-9]+ docs/s at batch [0-9]+, concurrency [0-9]+' ||
    fail "no result line: $(tail -n 1 fm.out)"
python3 - res <<'PY' || fail "the held step is not verified by _count"
import glob, json, sys
d = glob.glob(sys.argv[1] + "/es-findmax-*")[0]
fm = json.load(open(d + "/findmax.json"))
rows = {r["cell"]: r for r in json.load(open(d + "/matrix.json"))["rows"]}
(c,) = fm["combinations"]
held = [s for s in c["steps"] if s["verdict"] in ("held", "confirmed")]
assert c["found"] and held, c
r = rows[held[-1]["cell"]]
assert r["verified"] and r["docs_counted"] == r["docs_ok_all"] > 0, r
assert r["docs_rejected"] == 0 and r["docs_failed"] == 0, r
assert r["store_bytes_per_payload_byte"] and r["store_bytes_per_payload_byte"] > 0, r
print(f"Elasticsearch 8.17.0: {len(c['steps'])} steps, held {held[-1]['cell']} with "
      f"{r['docs_counted']} documents counted, store/payload {r['store_bytes_per_payload_byte']:.2f}")
PY
grep -q "find-max: deleted $IDX, the index of the last step" fm.err ||
    fail "find-max did not say it deleted its last index: $(grep -i 'index' fm.err | tail -3)"
code=$(curl -s -o /dev/null -w '%{http_code}' "$ES/$IDX")
[ "$code" = 404 ] || fail "find-max left its last index $IDX behind (HTTP $code)"
pass "Elasticsearch 8.17.0: $(tail -n 1 fm.out); the held step verified by _count"
