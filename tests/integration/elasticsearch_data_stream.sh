#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# elasticsearch_data_stream — data streams on the real 3-node Elasticsearch 8.17.0 (the
# "devcluster_es8" fixture), whose PUT/GET/DELETE /_data_stream come from bulkfleet's
# own bulkfleet-data-streams module (deploy/devcluster-es: Elasticsearch's data-streams module
# is not on Maven Central). 1. integration_data_stream's script: the stream created with the
# cell's shards, action create, rows verified against _count, a rerun deletes its own stream's
# backing index, someone else's stream is kept (or written into with recreate: false).
# 2. Elasticsearch answers GET /_data_stream/<an index> with 200 and an empty list: a data stream
# cell over a plain index is refused, the index kept. 3. An Elasticsearch without the
# data-streams module (the fault server --no-data-stream-api: /_data_stream answers 405) still
# stops a data stream cell before load with the clear message. 4. find-max over a data stream
# deletes the stream its last step left, with its backing indices.
source "$(dirname "$0")/lib.sh"
cd "$TMP"
P="bfesds$$"
cleanup() {
    stop_fs
    curl -s -X DELETE "$ES/$P-ix" > /dev/null 2>&1 || true
    curl -s -X DELETE "$ES/_data_stream/$P-fm" > /dev/null 2>&1 || true
    curl -s -X DELETE "$ES/_index_template/bulkfleet-$P-fm" > /dev/null 2>&1 || true
    cleanup_tmp
}
trap cleanup EXIT
code=$(curl -s -o /dev/null -w '%{http_code}' "$ES/_data_stream/$P-none")
[ "$code" = 404 ] || fail "GET /_data_stream/$P-none answered $code, want 404 (is bulkfleet-data-streams loaded?)"

# 1. the OpenSearch data stream test, unchanged, on Elasticsearch 8
BF_TEST_ES="$ES" bash "$SRC/tests/integration/integration_data_stream.sh" > ids.out 2>&1 ||
    { cat ids.out >&2; fail "integration_data_stream on Elasticsearch 8.17.0"; }
grep '^cell\|^PASS' ids.out

# 2. a plain index under the stream's name: 200 with no data stream; refused, kept
curl -sf -X PUT "$ES/$P-ix" -H 'Content-Type: application/json' \
    -d '{"settings": {"number_of_replicas": 0}}' > /dev/null || fail "create index $P-ix"
curl -sf -X POST "$ES/$P-ix/_doc?refresh=true" -H 'Content-Type: application/json' \
    -d '{"@timestamp": "2026-01-01T00:00:00Z"}' > /dev/null || fail "document into $P-ix"
[ "$(curl -sf "$ES/_data_stream/$P-ix")" = '{"data_streams":[]}' ] ||
    fail "GET /_data_stream/<index> on Elasticsearch: $(curl -s "$ES/_data_stream/$P-ix")"
cat > ix.yaml <<YAML
name: es-ds-ix
target: {hosts: ["$ES"]}
index: {name: $P-ix, data_stream: true}
variables: [{name: n, type: range, from: 1, to: 9}]
document: {source: '{"@timestamp": "2026-12-06T00:00:00Z", "n": \$[[n]]}'}
run: {warmup: 1s, duration: 2s}
YAML
rc=0
timeout 60 "$AGENT" run ix.yaml --threads 1 --results rix > oix 2> eix || rc=$?
[ "$rc" != 0 ] || { cat eix >&2; fail "a data stream cell over the plain index $P-ix succeeded"; }
grep -q "$P-ix on .* is an index or alias, not a data stream (index.data_stream): it is not deleted" eix ||
    { cat eix >&2; fail "the message does not say $P-ix is an index, not a data stream"; }
n=$(curl -sf "$ES/$P-ix/_count" | python3 -c 'import json,sys; print(json.load(sys.stdin)["count"])')
[ "$n" = 1 ] || fail "the plain index $P-ix holds $n documents, want its 1"

# 3. an Elasticsearch without the data-streams module: stopped before load, naming the API
start_fs ok noapi --no-data-stream-api
F="http://127.0.0.1:$FS_PORT"
cat > ds.yaml <<YAML
name: es-ds
target: {hosts: ["$F"]}
index:
  name: logs-$P-default
  recreate: true
  template:
    name: $P-tpl
    body: {index_patterns: ["logs-$P-*"], priority: 500, data_stream: {}}
variables: [{name: n, type: range, from: 1, to: 9}]
document: {action: create, source: '{"@timestamp": "2026-12-06T00:00:00Z", "n": \$[[n]]}'}
run: {warmup: 1s, duration: 2s}
YAML
rc=0
timeout 60 "$AGENT" run ds.yaml --threads 1 --results r > o 2> e || rc=$?
[ "$rc" = 1 ] || { cat e >&2; fail "a data stream cell on a cluster without the API: exit $rc, want 1"; }
grep -q "answers GET /_data_stream/logs-$P-default with HTTP 405: this cluster has no data stream API .*; index into a plain index (drop index.data_stream)" e ||
    { cat e >&2; fail "the message does not name the missing data stream API"; }
python3 - "$FS_LOG" <<'PY' || fail "documents were sent to the cluster without a data stream API"
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
assert any(r["path"].startswith("/_data_stream/") and r["status"] == 405 for r in reqs), reqs
bulk = [r for r in reqs if r.get("bulk")]
assert not bulk, bulk
PY
stop_fs

# 4. find-max over a data stream (one batch size, one concurrency: two short steps; sustain
# steps 40 % down, as elasticsearch_findmax's: beside another test's load the node's first 1 s
# window is no rate it sustains, and 10 % steps missed three times, find-max exit 1)
cat > fm.yaml <<YAML
name: $P-fm
target: {hosts: ["$ES"]}
index:
  name: $P-fm
  template:
    body: {index_patterns: ["$P-fm"], data_stream: {}, priority: 500, template: {settings: {number_of_replicas: 0}}}
variables: [{name: ts, type: now_utc_lite}, {name: n, type: range, from: 1, to: 999}]
document: {source: '{"@timestamp": "\$[[ts]]", "n": \$[[n]]}'}
run: {warmup: 1s, duration: 1s}
find_max: {batch_start: 100, batch_max: 100, concurrency_max: 1, sustain: 1s, sustain_tries: 3, step_down_pct: 40,
           max_time: 1m}
YAML
PORT=$(free_port)
timeout 120 "$COORD" find-max fm.yaml --local-agents 1 --bind "tcp://127.0.0.1:$PORT" --results rfm -q > fm.out 2> fm.err ||
    { rc=$?; tail -20 fm.err >&2; fail "find-max over a data stream: exit $rc"; }
grep -q "find-max: deleted $P-fm, the index of the last step" fm.err ||
    { tail -5 fm.err >&2; fail "find-max did not say it deleted its last data stream"; }
code=$(curl -s -o /dev/null -w '%{http_code}' "$ES/_data_stream/$P-fm")
[ "$code" = 404 ] || fail "find-max left its data stream $P-fm (GET /_data_stream: HTTP $code)"
left=$(curl -sf "$ES/_cat/indices/.ds-$P-fm-*?expand_wildcards=all&h=index") || fail "_cat/indices"
[ -z "$left" ] || fail "find-max left backing indices: $left"
echo "find-max: $(tail -n 1 fm.out); the stream and its backing indices deleted"
pass "Elasticsearch 8.17.0 data streams through bulkfleet-data-streams: integration_data_stream passes; an index under the name is refused and kept; without the API a cell stops before load; find-max deletes its last stream"
