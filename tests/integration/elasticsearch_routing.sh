#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# elasticsearch_routing — shard-aware bulk against the real 1-node Elasticsearch 8.17.0 (the
# "devcluster_es8" fixture): `bulkfleet-agent shard-of` agrees with the node's own placement of
# 1,500 documents (7 shards; 3 with number_of_routing_shards 30; 6 with routing_partition_size 3;
# ASCII, non-ASCII and surrogate-pair ids, custom routing), and routing_mode none / node / shard
# cells from the coordinator verify by _count with nothing unrouted, sub-bulks of the expected
# size, and the coordinator's telemetry of the node's write pool (queue, active, rejected) from
# Elasticsearch's _nodes/stats (routing_check in lib.sh).
source "$(dirname "$0")/lib.sh"
cd "$TMP"
routing_check "$ES" "bf-esrt-$$" 500
pass "Elasticsearch 8.17.0: shard-of agrees with the node, routing_mode none/node/shard verified, write-pool telemetry per node"
