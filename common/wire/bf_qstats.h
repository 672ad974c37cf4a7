/* SPDX-License-Identifier: MIT */
/* bf_qstats.h — one named query's counters and histograms for one second (or merged), and
 * their wire form bf.QueryStats (search and mixed workloads).
 *
 * started counts the queries a client began (what search.target_rate schedules: a request, a
 * sequence of pages, an _msearch of several searches), for search-rate-missed.
 * What a search client counts per answer (agent/bf_search.c decides, bf_qstats_judge is the
 * pure rule): ops_sent when a request starts; then exactly one of ops_ok (HTTP 2xx with a JSON
 * object) or ops_error (anything else, counted by type: the cluster's error.type such as
 * "index_not_found_exception", else "http_<status>", or the transport class "timeout",
 * "connect", "reset", "bad_response"). For 2xx answers also timed_out ("timed_out": true),
 * shard_failures (_shards.failed), hits (hits.total.value, hits.total as a number, count
 * for _count, or the hits returned when track_total_hits is false; _msearch sums its
 * responses) and took_ms (the server's "took"). Service time
 * (send -> response) and latency (intended start -> response; equal in closed loop) go into
 * HdrHistogram-layout histograms, merged by adding counts like the bulk ones
 * (docs/internals/measurement.md). Not thread-safe: callers lock.
 */
#ifndef BF_QSTATS_H
#define BF_QSTATS_H

#include "bf_hist.h"
#include "bulkfleet.pb-c.h"

#include <stddef.h>
#include <stdint.h>

#define BF_QERR_TYPES 8u     /* distinct error types kept per query; more go to "other" */
#define BF_QERR_TYPE_LEN 64u /* bytes of one error type name, NUL included */

#define BF_MAX_PROFILE_BYTES (256u << 10) /* a profiled answer kept whole up to this */

/* The slowest profiled answer (ProfileSummary in the protocol). */
typedef struct bf_qprofile {
    int set;
    double service_ms, query_ms, collectors_ms, rewrite_ms, fetch_ms, rest_ms;
    uint32_t shards;
    char shard[128];
    char *answer; /* owned, NUL-terminated; NULL when over BF_MAX_PROFILE_BYTES */
    size_t answer_len;
} bf_qprofile_t;

typedef struct bf_qstats {
    uint64_t started; /* queries started (a request, a page sequence or an _msearch of
                         several searches: one each), by the second they started in */
    uint64_t ops_sent, ops_ok, ops_error, timed_out, shard_failures, hits, took_ms, took_count;
    uint64_t err_count[BF_QERR_TYPES];
    char err_type[BF_QERR_TYPES][BF_QERR_TYPE_LEN]; /* "" = unused slot */
    bf_hist_t *svc;                                 /* owned; service time, us */
    bf_hist_t *lat;                                 /* owned; latency, us */
    bf_qprofile_t prof; /* the slowest profiled answer (set 0 when none) */
} bf_qstats_t;

/* bf_qstats_init / bf_qstats_cleanup — embedded struct lifecycle (two histograms of ~190 KiB
 * each are allocated by init and freed by cleanup; cleanup is idempotent). */
void bf_qstats_init(bf_qstats_t *q);
void bf_qstats_cleanup(bf_qstats_t *q);
/* bf_qstats_reset — zero every counter and histogram, keep the allocations. */
void bf_qstats_reset(bf_qstats_t *q);
/* bf_qstats_empty — 1 when nothing was counted. */
int bf_qstats_empty(const bf_qstats_t *q);
/* bf_qstats_error — count one error of `type` (truncated to BF_QERR_TYPE_LEN - 1 bytes); the
 * (BF_QERR_TYPES + 1)-th distinct type and later ones are counted as "other". Also ops_error. */
void bf_qstats_error(bf_qstats_t *q, const char *type, uint64_t n);
/* bf_qstats_add — dst += src (counters, error types by name, histograms by adding counts). */
void bf_qstats_add(bf_qstats_t *dst, const bf_qstats_t *src);

/* What one 2xx search answer said (bf_qstats_parse_answer). */
typedef struct bf_qanswer {
    int json_ok; /* the body was a JSON object */
    int timed_out;
    uint64_t shard_failures, hits, took_ms;
    int has_took;
    char error_type[BF_QERR_TYPE_LEN]; /* non-2xx: the cluster's error.type, or "" */
    char error_reason[256];            /* non-2xx: error.reason (root cause first), or "" */
} bf_qanswer_t;

/* bf_qstats_parse_answer — read an answer body (len bytes, need not be NUL-terminated) of a
 * search-family API: _search and _count (one object), _msearch ({"responses": [...]}: hits,
 * took, shard failures summed; a response with "error" counts as timed out = 0 and adds one
 * shard failure per failed shard it names). Field names: OpenSearch REST API (search
 * response body). Fills *a; never fails (a body that is not JSON leaves json_ok 0). */
void bf_qstats_parse_answer(const char *body, size_t len, bf_qanswer_t *a);

/* What the responses[] of one _msearch answer said, search by search (bf_qstats_parse_msearch). */
typedef struct bf_qitems {
    uint32_t ok, errors; /* searches answered (2xx item) / failed; ok + errors = searches */
    uint64_t timed_out, shard_failures, hits, took_ms, took_count; /* of the answered items */
    uint64_t err_count[BF_QERR_TYPES];
    char err_type[BF_QERR_TYPES][BF_QERR_TYPE_LEN]; /* "" = unused; the 9th type on is "other" */
    int32_t bad_item; /* first item whose own status is 400, 401, 403, 404 or 405 (the
                         search itself is wrong), 0-based; -1 none */
    long bad_status;
    char bad_type[BF_QERR_TYPE_LEN];
    char bad_reason[256];
} bf_qitems_t;

/* bf_qstats_parse_msearch — judge a 2xx _msearch answer (body of len bytes, need not be
 * NUL-terminated) of a request that held `searches` searches: item k of "responses" is search
 * k; an item with "error" (or a "status" outside 2xx) is one failed search, of the type of its
 * error's root cause (else error.type, else "http_<status>"); any other item is one answered
 * search, whose took, timed_out, _shards.failed and hits are added as for _search. Items
 * missing from the answer (or all of them when it is not JSON with a responses array) are
 * failed searches of type "bad_response"; items past `searches` are ignored. Format: the
 * OpenSearch / Elasticsearch multi search API response. Fills *it; never fails. Pure. */
void bf_qstats_parse_msearch(const char *body, size_t len, uint32_t searches, bf_qitems_t *it);
/* bf_qstats_add_items — q += it (ops_ok, errors by type, the answered items' counters). The
 * histograms are the caller's (one value per search). Not thread-safe: callers lock. */
void bf_qstats_add_items(bf_qstats_t *q, const bf_qitems_t *it);

/* bf_qstats_profile_parse — summarise a Profile API answer (body of len bytes) of a request
 * whose service time was service_us: per shard (profile.shards[]) the top-level query tree
 * times, collector times, rewrite_time and fetch time are added; the slowest shard's are
 * kept, and rest = service time - that shard's total (the coordinating node's work and the
 * transfer, as seed 002's table has it). Field names: the search Profile API (OpenSearch /
 * Elasticsearch "profile": true). Returns 0 and fills *p (answer copied when it fits), or
 * BF_E_PARSE when the body has no profile.shards. Caller frees with bf_qprofile_clear. */
int bf_qstats_profile_parse(const char *body, size_t len, uint64_t service_us, bf_qprofile_t *p);
/* bf_qprofile_clear — free the answer and unset. */
void bf_qprofile_clear(bf_qprofile_t *p);
/* bf_qprofile_keep_slower — dst = src (copied) when src is set and slower than dst. */
void bf_qprofile_keep_slower(bf_qprofile_t *dst, const bf_qprofile_t *src);

/* bf_qstats_pack — fill pb (initialised here) from q for query index qi. Allocates repeated
 * fields and histograms: release with bf_qstats_pack_cleanup. */
void bf_qstats_pack(Bf__QueryStats *pb, uint32_t qi, const bf_qstats_t *q);
void bf_qstats_pack_cleanup(Bf__QueryStats *pb);
/* bf_qstats_unpack_add — q += pb. Returns 0, or BF_E_RANGE when a histogram is invalid (then
 * neither histogram is added; the counters are). */
int bf_qstats_unpack_add(const Bf__QueryStats *pb, bf_qstats_t *q);

#endif
