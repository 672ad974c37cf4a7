/* SPDX-License-Identifier: MIT */
/* bf_shardof.h — `bulkfleet-agent shard-of`: the shard of document ids, for scripts and tests.
 *
 *   bulkfleet-agent shard-of --shards N [--routing-shards R] [--partition-size P]
 *                            [--index-created V] ID [ROUTING]
 *   bulkfleet-agent shard-of --shards N ... < lines of ID or ID<TAB>ROUTING
 *
 * Prints one shard number per document (bf_routing: OpenSearch's OperationRouting formula, or
 * Elasticsearch 9.4+'s modulo function when --index-created names such an index).
 * Ids and routing values are UTF-8 text as the user means them (not JSON-escaped).
 */
#ifndef BF_SHARDOF_H
#define BF_SHARDOF_H

/* bf_shardof_main — run the command; argv[0] is "shard-of". Returns 0, 2 for bad arguments or a
 * bad input line (the message names the line and what to fix; lines before it were printed),
 * 3 if standard output fails. Not thread-safe (getopt). */
int bf_shardof_main(int argc, char **argv);

#endif
