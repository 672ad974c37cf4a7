/* SPDX-License-Identifier: MIT *
 * The worker's files: bf_worker.c the libcurl callbacks, sending, on_done and the loop;
 * bf_worker_bucket.c the per-second buckets and the fatal reason; bf_worker_route.c the routed
 * split (routing_mode node|shard); bf_worker_new.c building and freeing a worker; what they
 * share is bf_worker_int.h.
 */
/* bf_worker.c — one load thread: libcurl multi, bulk bodies, outcomes per second.
 *
 * Each connection slot owns its buffers and reuses them for every request: its body (a
 * bf_body of the kind chosen once for the worker: rendered, gathered, streamed or routed,
 * gzip around it) and an incremental response judge (bf_bulkresp_stream), so responses are
 * judged as they arrive and never stored. Closed loop:
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
#include "bf_worker_int.h"

#include "bf_aws.h"
#include "bf_clock.h"
#include "bf_log.h"
#include "bf_mem.h"
#include "bf_verdict.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LATE_US 10000                  /* open loop: sent this late = behind the target */
#define CONNECT_BACKOFF_MIN_US 100000u /* after a failed connect; doubled up to the max */
#define CONNECT_BACKOFF_MAX_US 2000000u
#define IDLE_POLL_MS 100 /* longest wait in curl_multi_poll */
/* streamed bodies: how long a new body waits for the open one before that one is spilled.
 * A body on a fast link is rendered in about the time it takes to send (~2 ms for 2.8 MiB
 * here); a slow link must not hold the other connections back. */
#define OPEN_WAIT_US 20000u
#define OPEN_STALL_US 2000u /* ... or once libcurl has not asked for more of it for this long */

/* ---- responses ---------------------------------------------------------------------------- */

size_t bf__worker_on_body(char *p, size_t size, size_t n, void *ud)
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
 * The copy into libcurl's upload buffer is the body's (bf_body_read): CURLOPT_POSTFIELDS would
 * not save it, libcurl copies a POSTFIELDS body into its upload buffer too (7.88.1 lib/http.c
 * readmoredata; 8.7 to 2026's lib/sendf.c cr_buf_read). A streamed body has no such copy: it is
 * rendered into that buffer. */
size_t bf__worker_on_read(char *buf, size_t size, size_t n, void *ud)
{
    slot *s = ud;
    bf_worker_t *w = s->w;
    size_t k = bf_body_read(&s->body, buf, size * n);
    if (k == BF_BODY_ABORT) {
        bf__worker_set_fatal(w, "cell %s: could not render a bulk body (%s)", w->cfg.cell->id,
                             bf_strerror(s->body.err));
        return CURL_READFUNC_ABORT;
    }
    if (w->open == s && bf_body_stream_ended(&s->body)) {
        w->open = NULL; /* the generator is free for the next body */
        w->open_ended = 1;
    } else if (w->open == s) {
        w->open_read_us = s->body.read_us;
    }
    s->sent_off += k;
    return k;
}

/* The open body's documents not rendered yet are rendered whole into its carry buffer, so
 * another body can start (or the ended transfer's documents stay where they were). */
static int spill_open(bf_worker_t *w, slot *s)
{
    if (w->open == s)
        w->open = NULL;
    int rc = bf_body_spill(&s->body); /* its render time is booked with s's answer (on_done) */
    if (rc != BF_OK)
        bf__worker_set_fatal(w, "cell %s: could not render a bulk body (%s)", w->cfg.cell->id,
                             bf_strerror(rc));
    return rc;
}

int bf__worker_on_seek(void *ud, curl_off_t offset, int origin)
{
    slot *s = ud;
    if (origin == SEEK_SET && offset == 0 && s->sent_off == 0) {
        bf_body_rewind(&s->body);
        return CURL_SEEKFUNC_OK;
    }
    s->resend_refused = 1;
    return CURL_SEEKFUNC_FAIL;
}

/* ---- requests ----------------------------------------------------------------------------- */

/* Lets the transfers of the other connections move on while this thread builds a body, so a
 * body being built never shows up in another request's service time. Returns the time spent
 * (not the builder's processing time). */
uint64_t bf__worker_io_turn(void *ctx)
{
    bf_worker_t *w = ctx;
    if (atomic_load(&w->inflight) == 0)
        return 0;
    uint64_t t0 = bf_clock_mono_us();
    int still = 0;
    curl_multi_perform(w->multi, &still);
    return bf_clock_mono_us() - t0;
}

/* target.auth.aws: signs this attempt's body as it goes on the wire (the gzip bytes when
 * compressed; signing workers never stream or gather, so the body is one buffer) and gives s's
 * handle the headers with the signature. Returns 0, or sets the fatal reason (no credentials). */
static int sign_slot(bf_worker_t *w, slot *s)
{
    size_t len = 0;
    const char *body = bf_body_whole(&s->body, &len);
    struct curl_slist *h = NULL;
    for (const struct curl_slist *p = w->gzip ? w->hdr_gzip : w->hdr_plain; p; p = p->next)
        h = curl_slist_append(h, p->data);
    char *url = NULL;
    bf_diag_t d = {0};
    int rc = body == NULL
                 ? BF_E_INVAL
                 : bf_aws_sign(w->cfg.cell->target, "POST", s->home_url, body, len, &h, &url, &d);
    if (rc != BF_OK) {
        curl_slist_free_all(h);
        bf__worker_set_fatal(w, "cell %s: cannot sign a bulk request: %s", w->cfg.cell->id,
                             body == NULL ? "the body is not one buffer" : d.msg);
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

/* Puts slot s on the wire with its body as built. */
static void send_prepared(bf_worker_t *w, slot *s)
{
    s->wire_len = bf_body_wire_len(&s->body);
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
    bf_body_start(&s->body);
    s->resend_refused = 0;
    s->judge_us = 0;
    /* a streamed body's length is known once it is rendered: chunked transfer encoding */
    curl_easy_setopt(s->h, CURLOPT_POSTFIELDSIZE_LARGE,
                     bf_body_chunked(&s->body) ? (curl_off_t)-1 : (curl_off_t)s->wire_len);
    if (w->sign && sign_slot(w, s) != BF_OK)
        return;
    pthread_mutex_lock(&w->lock);
    s->send_us = bf_clock_mono_us();
    int32_t sec = bf__worker_second_of(w, s->send_us);
    /* send lag (client-bound): how long a free connection and a due request
     * waited for this thread to build, compress and hand it over */
    bf_counters_t *lc = &bf__worker_bucket_at(w, sec)->c;
    lc->sends++;
    lc->render_us += s->body.render_us;
    lc->compress_us += s->body.compress_us;
    s->body.render_us = s->body.compress_us = 0;
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

/* Builds a fresh body of batch_size documents (bf_body_build: of the worker's kind) and sends
 * it; intended_us is its due time. A routed bulk goes out as its parts (send_routed). */
/* routing_mode node|shard: the bulk just rendered into the scratch buffer is split by primary
 * node or shard (bf__worker_split) and each part is sent at once from a slot of s's group, to
 * its node's address. */
static void send_routed(bf_worker_t *w, slot *s, uint64_t intended_us, uint64_t t0, uint64_t io_us,
                        uint32_t ndocs)
{
    uint32_t nparts = bf__worker_split(w, s, intended_us, t0, io_us, ndocs);
    slot *first = &w->slots[s->group * w->group_size];
    for (uint32_t j = 0; j < nparts; j++)
        send_prepared(w, &first[j]);
}

static void send_new(bf_worker_t *w, slot *s, uint64_t intended_us)
{
    const bf_cell_t *cell = w->cfg.cell;
    uint64_t t0 = bf_clock_mono_us();
    uint32_t ndocs = 0;
    if (s->body.kind != w->kind) /* streaming was turned off (request.transfer: auto, a 411) */
        bf_body_set_kind(&s->body, w->kind, w->gzip);
    int rc = bf_body_build(&s->body, cell->batch_size, &ndocs);
    if (w->benv.corpus_end && !w->corpus_done) {
        /* the end of this worker's corpus: send what there is, then no more */
        w->corpus_done = 1;
        if (w->cfg.corpus)
            bf_info("cell %s, thread %u: corpus slice of %zu documents read %u time%s; "
                    "this thread sends no more",
                    cell->id, w->cfg.thread_index, w->cursor.to - w->cursor.from,
                    w->cursor.passes_done, w->cursor.passes_done == 1 ? "" : "s");
        else
            bf_info("cell %s, thread %u: its rows of the vector file sent in every pass "
                    "(passes:); this thread sends no more",
                    cell->id, w->cfg.thread_index);
    }
    if (rc == BF_E_RANGE) {
        bf__worker_set_fatal(w,
                             "cell %s: a sequence variable with wrap: false has no values left for "
                             "this thread; widen its range or set wrap: true",
                             cell->id);
        return;
    }
    if (rc == BF_E_PARSE) {
        bf__worker_set_fatal(w,
                             "cell %s: a vector file's rows could not be read (the error above "
                             "names the file and row: changed since the scenario loaded?)",
                             cell->id);
        return;
    }
    if (rc == BF_E_IO) {
        bf__worker_set_fatal(w, "cell %s: could not gzip a %zu-byte body", cell->id,
                             s->body.payload_len);
        return;
    }
    if (rc != BF_OK) {
        bf__worker_set_fatal(w,
                             "cell %s: a bulk body of %u documents exceeds %u bytes "
                             "(http.max_content_length); lower batch_size",
                             cell->id, ndocs, BF_MAX_BODY_BYTES);
        return;
    }
    if (ndocs == 0)
        return;
    if (w->kind == BF_BODY_ROUTED) {
        send_routed(w, s, intended_us, t0, s->body.io_us, ndocs);
        return;
    }
    s->ndocs = ndocs;
    s->payload_len = s->body.payload_len;
    s->retries = 0;
    s->connect_failures = 0;
    s->intended_us = intended_us;
    if (w->kind == BF_BODY_STREAMED) {
        w->open = s;
        w->open_us = w->open_read_us = t0;
        s->proc_us = bf_clock_mono_us() - t0;
    } else {
        s->proc_us = s->body.render_us + s->body.compress_us;
    }
    send_prepared(w, s);
}

/* Keeps only the documents whose item was rejected (429) in s's body, for a retry. */
static uint32_t keep_rejected(slot *s)
{
    uint32_t kept =
        bf_body_keep_rejected(&s->body, s->item_class, s->ndocs, s->routed ? s->gshard : NULL);
    s->ndocs = kept;
    s->payload_len = s->body.payload_len;
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
        bf__worker_bucket_now(w)->c.docs_rejected += s->ndocs;
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

/* request.transfer auto: a chunked body answered 411 was refused for its framing before any
 * document was read. Returns 1 then, with v emptied: neither the request nor its documents
 * count (they were not indexed, and are not resent); switch_to_length says so once. */
static int length_refused(const bf_worker_t *w, const slot *s, bf_verdict_t *v)
{
    if (!(v->fatal == BF_FATAL_LENGTH && bf_body_chunked(&s->body) && w->transfer_auto))
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
    w->kind = BF_BODY_RENDERED; /* each slot's body follows at its next build (send_new) */
    if (w->open)
        spill_open(w, w->open); /* the generator is free for whole bodies */
    bf_warn("cell %s, thread %u: HTTP 411 Length Required to a chunked bulk body: this thread now "
            "sends every body with its Content-Length (request.transfer: auto); the documents "
            "of a request refused so were not indexed and are not counted",
            w->cfg.cell->id, w->cfg.thread_index);
}

/* Adds the request counter v says into c (the documents go through bf__worker_spread_docs). */
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

/* when the load ends: the planned load time, or earlier when bf_worker_end_load said so */
static uint64_t load_end_us(bf_worker_t *w)
{
    uint32_t e = atomic_load(&w->end_load_ms);
    return w->cfg.start_mono_us + (e ? e : w->cfg.load_ms) * 1000u;
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
    if (s->body.kind == BF_BODY_STREAMED) {
        /* a transfer that ended before its body was read whole: the rest is rendered now, so
         * the next body starts with the same document, and a resend (nothing was sent) reads
         * the same bytes */
        if (!bf_body_stream_ended(&s->body))
            spill_open(w, s);
        s->payload_len = s->wire_len = bf_body_wire_len(&s->body);
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
            bf__worker_check_terms(w, s);
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
    in.retry_left = s->retries < rq->retry_429_max && now < load_end_us(w);
    bf_verdict_t v;
    bf_verdict_judge(&in, &v);
    int length_switch = length_refused(w, s, &v);

    pthread_mutex_lock(&w->lock);
    bucket *b = bf__worker_bucket_now(w);
    bf_counters_t *c = &b->c;
    c->connections_opened += (uint64_t)connects;
    c->judge_us += judged_us;
    c->render_us += s->body.render_us; /* a streamed body's, rendered while it was sent */
    s->body.render_us = 0;
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
        bf__worker_record_hist(&b->svc, svc_us);
        uint64_t lat_us = now > s->intended_us ? now - s->intended_us : 0;
        bf__worker_record_hist(&b->lat, lat_us > svc_us ? lat_us : svc_us);
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
        sp[SP_WIRE] = (uint64_t)up > s->body.frame_bytes ? (uint64_t)up - s->body.frame_bytes : 0;
        bf__worker_spread_docs(w, s->send_us, t0, sp);
        book_unknown_cause(c, v.req, v.unknown);
    }
    bf__worker_update_open_second(w);
    pthread_mutex_unlock(&w->lock);

    if (length_switch && w->kind == BF_BODY_STREAMED)
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
            .chunked = bf_body_chunked(&s->body),
        };
        char msg[768];
        if (fatal)
            bf__worker_set_fatal(w, "%s", bf_verdict_describe(&in, &v, &ctx, msg, sizeof msg));
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
        uint32_t again = atomic_load(&w->abort_flag)     ? 0
                         : v.next == BF_NEXT_RETRY_WHOLE ? s->ndocs
                                                         : keep_rejected(s);
        if (again == 0) {
            pthread_mutex_lock(&w->lock);
            bf__worker_bucket_now(w)->c.docs_rejected += v.retry;
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
    bf__worker_bucket_now(w)->c.busy_us_max += now - *from;
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
        bf__worker_spread_docs(w, s->send_us, bf_clock_mono_us(), sp);
        bf_counters_t *c = &bf__worker_bucket_now(w)->c;
        c->req_abandoned++;
        c->docs_unknown_abandoned += s->ndocs;
        bf__worker_update_open_second(w);
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

void *bf__worker_run(void *arg)
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
        if (load_end_us(w) < load_end) { /* bf_worker_end_load: the load ends earlier */
            load_end = load_end_us(w);
            hard_end = load_end + timeout_us + 2000000u;
        }
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
                /* a retry's body is compressed again with gzip (compress_us: that time) */
                if (bf_body_ready(&s->body) != BF_OK) {
                    bf__worker_set_fatal(w, "cell %s: could not gzip a %zu-byte body",
                                         w->cfg.cell->id, s->body.payload_len);
                    break;
                }
                s->proc_us = s->body.compress_us;
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
                    bucket *b = bf__worker_bucket_now(w);
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
