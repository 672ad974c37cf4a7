/* SPDX-License-Identifier: MIT */
/* bf_routetable.h — which node holds the primary of each shard, and that node's HTTP address.
 *
 * Read from the cluster (docs/internals/devcluster.md §7.4):
 *   GET /_cluster/state/metadata,routing_table/<indices>   number_of_shards, routing_num_shards,
 *       routing_partition_size, version.created (which routing function: bf_routing.h) and
 *       primary_terms per index; per shard the copy with
 *       "primary": true and its "node" (node id)
 *   GET /_nodes/http                                        nodes.<id>.http.publish_address
 * A table is an immutable snapshot: built once, then only read (any number of threads), and
 * replaced as a whole when it is stale (a primary moved or was promoted).
 */
#ifndef BF_ROUTETABLE_H
#define BF_ROUTETABLE_H

#include "bf_error.h"
#include "bf_es.h"
#include "bf_routing.h"

#include <stddef.h>
#include <stdint.h>

#define BF_RT_NO_NODE UINT32_MAX /* a shard whose primary is unassigned */
#define BF_MAX_RT_NODES 4096u    /* nodes in one table */

typedef struct bf_rt_node {
    char *id;      /* node id from the cluster state */
    char *name;    /* node name, for messages ("" if unknown) */
    char *url;     /* "http://127.0.0.1:9201": the target's scheme + the node's
                      http.publish_address; NULL if the node has no HTTP address. With
                      https and an address published as "name/ip:port", the URL names the
                      host ("https://name:port", so the certificate is checked against the
                      name the node published) and `resolve` pins it to the ip */
    char *addr;    /* "ip:port" the node is reached at (where the bytes go: the allow-list
                      checks this), NULL if no HTTP address */
    char *resolve; /* "name:port:ip" for CURLOPT_RESOLVE when url names a host, else NULL */
    int refused;   /* set by the owner: the address is not on the agent's allow-list */
} bf_rt_node_t;

typedef struct bf_rt_index {
    char *name;
    bf_routing_index_t routing;
    uint32_t *primary_node; /* per shard: index into nodes, or BF_RT_NO_NODE */
    uint64_t *primary_term; /* per shard: metadata primary_terms (0 if absent) */
} bf_rt_index_t;

typedef struct bf_routetable {
    bf_rt_node_t *nodes;
    size_t nnodes;
    bf_rt_index_t *indices;
    size_t nindices;
    uint64_t version; /* cluster state "version" (0 if absent) */
} bf_routetable_t;

/* bf_routetable_parse — build a table from the two responses (JSON text, NUL-terminated) for
 * the named indices; scheme ("http" or "https") prefixes every node URL. An index missing
 * from the state is an error (BF_E_NOTFOUND, the diag names it). Returns 0 and *out (caller
 * owns: bf_routetable_destroy), BF_E_PARSE (not the expected JSON; diag says which part) or
 * BF_E_RANGE (shard counts out of range). Thread-safe. */
int bf_routetable_parse(const char *state_json, const char *nodes_json, const char *scheme,
                        const char *const *index_names, size_t nindex, bf_routetable_t **out,
                        bf_diag_t *d);

/* bf_routetable_fetch — both requests through es (borrowed, used by this thread only), then
 * bf_routetable_parse with the scheme of es's host. Returns as parse, or BF_E_TRANSPORT /
 * BF_E_HTTP (diag names the host and the call). */
int bf_routetable_fetch(bf_es_t *es, const char *const *index_names, size_t nindex,
                        bf_routetable_t **out, bf_diag_t *d);

/* bf_routetable_find — position of index `name` (len bytes, as in the action line, not
 * escaped: index names cannot hold characters JSON escapes), or -1. Thread-safe. */
long bf_routetable_find(const bf_routetable_t *rt, const char *name, size_t len);

/* bf_routetable_destroy — free; NULL-safe; clears *rt_p. */
void bf_routetable_destroy(bf_routetable_t **rt_p);

#endif
