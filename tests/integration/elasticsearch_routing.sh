#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# elasticsearch_routing — shard-aware bulk against the real 3-node Elasticsearch 8.17.0 (the
# "devcluster_es8" fixture; the 3-node OpenSearch routing tests' counterpart): `bulkfleet-agent
# shard-of` agrees with the cluster's own placement of 1,500 documents (7 shards; 3 with
# number_of_routing_shards 30; 6 with routing_partition_size 3; ASCII, non-ASCII and
# surrogate-pair ids, custom routing), and routing_mode none / node / shard cells from the
# coordinator verify by _count with nothing unrouted, sub-bulks of the expected size (node:
# batch_size / 3 nodes, shard: batch_size / 3 shards), and the coordinator's telemetry of each
# node's write pool (queue, active, rejected) from Elasticsearch's _nodes/stats (routing_check in
# lib.sh).
source "$(dirname "$0")/lib.sh"
cd "$TMP"
nodes=$(curl -sf "$ES/_cat/nodes?h=name" | wc -l)
[ "$nodes" -ge 3 ] || fail "the Elasticsearch test cluster has $nodes nodes; elasticsearch_routing needs 3"
routing_check "$ES" "bf-esrt-$$" 500
pass "Elasticsearch 8.17.0, $nodes nodes: shard-of agrees with the cluster, routing_mode none/node/shard verified, write-pool telemetry per node"
