/* SPDX-License-Identifier: MIT */
/* bf_routing.h — the shard of a document, computed exactly as OpenSearch and Elasticsearch do.
 *
 * A bulk request sent to the node that holds the primary of each of its documents saves the
 * coordinating node a transport hop per document (seed 003: INFINI gateway's bulk_reshuffle).
 * That only works if the client computes the same shard as the cluster. The formula is
 * OpenSearch's OperationRouting.generateShardId / calculateScaledShardId (1.x-3.x; the same in
 * Elasticsearch 7.0+ IndexRouting for regular indices):
 *
 *   effective   = routing if the action has one, else _id
 *   hash(s)     = MurmurHash3 x86_32, seed 0, over the UTF-16 code units of s, each written as
 *                 2 bytes little-endian (Murmur3HashFunction.hash -> Lucene
 *                 StringHelper.murmurhash3_x86_32), read as a signed 32-bit int
 *   offset      = routing_partition_size > 1 ? floorMod(hash(_id), routing_partition_size) : 0
 *   shard       = floorMod(hash(effective) + offset, routing_num_shards) / routing_factor
 *                 (the addition wraps as a Java int; routing_factor = routing_num_shards / shards)
 *
 * Elasticsearch indices created at index version 9064000 (IndexVersions.MOD_ROUTING_FUNCTION,
 * first shipped in Elasticsearch 9.4.0; index.version.created in the index settings) use
 * RoutingFunction.ModuloRoutingFunction instead: shard = floorMod(hash(effective) + offset,
 * number_of_shards), routing_num_shards ignored. The hash is unchanged. Older indices (also on a
 * 9.4+ node, e.g. restored ones) keep the formula above (LegacyRoutingFunction); OpenSearch never
 * changed it. Reference: docs/internals/devcluster.md §7.6.
 *
 * routing_num_shards defaults to MetadataCreateIndexService.calculateNumRoutingShards (the largest
 * shards * 2^k <= 1024, k >= 1); always prefer the value from the index metadata
 * (`routing_num_shards` in _cluster/state), since shrink/split targets inherit theirs.
 * Reference: docs/internals/devcluster.md §7.
 *
 * All functions are pure and thread-safe; nothing here allocates.
 */
#ifndef BF_ROUTING_H
#define BF_ROUTING_H

#include "bf_error.h"

#include <stddef.h>
#include <stdint.h>

/* Largest number_of_shards / number_of_routing_shards accepted (OpenSearch caps shards at 1024
 * per index by default, `index.number_of_routing_shards` is an int). */
#define BF_ROUTING_MAX_SHARDS 1048576u

/* bf_routing_murmur3_32 — MurmurHash3 x86_32 (Austin Appleby's public-domain reference,
 * MurmurHash3.cpp) of data[0..len) with `seed`. Returns the 32-bit hash. */
uint32_t bf_routing_murmur3_32(const void *data, size_t len, uint32_t seed);

/* bf_routing_hash_utf8 — the routing hash of a UTF-8 string: murmur3 x86_32, seed 0, over its
 * UTF-16LE code units (a character above U+FFFF is a surrogate pair, 4 bytes), as a signed int.
 * s need not be NUL-terminated. Returns 0 and *hash_out, or BF_E_INVAL when s is not valid UTF-8
 * (diag d says at which byte; d may be NULL). */
int bf_routing_hash_utf8(const char *s, size_t len, int32_t *hash_out, bf_diag_t *d);

/* bf_routing_hash_json — the same hash for a JSON string body as it appears between the quotes
 * of a bulk action line (RFC 8259 §7 escapes: \" \\ \/ \b \f \n \r \t \uXXXX; a \uXXXX may be a
 * lone surrogate, which Java keeps as one code unit, so it is hashed as such). Returns 0, or
 * BF_E_INVAL for a bad escape or invalid UTF-8 (diag d, may be NULL). */
int bf_routing_hash_json(const char *s, size_t len, int32_t *hash_out, bf_diag_t *d);

/* Routing inputs of one index, from its metadata. Plain values; copy freely. */
typedef struct bf_routing_index {
    uint32_t shards;         /* number_of_shards, >= 1 */
    uint32_t routing_shards; /* routing_num_shards, a multiple of shards */
    uint32_t factor;         /* routing_shards / shards */
    uint32_t partition_size; /* routing_partition_size, 1 = not partitioned */
    int modulo;              /* 1: shard = floorMod(h, shards) (Elasticsearch index version
                                9064000+, see above); 0 (what bf_routing_index_init sets): the
                                routing_num_shards formula */
} bf_routing_index_t;

/* The first Elasticsearch index version (index.version.created) whose indices route by
 * floorMod(hash, number_of_shards): IndexVersions.MOD_ROUTING_FUNCTION, in 9.4.0 and later. */
#define BF_ROUTING_ES_MODULO_INDEX_VERSION 9064000u

/* bf_routing_es_modulo_created — whether an index whose settings say index.version.created =
 * `created` (the decimal string's value) routes by the modulo function: an Elasticsearch index
 * version >= BF_ROUTING_ES_MODULO_INDEX_VERSION. OpenSearch writes its version ids with bit 27
 * set (org.opensearch.Version.MASK, 0x08000000; 2.19.6 is 136408427), which is never a modulo
 * index. 0 (unknown) is not modulo. Returns 1 or 0. Pure; thread-safe. */
int bf_routing_es_modulo_created(uint64_t created);

/* bf_routing_es_modulo_release — the same from the Elasticsearch release that created the index
 * (what the probe reports, "9.5.3"; a suffix such as "-SNAPSHOT" is ignored): 1 for 9.4.0 and
 * later (the first release whose index version is >= 9064000: 9.3.x ends at 9060001, 9.4.0 is
 * 9094000, by Elasticsearch's IndexVersions.csv), else 0. Returns -1 when version does not start
 * with MAJOR.MINOR. Pure; thread-safe. */
int bf_routing_es_modulo_release(const char *version);

/* bf_routing_default_routing_shards — MetadataCreateIndexService.calculateNumRoutingShards:
 * shards << max(1, 10 - ceil(log2 shards)) (ES 7+ / OpenSearch indices created without
 * index.number_of_routing_shards). shards 1..BF_ROUTING_MAX_SHARDS; returns 0 outside that. */
uint32_t bf_routing_default_routing_shards(uint32_t shards);

/* bf_routing_index_init — fill *ix (modulo 0: set ix->modulo afterwards for an Elasticsearch
 * 9.4+ index). routing_shards 0 = the default for `shards`;
 * partition_size 0 or 1 = not partitioned. Returns 0, or BF_E_RANGE (diag says which value and
 * the rule: shards >= 1, routing_shards a multiple of shards, partition_size < routing_shards
 * as OpenSearch's IndexMetadata requires; index creation also wants it < shards). */
int bf_routing_index_init(bf_routing_index_t *ix, uint32_t shards, uint32_t routing_shards,
                          uint32_t partition_size, bf_diag_t *d);

/* bf_routing_shard_of_hash — the shard given the hash of the effective routing value and, for a
 * partitioned index, the hash of the _id (ignored when ix->partition_size == 1). Returns the
 * shard number in [0, ix->shards). */
uint32_t bf_routing_shard_of_hash(const bf_routing_index_t *ix, int32_t routing_hash,
                                  int32_t id_hash);

/* bf_routing_shard_utf8 — the shard of a document with UTF-8 `id` (id_len bytes) and optional
 * UTF-8 `routing` (NULL = none). Returns 0 and *shard_out, or BF_E_INVAL (invalid UTF-8, or a
 * partitioned index without routing, which OpenSearch refuses: routing is required there). */
int bf_routing_shard_utf8(const bf_routing_index_t *ix, const char *id, size_t id_len,
                          const char *routing, size_t routing_len, uint32_t *shard_out,
                          bf_diag_t *d);

/* bf_routing_shard_json — the same for JSON-escaped string bodies (as in an action line). */
int bf_routing_shard_json(const bf_routing_index_t *ix, const char *id, size_t id_len,
                          const char *routing, size_t routing_len, uint32_t *shard_out,
                          bf_diag_t *d);

#endif
