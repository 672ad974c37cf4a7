#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# elasticsearch_es7_quickstart — the quickstart's first cell against a real 1-node Elasticsearch
# 7.17.29 (deploy/devcluster-es7: the server, transport-netty4-client and mapper-extras-client
# from Maven Central, class-path plugins, Java 17), started on free ports: the probe names it,
# the row is verified by _count (engine_quickstart in lib.sh). Then a data stream scenario:
# Elasticsearch 7's data streams are x-pack's, which the dev cluster has not; the cell stops
# before load saying so (its template refused: "unknown field [data_stream]").
source "$(dirname "$0")/lib.sh"
cd "$TMP"
engine_quickstart elasticsearch7 7.17.29 elasticsearch
cat > ds.yaml <<YAML
name: es7-ds
target: {hosts: ["$ENGINE_URL"]}
index:
  name: bf-es7ds-$$
  template: {body: {index_patterns: ["bf-es7ds-*"], data_stream: {}, template: {settings: {number_of_replicas: 0}}}}
variables: [{name: ts, type: now_utc_lite}]
document: {action: create, source: '{"@timestamp": "\$[[ts]]"}'}
run: {warmup: 0s, duration: 1s}
matrix: {batch_size: [10], concurrency: [1]}
YAML
rc=0
timeout 60 "$AGENT" run ds.yaml --threads 1 > ds.out 2> ds.err || rc=$?
[ "$rc" != 0 ] || { cat ds.err >&2; fail "a data stream cell on Elasticsearch 7.17 without x-pack: exit 0"; }
grep -q 'has no data streams (PUT _index_template: "unknown field \[data_stream\]"): on Elasticsearch 7.x they are x-pack' ds.err ||
    { cat ds.err >&2; fail "the data stream refusal does not say why"; }
pass "quickstart's first cell against Elasticsearch 7.17.29: verified; a data stream cell stopped before load, naming x-pack"
