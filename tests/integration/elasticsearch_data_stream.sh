#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# elasticsearch_data_stream — what data streams do on the Elasticsearch 8.17.0 test cluster (the
# "devcluster_es8" fixture; issue #25): its data-streams module is not on Maven Central, so
# GET/PUT/DELETE /_data_stream answer HTTP 405 (bulk `create` into a data stream template's name
# still makes the backing index in the server itself, but nothing can list or delete the stream).
# A data stream cell must stop before any load with a message naming the missing API and what to
# do (a plain index), not with a raw 405 or a hang. The data-stream paths themselves are tested
# on OpenSearch (integration_data_stream); on Elasticsearch they are blocked with this cluster.
source "$(dirname "$0")/lib.sh"
cd "$TMP"
P="logs-bfesds$$"
trap 'curl -s -X DELETE "$ES/_index_template/$P-tpl" > /dev/null 2>&1 || true; cleanup_tmp' EXIT
code=$(curl -s -o /dev/null -w '%{http_code}' "$ES/_data_stream/$P-default")
[ "$code" = 405 ] || fail "GET /_data_stream answered $code: this cluster has a data stream API now; test data streams on it (integration_data_stream) and drop this test"
cat > ds.yaml <<YAML
name: es-ds
target: {hosts: ["$ES"]}
index:
  name: $P-default
  recreate: true
  template:
    name: $P-tpl
    body: {index_patterns: ["$P-*"], priority: 500, data_stream: {}, template: {settings: {number_of_replicas: 0}}}
variables: [{name: n, type: range, from: 1, to: 9}]
document: {action: create, source: '{"@timestamp": "2026-12-06T00:00:00Z", "n": \$[[n]]}'}
run: {warmup: 1s, duration: 2s}
YAML
rc=0
timeout 60 "$AGENT" run ds.yaml --threads 1 --results r > o 2> e || rc=$?
[ "$rc" = 1 ] || { cat e >&2; fail "a data stream cell on a cluster without the API: exit $rc, want 1"; }
grep -q "answers GET /_data_stream/$P-default with HTTP 405: this cluster has no data stream API .*; index into a plain index (drop index.data_stream)" e ||
    { cat e >&2; fail "the message does not name the missing data stream API"; }
n=$(curl -s "$ES/$P-default/_count?ignore_unavailable=true" | python3 -c 'import json,sys; print(json.load(sys.stdin).get("count", 0))' 2> /dev/null || echo 0)
[ "$n" = 0 ] || fail "$n documents were sent into $P-default"
pass "Elasticsearch 8.17.0 without the data-streams module: a data stream cell stops before load, naming the missing API"
