#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_data_stream — index templates with "data_stream": {} (the default for logs and
# metrics) against the real test cluster: bulkfleet creates the data stream (PUT /_data_stream),
# gives its backing index the cell's shards, sends action create (index is refused by a data
# stream), counts through the stream and verifies the row; a rerun recreates only streams it
# made; someone else's stream is neither deleted nor written into unless recreate is false; a
# plain index name that a data-stream-only template matches gets a message naming the fix.
source "$(dirname "$0")/lib.sh"
cd "$TMP"
P="bfds$$"
H='Content-Type: application/json'
cleanup() {
    for n in "$P-1s" "$P-2s" "$P-user" "$P-plain"; do
        curl -s -X DELETE "$ES/_data_stream/$n" > /dev/null 2>&1 || true
    done
    curl -s -X DELETE "$ES/_index_template/bulkfleet-$P" > /dev/null 2>&1 || true
    curl -s -X DELETE "$ES/_index_template/$P-user" > /dev/null 2>&1 || true
    cleanup_tmp
}
trap cleanup EXIT
cat > ds.yaml <<YAML
name: $P
target: {hosts: ["$ES"]}
index:
  name: $P-{shards}s
  template:
    body:
      index_patterns: ["$P-*s"]
      data_stream: {}
      priority: 500
      template: {settings: {number_of_replicas: 0}}
variables:
  - {name: ts, type: now_utc_lite}
  - {name: n, type: range, from: 1, to: 9}
document:
  action: index
  source: '{"@timestamp": "\$[[ts]]", "n": \$[[n]]}'
run: {warmup: 10s, duration: 60s}   # scaled down by --warmup / --duration below
matrix: {shards: [1, 2], batch_size: [100], concurrency: [2]}
YAML
"$COORD" validate ds.yaml > v.out 2>&1 || { cat v.out >&2; fail "validate"; }
grep -q "a data stream accepts only create; create is used" v.out || { cat v.out >&2; fail "no warning that action index becomes create"; }
row() { # row RESULTS_DIR [N] -> matrix.json row N as JSON
    python3 -c 'import glob, json, sys; print(json.dumps(json.load(open(glob.glob(sys.argv[1] + "/*/matrix.json")[0]))["rows"][int(sys.argv[2])]))' "$1" "${2:-0}"
}

# 1. the coordinator with two agents, both cells: created, the cell's shards, verified
PORT=$(free_port)
timeout 120 "$COORD" run ds.yaml --local-agents 2 --threads 1 --insecure --warmup 1s --duration 2s \
    --bind "tcp://127.0.0.1:$PORT" --results r1 -q > o1 2> e1 || { cat e1 >&2; fail "coordinator run exit $?"; }
for s in 1 2; do
    curl -sf "$ES/_data_stream/$P-${s}s" > ds$s.json || fail "data stream $P-${s}s was not created"
    curl -sf "$ES/$P-${s}s/_settings/index.number_of_shards" > set$s.json || fail "settings of $P-${s}s"
    curl -sf "$ES/$P-${s}s/_count" > count$s.json || fail "count of $P-${s}s"
done
python3 - "$(row r1 0)" "$(row r1 1)" <<PY || fail "rows of the first run"
import json, sys
for i, s in enumerate((1, 2)):
    r = json.loads(sys.argv[1 + i])
    ds = json.load(open("ds%d.json" % s))["data_streams"][0]
    sets = json.load(open("set%d.json" % s))
    count = json.load(open("count%d.json" % s))["count"]
    assert r["verified"] is True and r["docs_counted"] == r["docs_ok_all"] == count > 0, r
    assert r["docs_failed"] == 0, r
    assert ds["template"] == "bulkfleet-$P", ds
    (bk, v), = sets.items()
    assert bk.startswith(".ds-$P-%ds-" % s), bk
    assert v["settings"]["index"]["number_of_shards"] == str(s), (s, v)
    assert "already" not in r["reason"] and "backing index" not in r["reason"], r
    print("cell", s, "shards:", count, "documents through the data stream, backing index", bk)
PY

# 2. a rerun (standalone agent) recreates the stream it made: only its own documents are in it,
# and the first run's backing index is gone (a new one, by uuid: its name can be the same)
uuids() { curl -sf "$ES/_data_stream/$1" | python3 -c 'import json,sys; print(" ".join(i["index_uuid"] for i in json.load(sys.stdin)["data_streams"][0]["indices"]))'; }
OLD=$(uuids "$P-1s") || fail "backing indices of $P-1s"
timeout 120 "$AGENT" run ds.yaml --cell 1 --threads 1 --warmup 1s --duration 2s --results r2 > o2 2> e2 ||
    { cat e2 >&2; fail "rerun exit $?"; }
NEW=$(uuids "$P-1s") || fail "backing indices of $P-1s after the rerun"
ALL=$(curl -sf "$ES/_cat/indices?expand_wildcards=all&h=uuid") || fail "_cat/indices"
for u in $OLD; do
    case " $NEW " in *" $u "*) fail "the rerun kept backing index $u of the first run" ;; esac
    ! grep -qx "$u" <<< "$ALL" || fail "backing index $u of the first run is still on the cluster"
done
C=$(curl -sf "$ES/$P-1s/_count" | python3 -c 'import json,sys; print(json.load(sys.stdin)["count"])')
python3 - "$(row r2)" "$C" <<'PY' || fail "rerun row"
import json, sys
r = json.loads(sys.argv[1])
assert r["verified"] is True and r["docs_ok_all"] == int(sys.argv[2]) > 0, (r, sys.argv[2])
PY

# 3. someone else's data stream (their template) is not deleted by recreate: true
curl -sf -X PUT "$ES/_index_template/$P-user" -H "$H" \
    -d "{\"index_patterns\": [\"$P-user\"], \"data_stream\": {}, \"priority\": 600, \"template\": {\"settings\": {\"number_of_shards\": 3, \"number_of_replicas\": 0}}}" > /dev/null ||
    fail "user template"
curl -sf -X PUT "$ES/_data_stream/$P-user" > /dev/null || fail "user data stream"
curl -sf -X POST "$ES/$P-user/_doc?refresh=true" -H "$H" -d '{"@timestamp": "2026-01-01T00:00:00Z", "mine": 1}' > /dev/null ||
    fail "user document"
cat > user.yaml <<YAML
name: $P-user
target: {hosts: ["$ES"]}
index: {name: $P-user, data_stream: true}
variables: [{name: ts, type: now_utc_lite}]
document: {source: '{"@timestamp": "\$[[ts]]"}'}
run: {warmup: 1s, duration: 2s}
matrix: {batch_size: [50], concurrency: [1]}
YAML
set +e
timeout 120 "$AGENT" run user.yaml --cell 1 --threads 1 --results r3 > o3 2> e3
rc=$?
set -e
[ "$rc" != 0 ] || { cat e3 >&2; fail "recreate: true over someone else's data stream succeeded"; }
grep -q "was not created by bulkfleet, so index.recreate does not delete it" e3 || { cat e3 >&2; fail "no message naming the foreign stream"; }
[ "$(curl -sf "$ES/$P-user/_count" | python3 -c 'import json,sys; print(json.load(sys.stdin)["count"])')" = 1 ] ||
    fail "the user's data stream lost its document"

# 4. recreate: false writes into it: verified against what it added, the 3 shards flagged
sed -i "s/data_stream: true}/data_stream: true, recreate: false}/" user.yaml
timeout 120 "$AGENT" run user.yaml --cell 1 --threads 1 --results r4 > o4 2> e4 || { cat e4 >&2; fail "recreate: false run exit $?"; }
C=$(curl -sf "$ES/$P-user/_count" | python3 -c 'import json,sys; print(json.load(sys.stdin)["count"])')
python3 - "$(row r4)" "$C" r4/*/matrix.json <<'PY' || fail "recreate: false row"
import json, sys
r = json.loads(sys.argv[1])
assert r["verified"] is True and r["docs_ok_all"] == int(sys.argv[2]) - 1 > 0, (r, sys.argv[2])
assert "has 3 shards" in r["reason"], r
# the row carries the backing index's real shards, and the findings use them
assert r["index_mismatch"] is True and r["index_shards"] == 3 and r["index_replicas"] == 0, r
assert r["few_requests"] == (r["service_count"] < 20), r
m = json.load(open(sys.argv[3]))
items = m["findings"]["items"]
if r["few_requests"]:
    assert [i for i in items if i["kind"] == "few_requests"], items
else:
    best = [i for i in items if i["kind"] == "best"]
    assert best and best[0]["at"]["shards"] == 3, best
    assert best[0]["text"].startswith("3 shards: best"), best
    assert [i for i in items if i["kind"] == "index_mismatch"], items
print("index-mismatch row:", r["shards"], "shards in the scenario,", r["index_shards"], "in the index;",
      r["service_count"], "responses;", [i["text"] for i in items][:2])
PY
grep -q "index-mismatch" o4 || { cat o4 >&2; fail "the row is not flagged index-mismatch"; }

# 5. a plain index name that a data-stream-only template matches: the message says what to do
cat > plain.yaml <<YAML
name: $P-plain
target: {hosts: ["$ES"]}
index: {name: $P-plain}
variables: [{name: ts, type: now_utc_lite}]
document: {source: '{"@timestamp": "\$[[ts]]"}'}
run: {warmup: 1s, duration: 2s}
matrix: {batch_size: [50], concurrency: [1]}
YAML
curl -sf -X PUT "$ES/_index_template/$P-user" -H "$H" \
    -d "{\"index_patterns\": [\"$P-user\", \"$P-plain\"], \"data_stream\": {}, \"priority\": 600}" > /dev/null || fail "template update"
set +e
timeout 120 "$AGENT" run plain.yaml --cell 1 --threads 1 --results r5 > o5 2> e5
rc=$?
set -e
[ "$rc" != 0 ] || fail "a plain index under a data-stream template succeeded"
grep -q "creates data streams only; set index.data_stream: true" e5 || { cat e5 >&2; fail "no hint to set index.data_stream"; }

# 6. validate: a shipped template that does not match the stream name is refused before a run
sed "s/index_patterns: \[\"$P-\*s\"\]/index_patterns: [\"other-*\"]/" ds.yaml > bad.yaml
set +e
"$COORD" validate bad.yaml > v6 2>&1
rc=$?
set -e
[ "$rc" = 2 ] && grep -q "which the template's index_patterns do not match" v6 || { cat v6 >&2; fail "unmatched index_patterns not refused (exit $rc)"; }
pass "data streams: created with the cell's shards, action create, counted and verified; only bulkfleet's own are recreated"
