/* SPDX-License-Identifier: MIT */
/* bf_worker.c — one load thread: libcurl multi, bulk bodies, outcomes per second.
 *
 * Each connection slot owns its buffers and reuses them for every request (STYLE §7): the
 * NDJSON body (or, with gzip and no retries, only the compressed body: the NDJSON is then
 * rendered into one scratch buffer per thread), and an incremental response judge
 * (bf_bulkresp_stream), so responses are judged as they arrive and never stored. Closed loop:
 * a slot that completes sends again at once. Open loop (target_rate > 0): requests are due at
 * fixed intervals; latency is measured from the due time (coordinated omission, after wrk2),
 * service time from the actual send; a request sent more than LATE_US after its due time counts
 * in rate_behind, and one that found every connection busy at its due time in conn_wait.
 *
 * Outcomes: what a finished request counts as (per item, per whole-request status, per
 * transport outcome; retry or not; fail the cell or not) is decided by bf_verdict_judge (the
 * table is in bf_verdict.h); on_done only gathers the facts from libcurl and executes the
 * verdict, counting in the second the response completed. Every document sent ends in exactly
 * one of ok, rejected, failed (by class) or unknown; docs_retried counts resends of rejected
 * documents, whose final verdict is what counts.
 */
#include "bf_worker.h"

#include "bf_bulkresp.h"
#include "bf_aws.h"
#include "bf_clock.h"
#include "bf_es.h"
#include "bf_log.h"
#include "bf_mem.h"
#include "bf_verdict.h"

#include <curl/curl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libdeflate.h>

#define RING 8
#define LATE_US 10000                   /* open loop: sent this late = behind the target */
#define HEAD_BYTES 2048                 /* first bytes of a response kept for messages */
#define CONNECT_BACKOFF_MIN_US 100000u  /* after a failed connect; doubled up to the max */
#define CONNECT_BACKOFF_MAX_US 2000000u
#define IDLE_POLL_MS 100                /* longest wait in curl_multi_poll */
#define UPLOAD_BUFFER_MIN 65536L        /* libcurl's default and its floor for us */
/* enough with a turn of the loop every slice; each connection holds one while it sends.
 * Measured (#28, bench/RESULTS.md): 64 KiB sent 7-21 % fewer docs a CPU-second, 128 KiB 1-16 %,
 * 512 KiB-2 MiB as many as 256 KiB within the noise */
#define UPLOAD_BUFFER_MAX (256L << 10)
#define RECV_BUFFER_MIN 16384L         /* libcurl's default receive buffer */
#define RECV_BUFFER_MAX (128L << 10)
#define SLICE_BYTES (128u << 10)        /* a body is built this much at a time (see send_new) */
/* streamed bodies: how long a new body waits for the open one before that one is spilled.
 * A body on a fast link is rendered in about the time it takes to send (~2 ms for 2.8 MiB
 * here); a slow link must not hold the other connections back. */
#define OPEN_WAIT_US 20000u
#define OPEN_STALL_US 2000u /* ... or once libcurl has not asked for more of it for this long */

typedef struct bucket {
    int32_t second; /* -1: empty */
    bf_counters_t c;
    bf_hist_t *svc; /* allocated on the first record, freed when collected */
    bf_hist_t *lat;
} bucket;

/* The counters booked pro rata over a request's time in flight (see spread_docs). */
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
    uint32_t group;         /* routing: the bulk this sub-bulk belongs to (else = its index) */
    char *home_url;         /* its target.hosts URL (.../_bulk[?filter_path]) */
    enum slot_state state;
    bf_buf_t body;          /* uncompressed NDJSON (unused when rendered into the scratch) */
    bf_gather_t gat;        /* corpus fast path: the body as pieces of the corpus (gathered) */
    int gathered;           /* the body is `gat`, not `body` (with gzip the wire is `gz`) */
    bf_gather_pos_t gat_pos; /* on_read's position in `gat` */
    bf_buf_t gz;            /* gzip of the body */
    size_t payload_len;     /* uncompressed bytes of the request */
    size_t wire_len;        /* body bytes on the wire */
    uint32_t ndocs;
    uint32_t retries;       /* resends of rejected documents so far */
    uint32_t connect_failures; /* consecutive */
    int gz_valid;           /* s->gz is the gzip of s->body as it is now */
    uint64_t intended_us;   /* due time (open loop) or first build time */
    uint64_t send_us;       /* when this attempt was handed to libcurl */
    uint64_t ready_us;      /* when it could have been: the connection free (and, in
                               target-rate mode, the request due); 0 = not tracked */
    uint64_t retry_due_us;
    uint64_t proc_us;       /* client-side time of this request outside the service time */
    /* stage clocks (issue #29 item 5): wall µs building and compressing this attempt's body
     * (booked when it is sent), reading its answer as it streams in (booked when it ends) */
    uint64_t render_us, compress_us, judge_us;
    uint8_t *item_class;
    uint32_t item_class_cap;
    size_t sent_off;        /* body bytes handed to libcurl so far (on_read) */
    int resend_refused;     /* libcurl wanted to send this body again by itself (on_seek) */
    int streamed;           /* the body is rendered as libcurl reads it (w->stream) */
    uint64_t frame_bytes;   /* streamed: chunked framing libcurl adds to the bytes it counts
                               as uploaded (hex size + CRLF + CRLF a chunk, "0\r\n\r\n") */
    int eof_framed;         /* streamed: the last chunk's framing is counted */
    bf_tmpl_stream_t stream;
    bf_bulkresp_stream_t judge;
    /* routing: each document's global shard (from the split) and its item's primary term */
    uint32_t *gshard;
    uint64_t *terms;
    uint32_t gshard_cap;
    int routed; /* this request is a sub-bulk: gshard is valid, terms are read */
    bf_termscan_t terms_scan;
    struct curl_slist *sig_hdr; /* target.auth.aws: this attempt's headers, signed */
    char *sig_url;              /* target.auth.aws: the URL with its query as signed, or NULL */
    long status;            /* known once the headers are in */
    char head[HEAD_BYTES];  /* first bytes of the response body, for messages */
    size_t head_len;
} slot;

struct bf_worker {
    bf_worker_cfg_t cfg;
    pthread_t thread;
    int started;
    atomic_int abort_flag;
    atomic_int finished;
    atomic_uint inflight;
    atomic_int last_second;

    pthread_mutex_t lock;
    bucket *ring;        /* nring buckets, one per second, by second mod nring */
    uint32_t nring;      /* covers the longest a request can be in flight, + RING */
    int32_t open_second; /* lowest second a request in flight was sent in (INT32_MAX: none):
                            no second from it on is sealed; under lock */

    CURLM *multi;
    slot *slots;            /* nslots = connections x group_size; group g = slots
                               [g * group_size, (g + 1) * group_size) */
    uint32_t nslots;
    uint32_t group_size;    /* 1, or the most parts a split may have (routing) */
    bf_reshuffle_t rs;      /* routing only */
    const bf_routetable_t *rt; /* routing: the snapshot of the last split */
    const bf_routetable_t *stale_logged; /* routing: the table a stale answer was logged for */
    struct curl_slist *resolve;      /* routing: "name:port:ip" of nodes published by name (https),
                                        for CURLOPT_RESOLVE; NULL when none */
    struct curl_slist **old_resolve; /* earlier lists, kept until destroy (a handle may still
                                        hold one) */
    size_t nold_resolve;
    char **node_urls;       /* routing: <node url>/_bulk[?filter_path] per node of rt */
    size_t nnode_urls;
    struct curl_slist *hdr_plain;
    struct curl_slist *hdr_gzip;
    int gzip;
    int sign;               /* target.auth.aws: every request signed with its body (bf_aws) */
    int transfer_auto;      /* request.transfer auto: a 411 to a chunked body turns stream off */
    int shared_render;      /* gzip without retries: NDJSON rendered into `scratch` */
    int gather;             /* corpus, unrouted, uncompressed or contiguous: bodies gathered,
                               not copied */
    int contig;             /* the corpus is interleaved for this cell: a body is one range of
                               it (two at a wrap), bf_tmpl_take_corpus */
    uint32_t retry_max;
    int missing_fails;      /* document.delete_missing: fail (bf_bulkresp_stream_missing_fails) */
    uint32_t slice_docs;    /* documents rendered between two turns of the I/O loop */
    /* template bodies rendered straight into libcurl's upload buffer (issue #28): uncompressed,
     * unrouted, no retries, a template bf_tmpl_stream_room accepts. The generator is one
     * sequence of documents, so one body at a time is being rendered (`open`): the next body
     * starts once its last document is rendered, or the open body's rest is rendered whole
     * (spilled) to make way (may_start). */
    int stream;
    slot *open;            /* the body still being rendered, NULL if none */
    uint64_t open_us;      /* when it started */
    uint64_t open_read_us; /* when libcurl last read from it */
    int open_ended;        /* on_read rendered the open body's last document */
    bf_gen_t *gen;
    bf_corpus_cursor_t cursor;         /* corpus mode: where this worker is in its slice */
    int corpus_done;                   /* corpus mode: the slice was read `passes` times */
    uint64_t corpus_end_us;            /* with corpus_done: when its last response came (mono) */
    struct libdeflate_compressor *gzc; /* gzip: whole-buffer compressor (libdeflate) */
    bf_buf_t scratch;       /* render target (shared_render) and retry builder */
    uint64_t last_blocked_us; /* open loop: last time a due request found no free slot */
    unsigned warned;        /* kinds of problems already logged by this thread */
    int bulk_seen;          /* a 2xx bulk response was read in this cell (fail-fast policy) */
    uint32_t not_bulk_streak; /* 2xx answers in a row that were no bulk response */
    bf_errtypes_t errs;       /* failed documents by error type since the last
                                 bf_worker_collect_errors; under lock */
    char fatal[512];
    atomic_int fatal_set;
};

/* ---- buckets ------------------------------------------------------------------------------ */

static int32_t second_of(const bf_worker_t *w, uint64_t t_us)
{
    uint64_t start = w->cfg.start_mono_us;
    return t_us > start ? (int32_t)((t_us - start) / 1000000u) : 0;
}

/* Returns the bucket of second sec; caller holds the lock. */
static bucket *bucket_at(bf_worker_t *w, int32_t sec)
{
    bucket *b = &w->ring[(uint32_t)sec % w->nring];
    if (b->second != sec) {
        if (b->second >= 0) {
            /* the sampler fell nring seconds behind; keep the data under its older second
             * rather than lose it (it is still counted, early) */
            return b;
        }
        b->second = sec;
    }
    if (sec > atomic_load(&w->last_second))
        atomic_store(&w->last_second, sec);
    return b;
}

/* Returns the bucket for now (clock read under the lock, see header); caller holds the lock. */
static bucket *bucket_now(bf_worker_t *w)
{
    return bucket_at(w, second_of(w, bf_clock_mono_us()));
}

static void record_hist(bf_hist_t **h, uint64_t value_us)
{
    if (*h == NULL)
        *h = bf_hist_new();
    bf_hist_record(*h, value_us);
}

/* The pro-rata rule (docs/results.md, "What the numbers mean"): the documents of a request that was
 * in flight from t0_us to t1_us are booked over the seconds of that time, each second getting the
 * share of its overlap: document i of n belongs to the second in which the fraction i/n of the
 * time in flight is reached (cumulative, so the shares add up to n exactly). Documents are
 * taken in the order ok, rejected, conflict, mapping, 4xx, 5xx, unknown, then those still to
 * be retried (sent, no verdict yet), so every second's verdicts are a subset of the documents
 * sent in it: docs_ok of a second never exceeds its docs_sent. Bytes follow the same shares.
 * v[SP_*] are the request's totals; caller holds the lock. */
static void spread_docs(bf_worker_t *w, uint64_t t0_us, uint64_t t1_us, const uint64_t *v)
{
    if (t1_us < t0_us)
        t1_us = t0_us;
    int32_t s0 = second_of(w, t0_us), s1 = second_of(w, t1_us);
    uint64_t dur = t1_us - t0_us;
    uint64_t n = v[SP_SENT] + v[SP_RETRIED];
    static const int cls[] = {SP_OK,  SP_REJECTED, SP_CONFLICT, SP_MAPPING,
                              SP_4XX, SP_5XX,      SP_UNKNOWN};
    uint64_t prev_docs = 0, prev_payload = 0, prev_wire = 0;
    for (int32_t sec = s0; sec <= s1; sec++) {
        uint64_t upto; /* time in flight up to the end of sec */
        if (sec == s1 || dur == 0) {
            upto = dur;
        } else {
            uint64_t end = w->cfg.start_mono_us + (uint64_t)(sec + 1) * 1000000u;
            upto = end > t0_us ? end - t0_us : 0;
        }
        uint64_t docs = dur ? (uint64_t)((unsigned __int128)n * upto / dur) : n;
        uint64_t payload =
            dur ? (uint64_t)((unsigned __int128)v[SP_PAYLOAD] * upto / dur) : v[SP_PAYLOAD];
        uint64_t wire = dur ? (uint64_t)((unsigned __int128)v[SP_WIRE] * upto / dur) : v[SP_WIRE];
        if (sec == s1) {
            docs = n;
            payload = v[SP_PAYLOAD];
            wire = v[SP_WIRE];
        }
        if (docs == prev_docs && payload == prev_payload && wire == prev_wire)
            continue;
        bf_counters_t *c = &bucket_at(w, sec)->c;
        uint64_t k = docs - prev_docs;
        if (v[SP_SENT])
            c->docs_sent += k;
        else
            c->docs_retried += k;
        c->bytes_payload += payload - prev_payload;
        c->bytes_wire += wire - prev_wire;
        /* documents [prev_docs, docs) of the class order */
        uint64_t *dst[] = {&c->docs_ok,      &c->docs_rejected,   &c->docs_conflict,
                           &c->docs_mapping, &c->docs_failed_4xx, &c->docs_failed_5xx,
                           &c->docs_unknown};
        uint64_t lo = 0;
        for (size_t i = 0; i < sizeof cls / sizeof cls[0]; i++) {
            uint64_t hi = lo + v[cls[i]];
            uint64_t a = prev_docs > lo ? prev_docs : lo, b = docs < hi ? docs : hi;
            if (b > a)
                *dst[i] += b - a;
            lo = hi;
        }
        prev_docs = docs;
        prev_payload = payload;
        prev_wire = wire;
    }
}

/* open_second after a change of the slots in flight; caller holds the lock. */
static void update_open_second(bf_worker_t *w);

int bf_worker_collect(bf_worker_t *w, int32_t second, bf_counters_t *c, bf_hist_t *svc,
                      bf_hist_t *lat)
{
    int had = 0;
    pthread_mutex_lock(&w->lock);
    bucket *b = &w->ring[(uint32_t)second % w->nring];
    if (b->second == second) {
        bf_counters_add(c, &b->c);
        if (svc && b->svc)
            bf_hist_add(svc, b->svc);
        if (lat && b->lat)
            bf_hist_add(lat, b->lat);
        memset(&b->c, 0, sizeof b->c);
        /* freed, not cleared: only seconds with completions hold histograms */
        bf_hist_destroy(&b->svc);
        bf_hist_destroy(&b->lat);
        b->second = -1;
        had = 1;
    }
    pthread_mutex_unlock(&w->lock);
    return had;
}

void bf_worker_collect_errors(bf_worker_t *w, bf_errtypes_t *dst)
{
    pthread_mutex_lock(&w->lock);
    bf_errtypes_merge(dst, &w->errs);
    bf_errtypes_reset(&w->errs);
    pthread_mutex_unlock(&w->lock);
}

int32_t bf_worker_open_second(bf_worker_t *w)
{
    pthread_mutex_lock(&w->lock);
    int32_t s = w->open_second;
    pthread_mutex_unlock(&w->lock);
    return s;
}

int32_t bf_worker_last_second(bf_worker_t *w)
{
    return atomic_load(&w->last_second);
}

static void set_fatal(bf_worker_t *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_fatal(bf_worker_t *w, const char *fmt, ...)
{
    if (atomic_load(&w->fatal_set))
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->fatal, sizeof w->fatal, fmt, ap);
    va_end(ap);
    atomic_store(&w->fatal_set, 1);
    atomic_store(&w->abort_flag, 1);
}

const char *bf_worker_fatal(bf_worker_t *w)
{
    return atomic_load(&w->fatal_set) ? w->fatal : "";
}

/* ---- responses ---------------------------------------------------------------------------- */

static size_t on_body(char *p, size_t size, size_t n, void *ud)
{
    slot *s = ud;
    size_t len = size * n;
    if (s->status == 0)
        curl_easy_getinfo(s->h, CURLINFO_RESPONSE_CODE, &s->status);
    if (s->head_len < sizeof s->head - 1) {
        size_t k = sizeof s->head - 1 - s->head_len;
        k = k < len ? k : len;
        memcpy(s->head + s->head_len, p, k);
        s->head_len += k;
        s->head[s->head_len] = '\0';
    }
    /* only a 2xx body is a bulk response; the judge stops reading one that is not */
    if (s->status >= 200 && s->status < 300) {
        uint64_t t0 = bf_clock_mono_us(); /* judge stage: once per chunk, not per item */
        bf_bulkresp_stream_feed(&s->judge, p, len);
        if (s->routed)
            bf_termscan_feed(&s->terms_scan, p, len);
        s->judge_us += bf_clock_mono_us() - t0;
    }
    return len;
}

/* The body goes to libcurl through a read callback, not CURLOPT_POSTFIELDS: when a reused
 * keep-alive connection dies after the body was written and before any answer, libcurl sends
 * the request again on a fresh connection by itself (lib/transfer.c Curl_retry_request), and
 * with CURLOPT_POSTFIELDS it rewinds without asking. Those documents may already be indexed:
 * sending them again would count them twice (or turn `create` into 409s). With a read callback
 * the rewind goes through on_seek, which refuses it, so the transfer ends with
 * CURLE_SEND_FAIL_REWIND and its documents count as unknown (bf_verdict). A resend before any
 * body byte was read (nothing of the body left) is harmless and allowed.
 * The memcpy below is the upload copy (about 9 % of the agent's CPU in template mode, issue
 * #28): CURLOPT_POSTFIELDS would not save it, libcurl copies a POSTFIELDS body into its upload
 * buffer too (7.88.1 lib/http.c readmoredata; 8.7 to 2026's lib/sendf.c cr_buf_read). A
 * streamed template body (read_streamed) has no such copy: it is rendered into that buffer. */
static size_t read_streamed(slot *s, char *buf, size_t cap);

static size_t on_read(char *buf, size_t size, size_t n, void *ud)
{
    slot *s = ud;
    if (s->streamed)
        return read_streamed(s, buf, size * n);
    if (s->gathered && !s->w->gzip) {
        size_t k = bf_gather_read(&s->gat, &s->gat_pos, buf, size * n);
        s->sent_off += k;
        return k;
    }
    const bf_buf_t *wire = s->w->gzip ? &s->gz : &s->body;
    size_t left = wire->len - s->sent_off;
    size_t k = size * n < left ? size * n : left;
    memcpy(buf, wire->data + s->sent_off, k);
    s->sent_off += k;
    return k;
}

/* A streamed body: the documents are rendered into libcurl's buffer as it asks for them (one
 * render call, so one clock reading, per call). No copy of the body but a document that did
 * not fit whole. */
static size_t read_streamed(slot *s, char *buf, size_t cap)
{
    bf_worker_t *w = s->w;
    uint64_t t0 = bf_clock_mono_us(); /* render stage: one reading per buffer, not per document */
    size_t got = 0;
    int rc = bf_tmpl_stream_read(&s->stream, buf, cap, &got);
    s->render_us += bf_clock_mono_us() - t0;
    if (rc != BF_OK) {
        set_fatal(w, "cell %s: could not render a bulk body (%s)", w->cfg.cell->id,
                  bf_strerror(rc));
        return CURL_READFUNC_ABORT;
    }
    if (w->open == s && s->stream.done == s->stream.ndocs) {
        w->open = NULL; /* the generator is free for the next body */
        w->open_ended = 1;
    } else if (w->open == s) {
        w->open_read_us = t0;
    }
    s->sent_off += got;
    size_t hex = 1;
    for (size_t k = got; k > 15; k >>= 4)
        hex++;
    if (got || !s->eof_framed)
        s->frame_bytes += got ? hex + 4 : 5;
    s->eof_framed |= got == 0;
    return got;
}

/* The open body's documents not rendered yet are rendered whole into its carry buffer, so
 * another body can start (or the ended transfer's documents stay where they were). */
static int spill_open(bf_worker_t *w, slot *s)
{
    if (w->open == s)
        w->open = NULL;
    uint64_t t0 = bf_clock_mono_us();
    int rc = bf_tmpl_stream_spill(&s->stream);
    s->render_us += bf_clock_mono_us() - t0; /* booked with s's answer (on_done) */
    if (rc != BF_OK)
        set_fatal(w, "cell %s: could not render a bulk body (%s)", w->cfg.cell->id,
                  bf_strerror(rc));
    return rc;
}

static int on_seek(void *ud, curl_off_t offset, int origin)
{
    slot *s = ud;
    if (origin == SEEK_SET && offset == 0 && s->sent_off == 0) {
        s->gat_pos = (bf_gather_pos_t){0, 0};
        return CURL_SEEKFUNC_OK;
    }
    s->resend_refused = 1;
    return CURL_SEEKFUNC_FAIL;
}

/* ---- requests ----------------------------------------------------------------------------- */

/* Compresses n bytes at p into out (replacing its contents) as one gzip member (RFC 1952)
 * with libdeflate's whole-buffer compressor: about twice zlib's speed at level 1 and a
 * slightly better ratio on bulk NDJSON (bench/gzip-cost.sh). A body is compressed in one call
 * once it is complete, so the other transfers do not move during that call (a few ms for a
 * body of MiBs; bench/RESULTS.md). Returns 0, BF_E_TOOBIG (over out's cap) or BF_E_IO. */
static int gzip_whole(bf_worker_t *w, bf_buf_t *out, const char *p, size_t n)
{
    bf_buf_reset(out);
    size_t bound = libdeflate_gzip_compress_bound(w->gzc, n);
    if (bf_buf_reserve(out, bound) != BF_OK)
        return BF_E_TOOBIG;
    size_t z = libdeflate_gzip_compress(w->gzc, p, n, out->data, out->cap - 1);
    if (z == 0)
        return BF_E_IO;
    out->len = z;
    return BF_OK;
}

/* Lets the transfers of the other connections move on while this thread builds a body, so a
 * body being built never shows up in another request's service time. Returns the time spent
 * (not the builder's processing time). */
static uint64_t io_turn(bf_worker_t *w)
{
    if (atomic_load(&w->inflight) == 0)
        return 0;
    uint64_t t0 = bf_clock_mono_us();
    int still = 0;
    curl_multi_perform(w->multi, &still);
    return bf_clock_mono_us() - t0;
}

/* Compresses s->body into s->gz (a retry's body). Returns 0 or sets the fatal reason. */
static int compress_body(bf_worker_t *w, slot *s)
{
    if (gzip_whole(w, &s->gz, s->body.data, s->body.len) != BF_OK) {
        set_fatal(w, "cell %s: could not gzip a %zu-byte body", w->cfg.cell->id, s->body.len);
        return BF_E_IO;
    }
    s->gz_valid = 1;
    return BF_OK;
}

/* target.auth.aws: signs this attempt's body as it goes on the wire (the gzip bytes when
 * compressed; signing workers never stream or gather, so the body is one buffer) and gives s's
 * handle the headers with the signature. Returns 0, or sets the fatal reason (no credentials). */
static int sign_slot(bf_worker_t *w, slot *s)
{
    const bf_buf_t *wire = w->gzip ? &s->gz : &s->body;
    struct curl_slist *h = NULL;
    for (const struct curl_slist *p = w->gzip ? w->hdr_gzip : w->hdr_plain; p; p = p->next)
        h = curl_slist_append(h, p->data);
    char *url = NULL;
    bf_diag_t d = {0};
    int rc =
        bf_aws_sign(w->cfg.cell->target, "POST", s->home_url, wire->data, wire->len, &h, &url, &d);
    if (rc != BF_OK) {
        curl_slist_free_all(h);
        set_fatal(w, "cell %s: cannot sign a bulk request: %s", w->cfg.cell->id, d.msg);
        return rc;
    }
    curl_easy_setopt(s->h, CURLOPT_HTTPHEADER, h);
    curl_slist_free_all(s->sig_hdr);
    s->sig_hdr = h;
    if (url) {
        curl_easy_setopt(s->h, CURLOPT_URL, url);
        free(s->sig_url);
        s->sig_url = url;
    }
    return BF_OK;
}

/* Puts slot s on the wire with its body (s->body, or s->gz already compressed). */
static void send_prepared(bf_worker_t *w, slot *s)
{
    const bf_buf_t *wire = w->gzip ? &s->gz : &s->body;
    s->wire_len = s->gathered && !w->gzip ? s->gat.bytes : wire->len;
    s->status = 0;
    s->head_len = 0;
    s->head[0] = '\0';
    if (s->item_class_cap < s->ndocs) {
        s->item_class = bf_realloc(s->item_class, s->ndocs);
        s->item_class_cap = s->ndocs;
    }
    bf_bulkresp_stream_init(&s->judge, s->ndocs, s->item_class);
    if (s->w->missing_fails)
        bf_bulkresp_stream_missing_fails(&s->judge);
    if (s->routed)
        bf_termscan_init(&s->terms_scan, s->terms, s->ndocs);
    s->sent_off = 0;
    s->frame_bytes = 0;
    s->eof_framed = 0;
    s->gat_pos = (bf_gather_pos_t){0, 0};
    s->resend_refused = 0;
    s->judge_us = 0;
    /* a streamed body's length is known once it is rendered: chunked transfer encoding */
    curl_easy_setopt(s->h, CURLOPT_POSTFIELDSIZE_LARGE,
                     s->streamed ? (curl_off_t)-1 : (curl_off_t)s->wire_len);
    if (w->sign && sign_slot(w, s) != BF_OK)
        return;
    pthread_mutex_lock(&w->lock);
    s->send_us = bf_clock_mono_us();
    int32_t sec = second_of(w, s->send_us);
    /* send lag (client-bound, issue #10 item 9): how long a free connection and a due request
     * waited for this thread to build, compress and hand it over */
    bf_counters_t *lc = &bucket_at(w, sec)->c;
    lc->sends++;
    lc->render_us += s->render_us;
    lc->compress_us += s->compress_us;
    s->render_us = s->compress_us = 0;
    if (s->ready_us != 0 && s->send_us > s->ready_us)
        lc->send_lag_us += s->send_us - s->ready_us;
    s->ready_us = 0;
    if (sec < w->open_second)
        w->open_second = sec;
    pthread_mutex_unlock(&w->lock);
    s->state = SLOT_BUSY;
    atomic_fetch_add(&w->inflight, 1);
    curl_multi_add_handle(w->multi, s->h);
}

/* Builds a fresh body of batch_size documents and sends it; intended_us is its due time.
 * The body is built slice_docs documents at a time (about SLICE_BYTES), with a turn of the
 * other transfers in between; with gzip the whole body is then compressed in one call. With
 * gzip and no retries the NDJSON is rendered into the thread's scratch buffer, so a connection
 * holds only the compressed body. */
static void send_routed(bf_worker_t *w, slot *s, uint64_t intended_us, uint64_t t0, uint64_t io_us,
                        uint32_t ndocs);

static void send_new(bf_worker_t *w, slot *s, uint64_t intended_us)
{
    const bf_cell_t *cell = w->cfg.cell;
    uint64_t t0 = bf_clock_mono_us(), io_us = 0;
    if (w->stream) {
        s->streamed = 1;
        s->gathered = 0;
        bf_tmpl_stream_begin(&s->stream, w->cfg.tmpl, w->gen, cell, cell->batch_size);
        w->open = s;
        w->open_us = w->open_read_us = t0;
        s->ndocs = cell->batch_size;
        s->payload_len = 0; /* known once rendered (on_done) */
        s->gz_valid = 0;
        s->retries = 0;
        s->connect_failures = 0;
        s->intended_us = intended_us;
        s->render_us = s->compress_us = 0;
        s->proc_us = bf_clock_mono_us() - t0;
        send_prepared(w, s);
        return;
    }
    bf_buf_t *dst = w->shared_render || w->cfg.routes ? &w->scratch : &s->body;
    bf_buf_reset(dst);
    s->streamed = 0; /* w->stream may have been turned off (request.transfer: auto, a 411) */
    s->gathered = w->gather;
    if (w->gather)
        bf_gather_reset(&s->gat);
    uint32_t batch = cell->batch_size, done = 0;
    size_t payload = 0;
    while (done < batch) {
        /* contiguous: taking a whole batch is a few pieces, no slices needed */
        uint32_t n = w->contig || batch - done < w->slice_docs ? batch - done : w->slice_docs;
        size_t from = w->gather ? s->gat.bytes : dst->len;
        int rc;
        if (w->gather || w->cfg.corpus) {
            uint32_t got = 0;
            if (w->contig)
                rc = bf_tmpl_take_corpus(w->cfg.corpus, &w->cursor, n, &s->gat, &got);
            else if (w->gather)
                rc = bf_tmpl_gather_corpus(w->cfg.tmpl, w->gen, cell, w->cfg.corpus, &w->cursor, n,
                                           done == 0, &s->gat, &got);
            else
                rc = bf_tmpl_render_corpus(w->cfg.tmpl, w->gen, cell, w->cfg.corpus, &w->cursor, n,
                                           done == 0, dst, &got);
            if (rc == BF_OK && got < n) {
                /* the end of this worker's corpus: send what there is, then no more */
                w->corpus_done = 1;
                bf_info("cell %s, thread %u: corpus slice of %zu documents read %u time%s; "
                        "this thread sends no more",
                        cell->id, w->cfg.thread_index, w->cursor.to - w->cursor.from,
                        w->cursor.passes_done, w->cursor.passes_done == 1 ? "" : "s");
                batch = done + got;
                n = got;
                if (batch == 0)
                    return;
            }
        } else {
            rc = done == 0 ? bf_tmpl_render_bulk(w->cfg.tmpl, w->gen, cell, n, dst)
                           : bf_tmpl_render_bulk_more(w->cfg.tmpl, w->gen, cell, n, dst);
        }
        if (rc == BF_E_RANGE) {
            set_fatal(w, "cell %s: a sequence variable with wrap: false has no values left for "
                      "this thread; widen its range or set wrap: true", cell->id);
            return;
        }
        size_t now = w->gather ? s->gat.bytes : dst->len;
        if (rc != BF_OK || payload + (now - from) > BF_MAX_BODY_BYTES) {
            set_fatal(w, "cell %s: a bulk body of %u documents exceeds %u bytes "
                      "(http.max_content_length); lower batch_size", cell->id, batch,
                      BF_MAX_BODY_BYTES);
            return;
        }
        done += n;
        payload += now - from;
        if (done < batch)
            io_us += io_turn(w);
    }
    if (w->cfg.routes) {
        send_routed(w, s, intended_us, t0, io_us, batch);
        return;
    }
    const char *zsrc = dst->data;
    size_t zlen = dst->len;
    if (w->gzip && w->gather) {
        /* contiguous: libdeflate reads the corpus's range itself; only a body of several
         * ranges (the slice wrapped, or a refused document) is copied first */
        if (s->gat.n == 1) {
            zsrc = s->gat.v[0].base + s->gat.v[0].off;
            zlen = s->gat.v[0].len;
        } else {
            if (bf_gather_flatten(&s->gat, &w->scratch) != BF_OK) {
                set_fatal(w,
                          "cell %s: a bulk body of %u documents exceeds %u bytes "
                          "(http.max_content_length); lower batch_size",
                          cell->id, batch, BF_MAX_BODY_BYTES);
                return;
            }
            zsrc = w->scratch.data;
            zlen = w->scratch.len;
        }
    }
    uint64_t t_z = w->gzip ? bf_clock_mono_us() : 0; /* render ends, compress begins */
    if (w->gzip && gzip_whole(w, &s->gz, zsrc, zlen) != BF_OK) {
        set_fatal(w, "cell %s: could not gzip a %zu-byte body", cell->id, payload);
        return;
    }
    s->gz_valid = w->gzip;
    s->ndocs = batch;
    s->payload_len = payload;
    s->retries = 0;
    s->connect_failures = 0;
    s->intended_us = intended_us;
    uint64_t t_e = bf_clock_mono_us();
    s->proc_us = t_e - t0 - io_us;
    s->render_us = (w->gzip ? t_z : t_e) - t0 - io_us;
    s->compress_us = w->gzip ? t_e - t_z : 0;
    send_prepared(w, s);
}

/* <base>/_bulk with the request's query (filter_path; request.pipeline: every document of
 * the request goes through it). Caller frees. */
static char *bulk_url(const char *base, const bf_request_spec_t *rq, int routed)
{
    /* routing: the items' _primary_term must survive the filter (a stale table shows there) */
    int add_term = routed && rq->filter_path && strstr(rq->filter_path, "_primary_term") == NULL;
    return bf_asprintf("%s/_bulk%s%s%s%s%s%s", base, rq->filter_path || rq->pipeline ? "?" : "",
                       rq->filter_path ? "filter_path=" : "",
                       rq->filter_path ? rq->filter_path : "",
                       add_term ? ",items.*._primary_term" : "",
                       rq->pipeline ? (rq->filter_path ? "&pipeline=" : "pipeline=") : "",
                       rq->pipeline ? rq->pipeline : "");
}

/* The node URLs of snapshot rt (rebuilt when the snapshot changes). */
static void use_table(bf_worker_t *w, const bf_routetable_t *rt)
{
    const bf_request_spec_t *rq = bf_scenario_request(w->cfg.sc);
    for (size_t i = 0; i < w->nnode_urls; i++)
        free(w->node_urls[i]);
    w->node_urls = bf_realloc(w->node_urls, (rt->nnodes ? rt->nnodes : 1) * sizeof *w->node_urls);
    w->nnode_urls = rt->nnodes;
    for (size_t i = 0; i < rt->nnodes; i++)
        w->node_urls[i] = rt->nodes[i].url == NULL ? NULL : bulk_url(rt->nodes[i].url, rq, 1);
    if (w->resolve) {
        w->old_resolve = bf_realloc(w->old_resolve, (w->nold_resolve + 1) * sizeof *w->old_resolve);
        w->old_resolve[w->nold_resolve++] = w->resolve;
        w->resolve = NULL;
    }
    for (size_t i = 0; i < rt->nnodes; i++)
        if (rt->nodes[i].resolve)
            w->resolve = curl_slist_append(w->resolve, rt->nodes[i].resolve);
    w->rt = rt;
}

/* routing_mode node|shard: the bulk just rendered into w->scratch is split by primary node or
 * shard and each part is sent at once from a slot of s's group, to its node's address. */
static void send_routed(bf_worker_t *w, slot *s, uint64_t intended_us, uint64_t t0, uint64_t io_us,
                        uint32_t ndocs)
{
    const bf_cell_t *cell = w->cfg.cell;
    bf_rt_holder_t *h = w->cfg.routes;
    const bf_routetable_t *rt = atomic_load(&h->current);
    uint64_t moved = 0;
    if (rt != w->rt) {
        if (w->rt)
            moved = bf_reshuffle_moved(&w->rs, w->rt, rt);
        use_table(w, rt);
    }
    bf_diag_t d = {0};
    /* ndocs: the batch size, or fewer in the last request of a finite corpus */
    if (bf_reshuffle_split(&w->rs, rt, w->scratch.data, w->scratch.len, ndocs, &d) != BF_OK) {
        set_fatal(w, "cell %s: %s", cell->id, d.msg);
        return;
    }
    slot *first = &w->slots[s->group * w->group_size];
    uint64_t t_z = bf_clock_mono_us(); /* rendered and split: the parts' gzip from here */
    first->render_us = t_z - t0 - io_us;
    for (uint32_t j = 0; j < w->rs.nparts; j++) {
        bf_reshuffle_part_t *pt = &w->rs.parts[j];
        slot *t = &first[j];
        bf_buf_t tmp = t->body; /* the part's buffer becomes the slot's body, no copy */
        t->body = pt->body;
        pt->body = tmp;
        bf_buf_reset(&pt->body);
        const char *url = pt->node == BF_RESHUFFLE_FALLBACK ? t->home_url
                                                            : w->node_urls[pt->node];
        curl_easy_setopt(t->h, CURLOPT_URL, url ? url : t->home_url);
        /* a node published by name (https): connect to its published address, check the name */
        curl_easy_setopt(t->h, CURLOPT_RESOLVE, w->resolve);
        if (w->gzip && gzip_whole(w, &t->gz, t->body.data, t->body.len) != BF_OK) {
            set_fatal(w, "cell %s: could not gzip a %zu-byte body", cell->id, t->body.len);
            return;
        }
        t->gz_valid = w->gzip;
        t->ndocs = pt->ndocs;
        if (t->gshard_cap < pt->ndocs) {
            t->gshard = bf_realloc(t->gshard, pt->ndocs * sizeof *t->gshard);
            t->terms = bf_realloc(t->terms, pt->ndocs * sizeof *t->terms);
            t->gshard_cap = pt->ndocs;
        }
        if (pt->ndocs)
            memcpy(t->gshard, pt->gshard, pt->ndocs * sizeof *t->gshard);
        t->routed = pt->ndocs > 0;
        t->payload_len = t->body.len;
        t->retries = 0;
        t->connect_failures = 0;
        t->intended_us = intended_us;
        t->proc_us = j == 0 ? bf_clock_mono_us() - t0 - io_us : 0;
    }
    if (w->gzip)
        first->compress_us = bf_clock_mono_us() - t_z;
    pthread_mutex_lock(&w->lock);
    bucket *b = bucket_now(w);
    b->c.bulks_split++;
    b->c.subbulks += w->rs.nparts;
    b->c.docs_unrouted += w->rs.unrouted;
    b->c.docs_misrouted += moved;
    pthread_mutex_unlock(&w->lock);
    for (uint32_t j = 0; j < w->rs.nparts; j++)
        send_prepared(w, &first[j]);
}

/* Keeps only the documents whose item was rejected (429) in s->body, for a retry. Bulk NDJSON
 * has exactly two lines per document (action + source) as bf_template renders it. */
static uint32_t keep_rejected(bf_worker_t *w, slot *s)
{
    if (s->gathered) { /* the retry is built from one buffer: rare, so the copy is fine */
        if (bf_gather_flatten(&s->gat, &s->body) != BF_OK)
            return 0;
        s->gathered = 0;
    }
    bf_buf_t *out = &w->scratch;
    bf_buf_reset(out);
    const char *p = s->body.data, *end = s->body.data + s->body.len;
    uint32_t kept = 0;
    for (uint32_t i = 0; i < s->ndocs && p < end; i++) {
        const char *l1 = memchr(p, '\n', (size_t)(end - p));
        if (l1 == NULL)
            break;
        const char *l2 = memchr(l1 + 1, '\n', (size_t)(end - l1 - 1));
        if (l2 == NULL)
            break;
        if (s->item_class[i] == BF_ITEM_REJECTED) {
            bf_buf_append(out, p, (size_t)(l2 + 1 - p));
            if (s->routed)
                s->gshard[kept] = s->gshard[i]; /* kept <= i: in place */
            kept++;
        }
        p = l2 + 1;
    }
    bf_buf_t tmp = s->body;
    s->body = *out;
    *out = tmp;
    s->ndocs = kept;
    s->payload_len = s->body.len;
    s->gz_valid = 0;
    return kept;
}

/* Docs of a slot whose retry will not happen (load over, or aborted) end as rejected: those
 * waiting for their retry's back-off, and those of a retry whose connect failed (they were
 * sent, and rejected, by an earlier attempt: without this they were sent and never got a
 * verdict). A first attempt waiting to connect again never left: nothing was counted. */
static void give_up_retry(bf_worker_t *w, slot *s)
{
    if (s->state == SLOT_RETRY_WAIT || (s->state == SLOT_CONNECT_WAIT && s->retries > 0)) {
        pthread_mutex_lock(&w->lock);
        bucket_now(w)->c.docs_rejected += s->ndocs;
        pthread_mutex_unlock(&w->lock);
    }
    s->state = SLOT_IDLE;
}

static void warn_once(bf_worker_t *w, unsigned kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void warn_once(bf_worker_t *w, unsigned kind, const char *fmt, ...)
{
    if (w->warned & kind)
        return;
    w->warned |= kind;
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    bf_warn("cell %s, thread %u: %s (further ones are counted, not logged)", w->cfg.cell->id,
            w->cfg.thread_index, msg);
}

/* routing: an item answered with a higher primary term than the table has for its shard
 * (a replica was promoted since the table was read): the refresher re-reads it at once
 * rather than at its next tick. Logged once per table. */
static void check_terms(bf_worker_t *w, slot *s)
{
    const bf_routetable_t *rt = atomic_load(&w->cfg.routes->current);
    long k = bf_reshuffle_stale_item(rt, s->gshard, s->terms, s->ndocs);
    if (k < 0)
        return;
    atomic_store(&w->cfg.routes->stale, 1);
    if (w->stale_logged == rt)
        return;
    w->stale_logged = rt;
    const char *index = "?";
    uint32_t shard = 0;
    uint64_t had = bf_routetable_gshard_term(rt, s->gshard[k], &index, &shard);
    bf_info("cell %s: routing table stale: a response carried primary term %llu for %s shard "
            "%u, the table has %llu (a replica was promoted); re-reading it now",
            w->cfg.cell->id, (unsigned long long)s->terms[k], index, shard,
            (unsigned long long)had);
}

/* Adds the request counter v says into c (the documents go through spread_docs). */
/* request.transfer auto: a chunked body answered 411 was refused for its framing before any
 * document was read. Returns 1 then, with v emptied: neither the request nor its documents
 * count (they were not indexed, and are not resent); switch_to_length says so once. */
static int length_refused(const bf_worker_t *w, const slot *s, bf_verdict_t *v)
{
    if (!(v->fatal == BF_FATAL_LENGTH && s->streamed && w->transfer_auto))
        return 0;
    memset(&v->docs, 0, sizeof v->docs);
    v->typed = 0;
    v->unknown = 0;
    v->sent = 0;
    v->latency = 0;
    v->warn = BF_WARN_NONE;
    v->fatal = BF_FATAL_NONE;
    v->next = BF_NEXT_DONE;
    return 1;
}

/* From now on every body of this thread goes whole, with its Content-Length. */
static void switch_to_length(bf_worker_t *w)
{
    w->stream = 0;
    if (w->open)
        spill_open(w, w->open); /* the generator is free for whole bodies */
    bf_warn("cell %s, thread %u: HTTP 411 Length Required to a chunked bulk body: this thread now "
            "sends every body with its Content-Length (request.transfer: auto); the documents "
            "of a request refused so were not indexed and are not counted",
            w->cfg.cell->id, w->cfg.thread_index);
}

static void count_verdict(bf_counters_t *c, const bf_verdict_t *v, long status)
{
    switch (v->req) {
    case BF_REQ_OK: c->req_ok++; break;
    case BF_REQ_PARTIAL: c->req_partial++; break;
    case BF_REQ_HTTP_ERROR:
        c->http_status[status > 0 && status < BF_HTTP_STATUS_MAX ? status : 0]++;
        break;
    case BF_REQ_CONNECT: c->req_connect_error++; break;
    case BF_REQ_TIMEOUT: c->req_timeout++; break;
    case BF_REQ_RESET: c->req_reset++; break;
    case BF_REQ_BAD: c->req_bad_response++; break;
    }
}

/* Where n documents of unknown outcome came from (bf_verdict_unknown_cause): booked in the
 * second the request ended, beside docs_unknown (pro rata), so a row can say why its documents
 * are unknown (docs/results.md, "What the numbers mean", unknown). */
static void book_unknown_cause(bf_counters_t *c, enum bf_req req, uint64_t n)
{
    switch (bf_verdict_unknown_cause(req)) {
    case BF_UNKNOWN_TIMEOUT: c->docs_unknown_timeout += n; break;
    case BF_UNKNOWN_RESET: c->docs_unknown_reset += n; break;
    case BF_UNKNOWN_BAD: c->docs_unknown_bad += n; break;
    case BF_UNKNOWN_HTTP: c->docs_unknown_http += n; break;
    }
}

static void update_open_second(bf_worker_t *w)
{
    int32_t open = INT32_MAX;
    for (uint32_t i = 0; i < w->nslots; i++) {
        const slot *s = &w->slots[i];
        if (s->state == SLOT_BUSY) {
            int32_t sec = second_of(w, s->send_us);
            if (sec < open)
                open = sec;
        }
    }
    w->open_second = open;
}

/* A request finished: gathers the facts, asks bf_verdict_judge what they count as, and
 * executes the verdict (counters, log, fail the cell, send again). */
static void on_done(bf_worker_t *w, slot *s, CURLcode cc)
{
    curl_multi_remove_handle(w->multi, s->h);
    atomic_fetch_sub(&w->inflight, 1);
    s->state = SLOT_IDLE;
    uint64_t t0 = bf_clock_mono_us();
    s->ready_us = t0; /* free from now (a retry or resend: from its back-off's end, below) */
    const bf_cell_t *cell = w->cfg.cell;
    const bf_request_spec_t *rq = bf_scenario_request(w->cfg.sc);

    curl_off_t total_us = 0, up = 0;
    long status = 0, connects = 0, request_bytes = 0;
    curl_easy_getinfo(s->h, CURLINFO_TOTAL_TIME_T, &total_us);
    curl_easy_getinfo(s->h, CURLINFO_SIZE_UPLOAD_T, &up);
    curl_easy_getinfo(s->h, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_getinfo(s->h, CURLINFO_NUM_CONNECTS, &connects);
    curl_easy_getinfo(s->h, CURLINFO_REQUEST_SIZE, &request_bytes);
    if (s->streamed) {
        /* a transfer that ended before its body was read whole: the rest is rendered now, so
         * the next body starts with the same document, and a resend (nothing was sent) reads
         * the same bytes */
        if (s->stream.done < s->stream.ndocs)
            spill_open(w, s);
        s->payload_len = s->wire_len = bf_tmpl_stream_total(&s->stream);
    }

    bf_verdict_in_t in;
    memset(&in, 0, sizeof in);
    char first_error[256] = "", item_type[BF_BULKRESP_TYPE_CAP] = "";
    char etype[128] = "", ereason[400] = "";
    /* CURLINFO_REQUEST_SIZE and SIZE_UPLOAD describe the last attempt only; sent_off counts
     * the body bytes on_read handed to libcurl over every attempt of this request (libcurl
     * retries a dead reused connection by itself; when that retry cannot connect, the first
     * attempt's body may still have been indexed) */
    in.xfer = bf_verdict_xfer((int)cc, (uint64_t)request_bytes + (uint64_t)up + s->sent_off);
    in.status = in.xfer == BF_XFER_RESPONSE ? status : 0;
    in.ndocs = s->ndocs;
    in.item_type = item_type;
    in.error_type = etype;
    if (in.xfer == BF_XFER_RESPONSE && status >= 200 && status < 300) {
        in.parsed = bf_bulkresp_stream_finish(&s->judge, &in.items, first_error,
                                              sizeof first_error) == BF_OK;
        if (in.parsed)
            in.items_one_type = bf_bulkresp_stream_first_type(&s->judge, item_type,
                                                              sizeof item_type);
        if (in.parsed && s->routed && w->cfg.routes)
            check_terms(w, s);
        /* a 2xx that is no bulk response fails the cell when it is the thread's first answer
         * or one of BF_NOT_BULK_STREAK in a row (bf_verdict.h) */
        in.bulk_seen = w->bulk_seen;
        w->not_bulk_streak = in.parsed ? 0 : w->not_bulk_streak + 1;
        in.not_bulk_streak = w->not_bulk_streak;
        if (in.parsed)
            w->bulk_seen = 1;
    } else if (in.xfer == BF_XFER_RESPONSE) {
        bf_verdict_error_body(s->head, s->head_len, etype, sizeof etype, ereason,
                              sizeof ereason);
    }
    uint64_t now = bf_clock_mono_us();
    uint64_t judged_us = s->judge_us + (now - t0); /* the parse as it streamed in, and here */
    s->judge_us = 0;
    in.retry_left = s->retries < rq->retry_429_max &&
                    now < w->cfg.start_mono_us + w->cfg.load_ms * 1000u;
    bf_verdict_t v;
    bf_verdict_judge(&in, &v);
    int length_switch = length_refused(w, s, &v);

    pthread_mutex_lock(&w->lock);
    bucket *b = bucket_now(w);
    bf_counters_t *c = &b->c;
    c->connections_opened += (uint64_t)connects;
    c->judge_us += judged_us;
    c->render_us += s->render_us; /* a streamed body's, rendered while it was sent */
    s->render_us = 0;
    if (!length_switch) /* a framing refusal told apart: said in the log, not an error */
        count_verdict(c, &v, status);
    c->docs_429 += v.rejections;
    if (v.typed > 0 && status >= 200 && status < 300) {
        bf_errtypes_merge(&w->errs, bf_bulkresp_stream_errtypes(&s->judge));
    } else if (v.typed > 0) {
        char st_type[32];
        snprintf(st_type, sizeof st_type, "http_%ld", status);
        bf_errtypes_add(&w->errs, etype[0] ? etype : st_type, ereason, v.typed);
    }
    if (v.latency) {
        uint64_t svc_us = (uint64_t)total_us;
        record_hist(&b->svc, svc_us);
        uint64_t lat_us = now > s->intended_us ? now - s->intended_us : 0;
        record_hist(&b->lat, lat_us > svc_us ? lat_us : svc_us);
        c->processing_us += s->proc_us + (bf_clock_mono_us() - t0);
    }
    if (v.sent) {
        /* wire = the bulk body as it went on the network (compressed with gzip), counted
         * exactly by curl; compared with bytes_payload it shows what gzip saved. Headers and
         * responses are not included. */
        uint64_t sp[SP_N] = {0};
        sp[s->retries ? SP_RETRIED : SP_SENT] = s->ndocs;
        sp[SP_OK] = v.docs.ok;
        sp[SP_REJECTED] = v.docs.rejected;
        sp[SP_CONFLICT] = v.docs.conflict;
        sp[SP_MAPPING] = v.docs.mapping;
        sp[SP_4XX] = v.docs.failed_4xx;
        sp[SP_5XX] = v.docs.failed_5xx;
        sp[SP_UNKNOWN] = v.unknown;
        sp[SP_PAYLOAD] = s->payload_len;
        /* a streamed body went chunked: its framing is no more the body than the headers */
        sp[SP_WIRE] = (uint64_t)up > s->frame_bytes ? (uint64_t)up - s->frame_bytes : 0;
        spread_docs(w, s->send_us, t0, sp);
        book_unknown_cause(c, v.req, v.unknown);
    }
    update_open_second(w);
    pthread_mutex_unlock(&w->lock);

    if (length_switch && w->stream)
        switch_to_length(w);
    /* the message's context only when there is a message to write: the Content-Type and
     * size lookups are not for every answer */
    int fatal = v.fatal != BF_FATAL_NONE;
    if (fatal || (v.warn != BF_WARN_NONE && !(w->warned & v.warn))) {
        const char *ctype = NULL;
        curl_off_t down = 0;
        curl_easy_getinfo(s->h, CURLINFO_CONTENT_TYPE, &ctype);
        curl_easy_getinfo(s->h, CURLINFO_SIZE_DOWNLOAD_T, &down);
        bf_verdict_ctx_t ctx = {
            .cell_id = cell->id,
            .batch_size = cell->batch_size,
            .payload_bytes = s->payload_len,
            .wire_bytes = s->wire_len,
            .error_reason = ereason,
            .first_error = first_error,
            .transport = s->resend_refused ? "the connection died after the body was sent, "
                                             "without an answer (libcurl's own resend refused)"
                                           : curl_easy_strerror(cc),
            .total_s = (double)total_us / 1e6,
            .content_type = ctype ? ctype : "",
            .head = s->head,
            .head_len = s->head_len,
            .body_bytes = (uint64_t)down,
            .chunked = s->streamed,
        };
        char msg[768];
        if (fatal)
            set_fatal(w, "%s", bf_verdict_describe(&in, &v, &ctx, msg, sizeof msg));
        else
            warn_once(w, v.warn, "%s", bf_verdict_describe(&in, &v, &ctx, msg, sizeof msg));
    }

    switch (v.next) {
    case BF_NEXT_DONE:
        s->connect_failures = 0;
        break;
    case BF_NEXT_RESEND: {
        /* nothing was sent: the same body again after a back-off */
        uint64_t backoff = CONNECT_BACKOFF_MIN_US << (s->connect_failures < 5 ? s->connect_failures
                                                                               : 5);
        s->connect_failures++;
        if (backoff > CONNECT_BACKOFF_MAX_US)
            backoff = CONNECT_BACKOFF_MAX_US;
        s->retry_due_us = t0 + backoff;
        s->ready_us = s->retry_due_us;
        s->state = SLOT_CONNECT_WAIT;
        if (w->cfg.routes) { /* a learned node went away: new table, and this body goes to
                                target.hosts */
            atomic_store(&w->cfg.routes->stale, 1);
            curl_easy_setopt(s->h, CURLOPT_URL, s->home_url);
        }
        break;
    }
    case BF_NEXT_RETRY_WHOLE:
    case BF_NEXT_RETRY_ITEMS: {
        s->connect_failures = 0;
        /* the rejected documents are sent again after a back-off; if that cannot happen
         * (the cell is being aborted), their verdict is rejected now */
        uint32_t again = atomic_load(&w->abort_flag) ? 0
                         : v.next == BF_NEXT_RETRY_WHOLE ? s->ndocs
                                                         : keep_rejected(w, s);
        if (again == 0) {
            pthread_mutex_lock(&w->lock);
            bucket_now(w)->c.docs_rejected += v.retry;
            pthread_mutex_unlock(&w->lock);
            break;
        }
        s->retries++;
        s->retry_due_us = bf_clock_mono_us() + (rq->retry_backoff_ms * 1000u << (s->retries - 1));
        s->ready_us = s->retry_due_us;
        s->state = SLOT_RETRY_WAIT;
        break;
    }
    }
}

/* ---- the loop ----------------------------------------------------------------------------- */

#define BUSY_BOOK_US 10000u /* busy time is booked once this much has gathered (or at a poll) */

/* The thread was busy (not waiting for the network in curl_multi_poll) since *from: booked
 * into the second now, which the sampler has not collected yet, once BUSY_BOOK_US gathered or
 * when `force` (before a poll), so a thread that never polls (always a completion to handle)
 * is booked too; a stretch that straddles a second boundary goes whole into the later second
 * (at most BUSY_BOOK_US or one turn of the loop off). *from moves to now when booked. */
static void book_busy(bf_worker_t *w, uint64_t *from, uint64_t now, int force)
{
    if (now <= *from || (!force && now - *from < BUSY_BOOK_US))
        return;
    pthread_mutex_lock(&w->lock);
    bucket_now(w)->c.busy_us_max += now - *from;
    pthread_mutex_unlock(&w->lock);
    *from = now;
}

static void abandon_all(bf_worker_t *w)
{
    for (uint32_t i = 0; i < w->nslots; i++) {
        slot *s = &w->slots[i];
        if (s->state == SLOT_RETRY_WAIT || s->state == SLOT_CONNECT_WAIT) {
            give_up_retry(w, s);
            continue;
        }
        if (s->state != SLOT_BUSY)
            continue;
        curl_multi_remove_handle(w->multi, s->h);
        atomic_fetch_sub(&w->inflight, 1);
        s->state = SLOT_IDLE;
        pthread_mutex_lock(&w->lock);
        uint64_t sp[SP_N] = {0};
        sp[s->retries ? SP_RETRIED : SP_SENT] = s->ndocs;
        sp[SP_UNKNOWN] = s->ndocs;
        sp[SP_PAYLOAD] = s->payload_len;
        spread_docs(w, s->send_us, bf_clock_mono_us(), sp);
        bf_counters_t *c = &bucket_now(w)->c;
        c->req_abandoned++;
        c->docs_unknown_abandoned += s->ndocs;
        update_open_second(w);
        pthread_mutex_unlock(&w->lock);
    }
}

/* Streamed bodies: 1 when a new body may start now (no body is being rendered). A body open
 * for OPEN_WAIT_US, or not read by libcurl for OPEN_STALL_US (its connection is slow), is
 * spilled to make way; *wake_us gets when that will be, if sooner. */
static int may_start(bf_worker_t *w, uint64_t now, uint64_t *wake_us)
{
    if (w->open == NULL)
        return 1;
    /* open_us and read_us may be later than the loop's now */
    uint64_t due = w->open_us + OPEN_WAIT_US, stall = w->open_read_us + OPEN_STALL_US;
    if (stall < due)
        due = stall;
    if (now >= due)
        return spill_open(w, w->open) == BF_OK;
    if (due < *wake_us)
        *wake_us = due;
    return 0;
}

/* A group with every part idle (all sub-bulks answered, none waiting for a retry). */
static int group_idle(const bf_worker_t *w, uint32_t g)
{
    for (uint32_t j = 0; j < w->group_size; j++)
        if (w->slots[g * w->group_size + j].state != SLOT_IDLE)
            return 0;
    return 1;
}

/* The first slot of an idle group (routing), or an idle slot; NULL if none. */
static slot *free_slot(bf_worker_t *w)
{
    for (uint32_t g = 0; g < w->cfg.connections; g++)
        if (group_idle(w, g))
            return &w->slots[g * w->group_size];
    return NULL;
}

static void *run(void *arg)
{
    bf_worker_t *w = arg;
    const bf_worker_cfg_t *cfg = &w->cfg;
    uint64_t start = cfg->start_mono_us;
    uint64_t load_end = start + cfg->load_ms * 1000u;
    uint64_t timeout_us = bf_scenario_request(cfg->sc)->timeout_ms * 1000u;
    uint64_t hard_end = load_end + timeout_us + 2000000u;
    double interval_us = cfg->target_rate > 0 ? 1e6 * cfg->cell->batch_size / cfg->target_rate : 0;
    double next_due = (double)start;

    uint64_t now = bf_clock_mono_us();
    while (now < start && !atomic_load(&w->abort_flag)) {
        uint64_t left = start - now;
        bf_clock_sleep_us(left < 50000 ? left : 50000);
        now = bf_clock_mono_us();
    }
    for (uint32_t i = 0; i < w->nslots; i++)
        w->slots[i].ready_us = start;
    uint64_t busy_from = bf_clock_mono_us(); /* this thread is busy from here to its next poll */

    for (;;) {
        now = bf_clock_mono_us();
        book_busy(w, &busy_from, now, 0);
        if (atomic_load(&w->abort_flag)) {
            abandon_all(w);
            break;
        }
        int loading = now < load_end;
        uint64_t wake_us = now + IDLE_POLL_MS * 1000u;
        /* back-offs: rejected documents and bodies whose connection failed; no request
         * starts after the load time */
        for (uint32_t i = 0; i < w->nslots; i++) {
            slot *s = &w->slots[i];
            if (s->state != SLOT_RETRY_WAIT && s->state != SLOT_CONNECT_WAIT)
                continue;
            if (!loading) {
                give_up_retry(w, s);
            } else if (now >= s->retry_due_us) {
                if (w->gzip && !s->gz_valid) {
                    uint64_t t0 = bf_clock_mono_us();
                    if (compress_body(w, s) != BF_OK)
                        break;
                    s->proc_us = s->compress_us = bf_clock_mono_us() - t0;
                } else {
                    s->proc_us = 0;
                }
                send_prepared(w, s);
            } else if (s->retry_due_us < wake_us) {
                wake_us = s->retry_due_us;
            }
        }
        /* new bulk requests: during the load time, while the corpus (if any) has documents */
        int feeding = loading && !w->corpus_done;
        if (feeding && interval_us == 0) {
            for (uint32_t g = 0;
                 g < cfg->connections && !atomic_load(&w->abort_flag) && !w->corpus_done; g++)
                if (group_idle(w, g) && may_start(w, now, &wake_us))
                    send_new(w, &w->slots[g * w->group_size], bf_clock_mono_us());
        } else if (feeding) {
            int blocked = 0;
            while (next_due <= (double)now && next_due < (double)load_end &&
                   !atomic_load(&w->abort_flag) && !w->corpus_done) {
                slot *s = free_slot(w);
                if (s == NULL) {
                    w->last_blocked_us = now;
                    blocked = 1;
                    break;
                }
                if (!may_start(w, now, &wake_us)) {
                    blocked = 1; /* the open body's last document wakes the loop */
                    break;
                }
                uint64_t due = (uint64_t)next_due;
                uint64_t t = bf_clock_mono_us();
                if (s->ready_us < due) /* not before it was due */
                    s->ready_us = due;
                if (t - due > LATE_US || w->last_blocked_us >= due) {
                    pthread_mutex_lock(&w->lock);
                    bucket *b = bucket_now(w);
                    if (t - due > LATE_US)
                        b->c.rate_behind++;
                    if (w->last_blocked_us >= due)
                        b->c.conn_wait++;
                    pthread_mutex_unlock(&w->lock);
                }
                send_new(w, s, due);
                next_due += interval_us;
            }
            /* behind with every connection busy: the next completion wakes the loop */
            if (!blocked && next_due < (double)load_end && (uint64_t)next_due < wake_us)
                wake_us = next_due > (double)now ? (uint64_t)next_due : now;
        }
        int still = 0;
        w->open_ended = 0;
        curl_multi_perform(w->multi, &still);
        CURLMsg *m;
        int left, completed = 0;
        while ((m = curl_multi_info_read(w->multi, &left)) != NULL) {
            if (m->msg != CURLMSG_DONE)
                continue;
            slot *s = NULL;
            curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&s);
            on_done(w, s, m->data.result);
            completed = 1;
        }
        now = bf_clock_mono_us();
        /* a slot that completed is refilled before anything waits: closed loop at once, open
         * loop when a request is due or overdue (regression: an overdue request waited up to
         * IDLE_POLL_MS after a completion freed a connection, so the schedule never caught up
         * after a stall) */
        if ((completed || w->open_ended) && now < load_end && !w->corpus_done &&
            (interval_us == 0 || next_due <= (double)now))
            continue;
        int busy = 0;
        for (uint32_t i = 0; i < w->nslots; i++)
            busy |= w->slots[i].state != SLOT_IDLE;
        if (!busy && (now >= load_end || w->corpus_done)) {
            if (w->corpus_done)
                w->corpus_end_us = now; /* the end of the corpus, as the row's window ends */
            break;
        }
        if (now >= hard_end) {
            abandon_all(w);
            break;
        }
        if (now < load_end && load_end < wake_us)
            wake_us = load_end;
        if (hard_end < wake_us)
            wake_us = hard_end;
        if (wake_us > now) {
            uint64_t wait_us = wake_us - now;
            book_busy(w, &busy_from, now, 1);
            curl_multi_poll(w->multi, NULL, 0, (int)((wait_us + 999) / 1000), NULL);
            busy_from = bf_clock_mono_us();
        }
    }
    atomic_store(&w->finished, 1);
    return NULL;
}

/* ---- lifecycle ---------------------------------------------------------------------------- */

bf_worker_t *bf_worker_new(const bf_worker_cfg_t *cfg, bf_diag_t *diag)
{
    bf_worker_t *w = bf_calloc(1, sizeof *w);
    w->cfg = *cfg;
    if (w->cfg.connections == 0)
        w->cfg.connections = 1;
    atomic_init(&w->last_second, -1);
    pthread_mutex_init(&w->lock, NULL);
    /* a second stays open while a request sent in it is in flight: at most request.timeout
     * (then hard_end abandons it), plus the sampler's own lag */
    w->nring = (uint32_t)(bf_scenario_request(cfg->sc)->timeout_ms / 1000u) + RING + 4;
    w->ring = bf_calloc(w->nring, sizeof *w->ring);
    for (uint32_t i = 0; i < w->nring; i++)
        w->ring[i].second = -1;
    w->open_second = INT32_MAX;
    const bf_target_t *t = cfg->cell->target; /* the cell's host set (matrix target axis) */
    const bf_request_spec_t *rq = bf_scenario_request(cfg->sc);
    w->gzip = cfg->cell->compression == BF_COMPRESS_GZIP;
    w->retry_max = rq->retry_429_max;
    w->missing_fails = cfg->cell->action == BF_ACTION_DELETE &&
                       bf_scenario_document(cfg->sc)->delete_missing_fails;
    w->shared_render = w->gzip && w->retry_max == 0;
    /* streamed bodies: the worst case of every document must fit the body's cap */
    w->stream = !w->gzip && w->retry_max == 0 && cfg->routes == NULL && cfg->corpus == NULL;
    w->group_size = 1;
    if (cfg->routes) {
        /* a split has at most one part per node (per shard), plus the unrouted fallback */
        const bf_routetable_t *rt = atomic_load(&cfg->routes->current);
        size_t parts = 0;
        if (cfg->cell->routing_mode == BF_ROUTE_SHARD)
            for (size_t i = 0; i < rt->nindices; i++)
                parts += rt->indices[i].routing.shards;
        else
            parts = rt->nnodes;
        w->group_size = (uint32_t)(parts + 1 < cfg->cell->batch_size + 1 ? parts + 1
                                                                         : cfg->cell->batch_size + 1);
        if (w->group_size < 2)
            w->group_size = 2;
        char prefix[40];
        /* unique across the fleet (stream) and runs (seed): the ids the agent adds */
        snprintf(prefix, sizeof prefix, "%llx-%x-", (unsigned long long)(cfg->part.seed & 0xffffffffffull),
                 cfg->part.stream_index);
        bf_reshuffle_init(&w->rs, cfg->cell->routing_mode, w->group_size, prefix);
        w->shared_render = 0; /* every sub-bulk keeps its own body */
    }
    /* the corpus fast path: a plain body is gathered from the corpus's lines, not copied (one
     * copy of every byte fewer: libcurl's into its upload buffer is the only one left) */
    w->contig = cfg->corpus != NULL && cfg->contiguous && cfg->routes == NULL;
    w->gather = cfg->corpus != NULL && (!w->gzip || w->contig) && cfg->routes == NULL;
    w->transfer_auto = rq->transfer == BF_TRANSFER_AUTO;
    if (rq->transfer == BF_TRANSFER_LENGTH)
        w->stream = 0; /* every body whole, with its Content-Length */
    w->sign = t->auth == BF_AUTH_AWS;
    if (w->sign) {
        /* the signature covers the body's hash, needed before its first byte: one whole
         * buffer per body, sent with its Content-Length */
        w->stream = 0;
        w->gather = 0;
        w->contig = 0;
        if (cfg->routes) {
            bf_diag_set(diag, BF_E_INVAL,
                        "cell %s: request.routing_mode %s cannot be used with target.auth.aws: "
                        "Amazon OpenSearch Service does not let clients address its nodes; "
                        "use routing_mode: none",
                        cfg->cell->id,
                        cfg->cell->routing_mode == BF_ROUTE_SHARD ? "shard" : "node");
            bf_worker_destroy(&w);
            return NULL;
        }
    }
    w->nslots = w->cfg.connections * w->group_size;
    w->multi = curl_multi_init();
    /* routing: one group may send several sub-bulks to one node (shard mode) */
    curl_multi_setopt(w->multi, CURLMOPT_MAX_HOST_CONNECTIONS,
                      (long)(cfg->routes ? w->nslots : w->cfg.connections));
    w->gen = bf_gen_new(cfg->tmpl, &cfg->part);
    if (w->stream) {
        size_t room = bf_tmpl_stream_room(cfg->tmpl, w->gen, cfg->cell);
        w->stream = room > 0 && room <= BF_MAX_BODY_BYTES / cfg->cell->batch_size;
    }
    bf_gen_skip_sequences(w->gen, bf_gen_prefill_skip(cfg->sc));
    w->cursor = cfg->cursor;
    w->cursor.pos = w->cursor.from;
    bf_buf_init(&w->scratch, BF_MAX_BODY_BYTES);
    if (w->gzip) {
        /* libdeflate's levels 1..12 cover zlib's 1..9 with the same meaning at 1..9 */
        w->gzc = libdeflate_alloc_compressor(rq->gzip_level ? rq->gzip_level : 1);
        if (w->gzc == NULL) {
            bf_diag_set(diag, BF_E_IO, "libdeflate: cannot allocate a compressor for "
                        "gzip_level %d", rq->gzip_level);
            bf_worker_destroy(&w);
            return NULL;
        }
    }
    /* libcurl copies a POST body through its upload buffer, one buffer per transfer step:
     * a buffer near a quarter of the body (at most UPLOAD_BUFFER_MAX) keeps the steps few
     * without much memory */
    size_t body_est = cfg->body_bytes_est ? cfg->body_bytes_est : 65536;
    size_t doc_est = cfg->body_bytes_est ? cfg->body_bytes_est / cfg->cell->batch_size : 512;
    w->slice_docs = (uint32_t)(SLICE_BYTES / (doc_est ? doc_est : 1));
    if (w->slice_docs == 0)
        w->slice_docs = 1;
    size_t wire_est = w->gzip ? body_est / 4 : body_est;
    long ulbuf = UPLOAD_BUFFER_MIN;
    while (ulbuf < UPLOAD_BUFFER_MAX && (size_t)ulbuf * 4 < wire_est)
        ulbuf *= 2;
    /* responses are read into curl's buffer: about 200 bytes an item without filter_path,
     * so fewer reads for big batches, little memory for small ones */
    long rcvbuf = RECV_BUFFER_MIN;
    while (rcvbuf < RECV_BUFFER_MAX && (uint64_t)rcvbuf * 8 < (uint64_t)cfg->cell->batch_size * 200)
        rcvbuf *= 2;
    w->slots = bf_calloc(w->nslots, sizeof *w->slots);
    for (uint32_t i = 0; i < w->nslots; i++) {
        slot *s = &w->slots[i];
        s->w = w;
        s->group = i / w->group_size;
        bf_buf_init(&s->body, BF_MAX_BODY_BYTES);
        bf_gather_init(&s->gat, BF_MAX_BODY_BYTES);
        bf_buf_init(&s->gz, BF_MAX_BODY_BYTES + 65536);
        bf_tmpl_stream_init(&s->stream);
        s->h = curl_easy_init();
        /* connections are spread round-robin over all hosts, counting across threads */
        const char *host = t->hosts[(cfg->conn_base + s->group) % t->nhosts];
        s->home_url = bulk_url(host, rq, w->cfg.cell->routing_mode != BF_ROUTE_NONE);
        curl_easy_setopt(s->h, CURLOPT_URL, s->home_url);
        curl_easy_setopt(s->h, CURLOPT_POST, 1L);
        curl_easy_setopt(s->h, CURLOPT_READFUNCTION, on_read);
        curl_easy_setopt(s->h, CURLOPT_READDATA, s);
        curl_easy_setopt(s->h, CURLOPT_SEEKFUNCTION, on_seek);
        curl_easy_setopt(s->h, CURLOPT_SEEKDATA, s);
        curl_easy_setopt(s->h, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
        curl_easy_setopt(s->h, CURLOPT_USERAGENT, "bulkfleet-agent/" BF_VERSION);
        curl_easy_setopt(s->h, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(s->h, CURLOPT_TIMEOUT_MS, (long)rq->timeout_ms);
        curl_easy_setopt(s->h, CURLOPT_CONNECTTIMEOUT_MS,
                         t->connect_timeout_ms ? (long)t->connect_timeout_ms : 10000L);
        curl_easy_setopt(s->h, CURLOPT_WRITEFUNCTION, on_body);
        curl_easy_setopt(s->h, CURLOPT_WRITEDATA, s);
        curl_easy_setopt(s->h, CURLOPT_PRIVATE, (char *)s);
        curl_easy_setopt(s->h, CURLOPT_TCP_NODELAY, 1L);
        curl_easy_setopt(s->h, CURLOPT_TCP_KEEPALIVE, 1L);
        curl_easy_setopt(s->h, CURLOPT_UPLOAD_BUFFERSIZE, ulbuf);
        curl_easy_setopt(s->h, CURLOPT_BUFFERSIZE, rcvbuf);
        struct curl_slist *unused = NULL;
        bf_es_apply_target(s->h, t, &unused); /* auth and TLS; headers are built below */
        curl_slist_free_all(unused);
    }
    struct curl_slist *h = NULL;
    /* request.media_type elasticsearch8: Elasticsearch 8's versioned media types (REST API
     * compatibility, es-api.md); target.headers cannot carry either (the loader refuses it) */
    const char *ctype = rq->media_type_es8
                            ? "Content-Type: application/vnd.elasticsearch+x-ndjson; "
                              "compatible-with=8"
                            : "Content-Type: application/x-ndjson";
    const char *accept = rq->media_type_es8
                             ? "Accept: application/vnd.elasticsearch+json; compatible-with=8"
                             : "Accept: application/json";
    bf_es_apply_target(w->slots[0].h, t, &h);
    h = curl_slist_append(h, ctype);
    h = curl_slist_append(h, accept);
    h = curl_slist_append(h, "Expect:");
    w->hdr_plain = h;
    h = NULL;
    bf_es_apply_target(w->slots[0].h, t, &h);
    h = curl_slist_append(h, ctype);
    h = curl_slist_append(h, accept);
    h = curl_slist_append(h, "Content-Encoding: gzip");
    h = curl_slist_append(h, "Expect:");
    w->hdr_gzip = h;
    for (uint32_t i = 0; i < w->nslots; i++)
        curl_easy_setopt(w->slots[i].h, CURLOPT_HTTPHEADER, w->gzip ? w->hdr_gzip : w->hdr_plain);
    return w;
}

int bf_worker_start(bf_worker_t *w)
{
    if (pthread_create(&w->thread, NULL, run, w) != 0)
        return BF_E_IO;
    w->started = 1;
    return BF_OK;
}

void bf_worker_abort(bf_worker_t *w)
{
    atomic_store(&w->abort_flag, 1);
    if (w->multi)
        curl_multi_wakeup(w->multi);
}

int bf_worker_finished(bf_worker_t *w)
{
    return !w->started || atomic_load(&w->finished);
}

int bf_worker_corpus_done(const bf_worker_t *w)
{
    return w->corpus_done;
}

uint64_t bf_worker_corpus_end_us(const bf_worker_t *w)
{
    return w->corpus_done ? w->corpus_end_us : 0;
}

uint32_t bf_worker_inflight(bf_worker_t *w)
{
    return atomic_load(&w->inflight);
}

void bf_worker_destroy(bf_worker_t **w_p)
{
    if (w_p == NULL || *w_p == NULL)
        return;
    bf_worker_t *w = *w_p;
    if (w->started) {
        bf_worker_abort(w);
        pthread_join(w->thread, NULL);
    }
    for (uint32_t i = 0; w->slots && i < w->nslots; i++) {
        slot *s = &w->slots[i];
        if (s->state == SLOT_BUSY)
            curl_multi_remove_handle(w->multi, s->h);
        curl_easy_cleanup(s->h);
        free(s->home_url);
        curl_slist_free_all(s->sig_hdr);
        free(s->sig_url);
        bf_buf_cleanup(&s->body);
        bf_gather_cleanup(&s->gat);
        bf_buf_cleanup(&s->gz);
        bf_tmpl_stream_cleanup(&s->stream);
        free(s->item_class);
        free(s->gshard);
        free(s->terms);
    }
    free(w->slots);
    for (size_t i = 0; i < w->nnode_urls; i++)
        free(w->node_urls[i]);
    free(w->node_urls);
    curl_slist_free_all(w->resolve);
    for (size_t i = 0; i < w->nold_resolve; i++)
        curl_slist_free_all(w->old_resolve[i]);
    free(w->old_resolve);
    if (w->cfg.routes)
        bf_reshuffle_cleanup(&w->rs);
    if (w->multi)
        curl_multi_cleanup(w->multi);
    curl_slist_free_all(w->hdr_plain);
    curl_slist_free_all(w->hdr_gzip);
    if (w->gzc)
        libdeflate_free_compressor(w->gzc);
    bf_gen_destroy(&w->gen);
    bf_buf_cleanup(&w->scratch);
    for (uint32_t i = 0; w->ring && i < w->nring; i++) {
        bf_hist_destroy(&w->ring[i].svc);
        bf_hist_destroy(&w->ring[i].lat);
    }
    free(w->ring);
    pthread_mutex_destroy(&w->lock);
    free(w);
    *w_p = NULL;
}

void bf__worker_set_start(bf_worker_t *w, uint64_t start_mono_us)
{
    w->cfg.start_mono_us = start_mono_us;
}
