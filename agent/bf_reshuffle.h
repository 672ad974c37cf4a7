/* SPDX-License-Identifier: MIT */
/* bf_reshuffle.h — split one bulk body into sub-bulks by primary node or by shard.
 *
 * routing_mode node / shard: each document's shard is computed as the cluster does
 * (bf_routing over the action line's _id and routing, with the index's routing_num_shards and
 * routing_partition_size from the routing table), and the document is appended to the sub-bulk
 * of its primary's node (node mode) or of its shard (shard mode). A document whose index is not
 * in the table, whose primary is unassigned, or whose node has no usable HTTP address (none
 * published, or refused by the allow-list) goes into the fallback part, sent to target.hosts
 * as in routing_mode none, and is counted as unrouted.
 *
 * Input is what bf_template renders: two lines per document, the action line being exactly
 * {"index"|"create":{"_index":"..."[,"_id":"..."][,"routing":"..."][,"pipeline":"..."]}}.
 * A document without _id gets one here ("<prefix><counter>" in hex), because routing needs
 * the id; the cluster then indexes it under that id.
 *
 * A bf_reshuffle_t is one thread's state (buffers reused from split to split); not thread-safe.
 */
#ifndef BF_RESHUFFLE_H
#define BF_RESHUFFLE_H

#include "bf_buf.h"
#include "bf_error.h"
#include "bf_routetable.h"
#include "bf_scenario.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

/* The routing table of one run, shared by its workers: `current` is replaced (never changed
 * in place) by the run's refresher; every snapshot stays valid until the run ends (the run owns
 * them), so a worker may keep using the one it read. A worker sets `stale` when a response
 * shows the table is out of date (a learned node refused connections, or an item's
 * _primary_term is above the table's for its shard: bf_reshuffle_stale_item); the refresher
 * then fetches a new one at once instead of at its next tick. */
typedef struct bf_rt_holder {
    _Atomic(bf_routetable_t *) current;
    atomic_uint generation;
    atomic_int stale;
} bf_rt_holder_t;

#define BF_RESHUFFLE_FALLBACK UINT32_MAX /* part.node of the fallback part */

typedef struct bf_reshuffle_part {
    uint32_t node;   /* index into the table's nodes, or BF_RESHUFFLE_FALLBACK */
    uint32_t key;    /* node (node mode) or global shard number (shard mode) */
    uint32_t ndocs;
    bf_buf_t body;   /* the sub-bulk's NDJSON; the caller may swap it out (then re-init it) */
    uint32_t *gshard; /* per document of the part: its global shard (the table's indices in
                        order, their shards numbered on), BF_RESHUFFLE_NO_SHARD when unrouted */
    uint32_t gshard_cap;
} bf_reshuffle_part_t;

#define BF_RESHUFFLE_NO_SHARD UINT32_MAX

typedef struct bf_reshuffle {
    enum bf_routing_mode mode;
    uint32_t max_parts;          /* at most this many parts per split (fallback included) */
    bf_reshuffle_part_t *parts;  /* [0, nparts) filled by the last split */
    uint32_t nparts;
    uint32_t *key_part;          /* key -> part + 1 (0 = none yet), per split */
    size_t nkeys;
    uint64_t *sent_by_shard;     /* documents per global shard since bf_reshuffle_moved */
    size_t nshards;              /* global shards of the table last used */
    char id_prefix[40];
    uint64_t id_counter;
    uint64_t unrouted;           /* documents of the last split in the fallback part */
} bf_reshuffle_t;

/* bf_reshuffle_init — mode node or shard; max_parts >= 2; id_prefix (copied, at most 32
 * bytes of [0-9a-z-]) starts every id this splitter generates and must make them unique
 * across the fleet and runs (agent stream + run seed). */
void bf_reshuffle_init(bf_reshuffle_t *r, enum bf_routing_mode mode, uint32_t max_parts,
                       const char *id_prefix);
void bf_reshuffle_cleanup(bf_reshuffle_t *r);

/* bf_reshuffle_split — split body[0..len) (ndocs documents) over rt (borrowed for the call).
 * Fills r->parts[0..nparts) and r->unrouted. Returns 0, BF_E_PARSE (the body is not the
 * template's shape; diag says where) or BF_E_TOOBIG (a part over BF_MAX_BODY_BYTES). */
int bf_reshuffle_split(bf_reshuffle_t *r, const bf_routetable_t *rt, const char *body,
                       size_t len, uint32_t ndocs, bf_diag_t *d);

/* bf_reshuffle_moved — documents sent, since the previous call, to shards whose primary is on
 * another node in `now` than in `before` (same index list, as two snapshots of one run are):
 * they went to a node that no longer held their primary by the time the table was refreshed
 * (an upper bound: the move happened somewhere in that interval). Resets the per-shard counts. */
uint64_t bf_reshuffle_moved(bf_reshuffle_t *r, const bf_routetable_t *before,
                            const bf_routetable_t *now);

/* Reading each item's _primary_term out of a bulk response as it streams in, so a response
 * that says the routing table is stale is noticed at once (a promoted primary has a
 * higher primary term than the table's). Item k of "items" (request order) gets terms[k]; an
 * item without "_primary_term" (a failed one, or a response filtered without it) keeps 0.
 * Only the structure is followed (strings, escapes, nesting); anything else is skipped. Format:
 * the _bulk response (each item {"<action>":{..., "_primary_term": N, ...}}). Embedded struct;
 * owns no memory; one per response; not thread-safe. */
typedef struct bf_termscan {
    uint64_t *terms; /* borrowed, n entries, zeroed by init */
    uint32_t n;
    uint32_t items;       /* items begun so far */
    uint32_t depth;       /* open objects and arrays */
    uint32_t items_depth; /* depth of the "items" array while it is open, else 0 */
    uint8_t in_str, esc, key_long, pending, in_num;
    uint8_t key_len;
    char key[16]; /* the last string's first bytes */
    uint64_t num;
} bf_termscan_t;

/* bf_termscan_init — start reading a response to a request of n documents into terms[0..n). */
void bf_termscan_init(bf_termscan_t *ts, uint64_t *terms, uint32_t n);
/* bf_termscan_feed — the next len bytes of the body (any split). */
void bf_termscan_feed(bf_termscan_t *ts, const char *p, size_t len);

/* bf_routetable_gshard_term — the primary term rt has for global shard g (see
 * bf_reshuffle_part_t.gshard), with its index and shard number; 0 when g is out of range.
 * Thread-safe (reads only). */
uint64_t bf_routetable_gshard_term(const bf_routetable_t *rt, uint32_t g, const char **index,
                                   uint32_t *shard);

/* bf_reshuffle_stale_item — the first document k (of ndocs, with global shards gshard[] and
 * answered terms[]) whose item carried a primary term above rt's for its shard: the table is
 * stale (a replica was promoted since it was read). Returns k, or -1 when none. Pure. */
long bf_reshuffle_stale_item(const bf_routetable_t *rt, const uint32_t *gshard,
                             const uint64_t *terms, uint32_t ndocs);

#endif
