/* SPDX-License-Identifier: MIT */
/* bf_sample.h — per-second counters of one agent (or merged), and their wire form bf.Sample.
 *
 * Counter names and meanings: docs/internals/measurement.md. Counters are merged by addition;
 * histograms by adding counts (bf_hist_add). Not thread-safe: callers lock.
 */
#ifndef BF_SAMPLE_H
#define BF_SAMPLE_H

#include "bf_errtypes.h"
#include "bf_hist.h"
#include "bulkfleet.pb-c.h"

#include <stddef.h>
#include <stdint.h>

#define BF_HTTP_STATUS_MAX 600

typedef struct bf_counters {
    uint64_t docs_sent, docs_ok, docs_rejected, docs_conflict, docs_mapping;
    uint64_t docs_failed_4xx, docs_failed_5xx, docs_unknown, docs_retried;
    uint64_t req_ok, req_partial, req_connect_error, req_timeout, req_reset, req_bad_response;
    uint64_t http_status[BF_HTTP_STATUS_MAX]; /* non-2xx whole-request statuses */
    uint64_t bytes_payload, bytes_wire;
    uint64_t inflight; /* gauge: summed over agents when merged */
    uint64_t cpu_user_ms, cpu_sys_ms, processing_us, conn_wait, rate_behind, connections_opened;
    uint64_t req_abandoned; /* requests still in flight when the load ended: their documents are
                               unknown (hard end past request.timeout, or an abort) */
    /* client-bound: the busiest worker thread's busy time in the second (not
     * waiting in curl_multi_poll; merged by max, not by addition: a share of one thread's
     * second), and the send lag of the requests sent in it (send time minus when the request
     * could have gone: its connection free and, in target-rate mode, due) with their count */
    uint64_t busy_us_max, send_lag_us, sends;
    uint64_t docs_429; /* documents answered 429 (rejected items, or a whole-request 429's
                          documents), on every attempt: a document rejected and accepted
                          on a retry counts here, not in docs_rejected */
    /* routing_mode node|shard (bf_reshuffle): bulks split, sub-bulk requests made of them,
     * documents sent unrouted (to target.hosts) and sent to a node that no longer held their
     * primary when the routing table was next refreshed */
    uint64_t bulks_split, subbulks, docs_unrouted, docs_misrouted;
    /* where the documents of unknown outcome came from, booked in the second the request ended
     * (docs_unknown is pro rata over its time in flight): abandoned in flight at the stop or
     * the hard end, timed out, connection reset after the body was written, an answer that is
     * not a bulk response, an HTTP status that leaves them unknown (502, 504, 1xx, 3xx). Over a
     * cell they add up to docs_unknown */
    uint64_t docs_unknown_abandoned, docs_unknown_timeout, docs_unknown_reset, docs_unknown_bad,
        docs_unknown_http;
    /* where the worker threads' time went: wall µs summed over the worker
     * threads building bodies, compressing them, reading answers (parse and verdict), booked
     * in the second the stage ended; worker_threads is a gauge (the agent's worker threads
     * running the cell, summed over agents when merged): worker_threads x 1 s is the time the
     * stages are shares of, and what is left of it is send/wait */
    uint64_t render_us, compress_us, judge_us, worker_threads;
    /* the load on the agents' hosts: the 1-minute load average x 1000 when the sample was
     * made, and the agents that read it (1 per agent; 0 = not measured), both summed when
     * merged: their ratio / 1000 is the mean load over the agents */
    uint64_t host_load_milli, host_load_agents;
} bf_counters_t;

/* One scalar counter: its name (results files), where it lives in bf_counters_t and in
 * Bf__Sample (uint32 there when sample_u32). bf_counter_fields lists every scalar counter
 * once, in results-file order; http_status[] is handled apart. */
typedef struct bf_counter_field {
    const char *name;
    size_t counters_off;
    size_t sample_off;
    int sample_u32;
} bf_counter_field_t;
extern const bf_counter_field_t bf_counter_fields[];
extern const size_t bf_counter_nfields;

/* bf_counters_add — dst += src for every counter; busy_us_max = the larger of the two. */
void bf_counters_add(bf_counters_t *dst, const bf_counters_t *src);
/* bf_counters_http_errors — sum of http_status[]. */
uint64_t bf_counters_http_errors(const bf_counters_t *c);
/* bf_counters_docs_failed — 409 + 400 + other 4xx + 5xx item failures. */
uint64_t bf_counters_docs_failed(const bf_counters_t *c);

/* bf_sample_pack — fill *s (bf__sample__init'ed by this function) from counters and
 * histograms (either may be NULL). Allocates repeated fields: release with
 * bf_sample_pack_cleanup. cell_id and fatal are borrowed. */
void bf_sample_pack(Bf__Sample *s, Bf__Hist *svc_pb, Bf__Hist *lat_pb, const char *cell_id,
                    uint64_t seq, int32_t second, const bf_counters_t *c, const bf_hist_t *svc,
                    const bf_hist_t *lat);
void bf_sample_pack_cleanup(Bf__Sample *s);

/* bf_sample_unpack_add — add a received sample's counters and histograms into c, svc, lat
 * (svc/lat may be NULL). Returns 0 or BF_E_RANGE when a histogram index is invalid (then
 * nothing of the histograms is added; counters are). */
int bf_sample_unpack_add(const Bf__Sample *s, bf_counters_t *c, bf_hist_t *svc, bf_hist_t *lat);

/* bf_sample_pack_errtypes — the table as Sample.doc_errors: *out gets a bf_calloc'ed array of
 * t->n ErrorCount (type, count = docs, reason) whose strings are borrowed from t (t must
 * outlive the message); release with bf_sample_pack_errtypes_cleanup. */
void bf_sample_pack_errtypes(const bf_errtypes_t *t, Bf__ErrorCount ***out, size_t *n_out);
void bf_sample_pack_errtypes_cleanup(Bf__ErrorCount ***arr, size_t *n);
/* bf_sample_unpack_errtypes_add — t += n received ErrorCount (NULL strings are taken as ""). */
void bf_sample_unpack_errtypes_add(bf_errtypes_t *t, Bf__ErrorCount *const *arr, size_t n);

#endif
