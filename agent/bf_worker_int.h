/* SPDX-License-Identifier: MIT */
/* bf_worker_int.h — what the files of one load thread share (bf_worker.c, bf_worker_bucket.c,
 * bf_worker_route.c, bf_worker_new.c): the connection slot, the worker struct and the functions
 * they call across files. Directory-internal (bf__worker_ prefix); nothing outside agent/
 * includes it. Every function runs on the worker's own thread unless it says it locks.
 */
#ifndef BF_WORKER_INT_H
#define BF_WORKER_INT_H

#include "bf_body.h"
#include "bf_bulkresp.h"
#include "bf_worker.h"

#include <curl/curl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#define HEAD_BYTES 2048 /* first bytes of a response kept for messages */

typedef struct bucket {
    int32_t second; /* -1: empty */
    bf_counters_t c;
    bf_hist_t *svc; /* allocated on the first record, freed when collected */
    bf_hist_t *lat;
} bucket;

/* The counters booked pro rata over a request's time in flight (see bf__worker_spread_docs). */
enum {
    SP_SENT,
    SP_RETRIED,
    SP_OK,
    SP_REJECTED,
    SP_CONFLICT,
    SP_MAPPING,
    SP_4XX,
    SP_5XX,
    SP_UNKNOWN,
    SP_PAYLOAD,
    SP_WIRE,
    SP_N
};

enum slot_state { SLOT_IDLE = 0, SLOT_BUSY, SLOT_RETRY_WAIT, SLOT_CONNECT_WAIT };

typedef struct slot {
    bf_worker_t *w;
    CURL *h;
    uint32_t group; /* routing: the bulk this sub-bulk belongs to (else = its index) */
    char *home_url; /* its target.hosts URL (.../_bulk[?filter_path]) */
    enum slot_state state;
    bf_body_t body;     /* the request's body, of the worker's kind (bf_body.h) */
    size_t payload_len; /* uncompressed bytes of the request */
    size_t wire_len;    /* body bytes on the wire */
    uint32_t ndocs;
    uint32_t retries;          /* resends of rejected documents so far */
    uint32_t connect_failures; /* consecutive */
    uint64_t intended_us;      /* due time (open loop) or first build time */
    uint64_t send_us;          /* when this attempt was handed to libcurl */
    uint64_t ready_us;         /* when it could have been: the connection free (and, in
                                  target-rate mode, the request due); 0 = not tracked */
    uint64_t retry_due_us;
    uint64_t proc_us; /* client-side time of this request outside the service time */
    /* stage clocks: wall µs reading this attempt's answer as it streams in (booked when it
     * ends); building and compressing the body are the body's (render_us, compress_us: booked
     * when it is sent, a streamed body's render when it ends) */
    uint64_t judge_us;
    uint8_t *item_class;
    uint32_t item_class_cap;
    size_t sent_off;    /* body bytes handed to libcurl so far (on_read) */
    int resend_refused; /* libcurl wanted to send this body again by itself (on_seek) */
    bf_bulkresp_stream_t judge;
    /* routing: each document's global shard (from the split) and its item's primary term */
    uint32_t *gshard;
    uint64_t *terms;
    uint32_t gshard_cap;
    int routed; /* this request is a sub-bulk: gshard is valid, terms are read */
    bf_termscan_t terms_scan;
    struct curl_slist *sig_hdr; /* target.auth.aws: this attempt's headers, signed */
    char *sig_url;              /* target.auth.aws: the URL with its query as signed, or NULL */
    long status;                /* known once the headers are in */
    char head[HEAD_BYTES];      /* first bytes of the response body, for messages */
    size_t head_len;
} slot;

struct bf_worker {
    bf_worker_cfg_t cfg;
    pthread_t thread;
    int started;
    atomic_int abort_flag;
    atomic_uint end_load_ms; /* bf_worker_end_load: the load's end (ms after start), 0 = cfg */
    atomic_int finished;
    atomic_uint inflight;
    atomic_int last_second;

    pthread_mutex_t lock;
    bucket *ring;        /* nring buckets, one per second, by second mod nring */
    uint32_t nring;      /* covers the longest a request can be in flight, + RING */
    int32_t open_second; /* lowest second a request in flight was sent in (INT32_MAX: none):
                            no second from it on is sealed; under lock */

    CURLM *multi;
    slot *slots; /* nslots = connections x group_size; group g = slots
                    [g * group_size, (g + 1) * group_size) */
    uint32_t nslots;
    uint32_t group_size;                 /* 1, or the most parts a split may have (routing) */
    bf_reshuffle_t rs;                   /* routing only */
    const bf_routetable_t *rt;           /* routing: the snapshot of the last split */
    const bf_routetable_t *stale_logged; /* routing: the table a stale answer was logged for */
    struct curl_slist *resolve;      /* routing: "name:port:ip" of nodes published by name (https),
                                        for CURLOPT_RESOLVE; NULL when none */
    struct curl_slist **old_resolve; /* earlier lists, kept until destroy (a handle may still
                                        hold one) */
    size_t nold_resolve;
    char **node_urls; /* routing: <node url>/_bulk[?filter_path] per node of rt */
    size_t nnode_urls;
    struct curl_slist *hdr_plain;
    struct curl_slist *hdr_gzip;
    int gzip;               /* bodies go compressed (Content-Encoding: gzip) */
    enum bf_body_kind kind; /* what every connection's body is (bf_body_kind_for), chosen once;
                               streamed becomes rendered after a 411 (request.transfer auto) */
    int sign;               /* target.auth.aws: every request signed with its body (bf_aws) */
    int transfer_auto;      /* request.transfer auto: a 411 to a chunked body turns streaming off */
    bf_body_env_t benv;     /* what the bodies share: generator, corpus cursor, scratch, gzip */
    uint32_t retry_max;
    int missing_fails; /* document.delete_missing: fail (bf_bulkresp_stream_missing_fails) */
    /* streamed bodies: the generator is one sequence of documents, so one body at a time is
     * being rendered (`open`): the next body starts once its last document is rendered, or the
     * open body's rest is rendered whole (spilled) to make way (may_start). */
    slot *open;            /* the body still being rendered, NULL if none */
    uint64_t open_us;      /* when it started */
    uint64_t open_read_us; /* when libcurl last read from it */
    int open_ended;        /* on_read rendered the open body's last document */
    bf_gen_t *gen;
    bf_corpus_cursor_t cursor;         /* corpus mode: where this worker is in its slice */
    int corpus_done;                   /* corpus mode: the slice was read `passes` times */
    uint64_t corpus_end_us;            /* with corpus_done: when its last response came (mono) */
    struct libdeflate_compressor *gzc; /* gzip: whole-buffer compressor (libdeflate) */
    bf_buf_t scratch;         /* the bodies' render target and retry builder (bf_body_env_t) */
    uint64_t last_blocked_us; /* open loop: last time a due request found no free slot */
    unsigned warned;          /* kinds of problems already logged by this thread */
    int bulk_seen;            /* a 2xx bulk response was read in this cell (fail-fast policy) */
    uint32_t not_bulk_streak; /* 2xx answers in a row that were no bulk response */
    bf_errtypes_t errs;       /* failed documents by error type since the last
                                 bf_worker_collect_errors; under lock */
    char fatal[512];
    atomic_int fatal_set;
};

/* ---- bf_worker_bucket.c: buckets and the fatal reason --------------------------------------- */

/* The second of monotonic time t_us from the cell's t = 0 (0 before it). */
int32_t bf__worker_second_of(const bf_worker_t *w, uint64_t t_us);
/* The bucket of second sec (an older second's if the sampler fell behind); caller holds the
 * lock. */
bucket *bf__worker_bucket_at(bf_worker_t *w, int32_t sec);
/* The bucket for now (clock read under the lock, see bf_worker.h); caller holds the lock. */
bucket *bf__worker_bucket_now(bf_worker_t *w);
/* Records value_us into *h, allocated on the first record. */
void bf__worker_record_hist(bf_hist_t **h, uint64_t value_us);
/* Books a request's totals v[SP_*] pro rata over its time in flight [t0_us, t1_us]; caller holds
 * the lock. */
void bf__worker_spread_docs(bf_worker_t *w, uint64_t t0_us, uint64_t t1_us, const uint64_t *v);
/* open_second after a change of the slots in flight; caller holds the lock. */
void bf__worker_update_open_second(bf_worker_t *w);
/* The cell must fail: the first reason is kept (printf format) and the worker aborts. */
void bf__worker_set_fatal(bf_worker_t *w, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* ---- bf_worker_route.c: routed sub-bulks ---------------------------------------------------- */

/* <base>/_bulk with the request's query (filter_path; request.pipeline: every document of the
 * request goes through it; routed: the items' _primary_term kept). Caller frees. */
char *bf__worker_bulk_url(const char *base, const bf_request_spec_t *rq, int routed);
/* Splits the bulk in the scratch buffer (ndocs documents) by primary node or shard and readies
 * each part in the slots of s's group (URL, body, counts); returns the parts to send, 0 when the
 * cell failed (bf__worker_set_fatal). t0 and io_us: when the build began and its I/O turns. */
uint32_t bf__worker_split(bf_worker_t *w, slot *s, uint64_t intended_us, uint64_t t0,
                          uint64_t io_us, uint32_t ndocs);
/* A response's primary terms against the routing table: a stale table is re-read at once. */
void bf__worker_check_terms(bf_worker_t *w, slot *s);

/* ---- bf_worker.c: what bf_worker_new wires into libcurl and the thread ---------------------- */

size_t bf__worker_on_body(char *p, size_t size, size_t n, void *ud);
size_t bf__worker_on_read(char *buf, size_t size, size_t n, void *ud);
int bf__worker_on_seek(void *ud, curl_off_t offset, int origin);
/* bf_body_env_t.turn: lets the other transfers move on; returns the µs it took. */
uint64_t bf__worker_io_turn(void *ctx);
/* The thread (pthread_create's start routine); arg is the worker. */
void *bf__worker_run(void *arg);

#endif
