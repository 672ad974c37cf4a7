/* bf_worker.c — one load thread: libcurl multi, bulk bodies, outcomes per second.
 *
 * Each connection slot owns its body, gzip and response buffers and reuses them for every
 * request (STYLE §7). Closed loop: a slot that completes sends again at once. Open loop
 * (target_rate > 0): requests are due at fixed intervals; latency is measured from the due
 * time (coordinated omission, after wrk2), service time from the actual send.
 */
#include "bf_worker.h"

#include "bf_bulkresp.h"
#include "bf_clock.h"
#include "bf_es.h"
#include "bf_log.h"
#include "bf_mem.h"

#include <curl/curl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define RING 8
#define LATE_US 10000 /* open loop: a request sent this late counts as "behind the target" */

typedef struct bucket {
    int32_t second; /* -1: empty */
    bf_counters_t c;
    bf_hist_t *svc;
    bf_hist_t *lat;
} bucket;

enum slot_state { SLOT_IDLE = 0, SLOT_BUSY, SLOT_RETRY_WAIT };

typedef struct slot {
    CURL *h;
    enum slot_state state;
    bf_buf_t body;  /* uncompressed NDJSON */
    bf_buf_t gz;    /* gzip of body */
    bf_buf_t resp;
    uint32_t ndocs;
    uint32_t retries;
    uint64_t intended_us;
    uint64_t retry_due_us;
    uint8_t *item_class;
    uint32_t item_class_cap;
    long connects_seen;
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
    bucket ring[RING];

    CURLM *multi;
    slot *slots;
    struct curl_slist *hdr_plain;
    struct curl_slist *hdr_gzip;
    char *url;
    bf_gen_t *gen;
    z_stream z;
    int z_ready;
    bf_buf_t retry_tmp;
    char fatal[512];
    atomic_int fatal_set;
};

/* ---- buckets ------------------------------------------------------------------------------ */

/* Returns the bucket for now (clock read under the lock, see header); caller holds the lock. */
static bucket *bucket_now(bf_worker_t *w)
{
    uint64_t now = bf_clock_mono_us();
    int32_t sec = now > w->cfg.start_mono_us ? (int32_t)((now - w->cfg.start_mono_us) / 1000000u) : 0;
    bucket *b = &w->ring[sec % RING];
    if (b->second != sec) {
        if (b->second >= 0) {
            /* the sampler fell RING seconds behind; keep the data under its older second
             * rather than lose it (it is still counted, one second early) */
            return b;
        }
        b->second = sec;
    }
    if (sec > atomic_load(&w->last_second))
        atomic_store(&w->last_second, sec);
    return b;
}

int bf_worker_collect(bf_worker_t *w, int32_t second, bf_counters_t *c, bf_hist_t *svc,
                      bf_hist_t *lat)
{
    int had = 0;
    pthread_mutex_lock(&w->lock);
    bucket *b = &w->ring[second % RING];
    if (b->second == second) {
        bf_counters_add(c, &b->c);
        if (svc)
            bf_hist_add(svc, b->svc);
        if (lat)
            bf_hist_add(lat, b->lat);
        memset(&b->c, 0, sizeof b->c);
        bf_hist_reset(b->svc);
        bf_hist_reset(b->lat);
        b->second = -1;
        had = 1;
    }
    pthread_mutex_unlock(&w->lock);
    return had;
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

/* ---- requests ----------------------------------------------------------------------------- */

static size_t on_body(char *p, size_t size, size_t n, void *ud)
{
    bf_buf_t *b = ud;
    return bf_buf_append(b, p, size * n) == BF_OK ? size * n : 0;
}

static int gzip_body(bf_worker_t *w, slot *s)
{
    z_stream *z = &w->z;
    deflateReset(z);
    bf_buf_reset(&s->gz);
    size_t bound = deflateBound(z, (uLong)s->body.len) + 32;
    if (bf_buf_reserve(&s->gz, bound) != BF_OK)
        return BF_E_TOOBIG;
    z->next_in = (Bytef *)s->body.data;
    z->avail_in = (uInt)s->body.len;
    z->next_out = (Bytef *)s->gz.data;
    z->avail_out = (uInt)(s->gz.cap - 1);
    if (deflate(z, Z_FINISH) != Z_STREAM_END)
        return BF_E_IO;
    s->gz.len = (s->gz.cap - 1) - z->avail_out;
    return BF_OK;
}

/* Sends s->body (already built) on slot s. */
static void send_body(bf_worker_t *w, slot *s, uint64_t intended_us)
{
    int gzip = w->cfg.cell->compression == BF_COMPRESS_GZIP;
    const bf_buf_t *wire = &s->body;
    if (gzip) {
        uint64_t t0 = bf_clock_mono_us();
        if (gzip_body(w, s) != BF_OK) {
            set_fatal(w, "cell %s: could not gzip a %zu-byte body", w->cfg.cell->id, s->body.len);
            return;
        }
        wire = &s->gz;
        pthread_mutex_lock(&w->lock);
        bucket_now(w)->c.processing_us += bf_clock_mono_us() - t0;
        pthread_mutex_unlock(&w->lock);
    }
    bf_buf_reset(&s->resp);
    curl_easy_setopt(s->h, CURLOPT_POSTFIELDS, wire->data);
    curl_easy_setopt(s->h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)wire->len);
    curl_easy_setopt(s->h, CURLOPT_HTTPHEADER, gzip ? w->hdr_gzip : w->hdr_plain);
    s->intended_us = intended_us;
    s->state = SLOT_BUSY;
    atomic_fetch_add(&w->inflight, 1);
    curl_multi_add_handle(w->multi, s->h);
}

/* Builds a fresh body of batch_size documents and sends it. */
static void send_new(bf_worker_t *w, slot *s, uint64_t intended_us)
{
    uint64_t t0 = bf_clock_mono_us();
    bf_buf_reset(&s->body);
    int rc = bf_tmpl_render_bulk(w->cfg.tmpl, w->gen, w->cfg.cell, w->cfg.cell->batch_size, &s->body);
    if (rc != BF_OK) {
        set_fatal(w, "cell %s: a bulk body of %u documents exceeds %u bytes "
                  "(http.max_content_length); lower batch_size", w->cfg.cell->id,
                  w->cfg.cell->batch_size, BF_MAX_BODY_BYTES);
        return;
    }
    s->ndocs = w->cfg.cell->batch_size;
    s->retries = 0;
    pthread_mutex_lock(&w->lock);
    bucket_now(w)->c.processing_us += bf_clock_mono_us() - t0;
    pthread_mutex_unlock(&w->lock);
    send_body(w, s, intended_us);
}

/* Keeps only the documents whose item was rejected (429) in s->body, for a retry.
 * Bulk NDJSON has exactly two lines per document (action + source) as we render it. */
static uint32_t keep_rejected(bf_worker_t *w, slot *s)
{
    bf_buf_t *out = &w->retry_tmp;
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
            kept++;
        }
        p = l2 + 1;
    }
    bf_buf_t tmp = s->body;
    s->body = *out;
    *out = tmp;
    s->ndocs = kept;
    return kept;
}

static void on_done(bf_worker_t *w, slot *s, CURLcode cc)
{
    curl_multi_remove_handle(w->multi, s->h);
    atomic_fetch_sub(&w->inflight, 1);
    s->state = SLOT_IDLE;

    curl_off_t total_us = 0, up = 0, down = 0;
    long status = 0, connects = 0;
    curl_easy_getinfo(s->h, CURLINFO_TOTAL_TIME_T, &total_us);
    curl_easy_getinfo(s->h, CURLINFO_SIZE_UPLOAD_T, &up);
    curl_easy_getinfo(s->h, CURLINFO_SIZE_DOWNLOAD_T, &down);
    curl_easy_getinfo(s->h, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_getinfo(s->h, CURLINFO_NUM_CONNECTS, &connects);

    bf_bulk_counts_t bc;
    memset(&bc, 0, sizeof bc);
    int parsed = BF_E_PARSE;
    char first_error[256] = "";
    uint32_t nd = s->ndocs;
    if (cc == CURLE_OK && status >= 200 && status < 300) {
        if (s->item_class_cap < nd) {
            s->item_class = bf_realloc(s->item_class, nd);
            s->item_class_cap = nd;
        }
        parsed = bf_bulkresp_parse(s->resp.data ? s->resp.data : "", s->resp.len, nd, &bc,
                                   s->item_class, first_error, sizeof first_error);
    }

    uint32_t retry_n = 0;
    pthread_mutex_lock(&w->lock);
    bucket *b = bucket_now(w);
    bf_counters_t *c = &b->c;
    uint64_t now = bf_clock_mono_us();
    if (s->retries == 0)
        c->docs_sent += nd;
    else
        c->docs_retried += nd;
    c->bytes_payload += s->body.len;
    c->bytes_wire += (uint64_t)up + (uint64_t)down;
    c->connections_opened += (uint64_t)connects;
    if (cc != CURLE_OK) {
        c->docs_unknown += nd;
        if (cc == CURLE_OPERATION_TIMEDOUT)
            c->req_timeout++;
        else if (cc == CURLE_COULDNT_CONNECT || cc == CURLE_COULDNT_RESOLVE_HOST)
            c->req_connect_error++;
        else if (cc == CURLE_RECV_ERROR || cc == CURLE_SEND_ERROR || cc == CURLE_GOT_NOTHING ||
                 cc == CURLE_PARTIAL_FILE)
            c->req_reset++;
        else
            c->req_bad_response++;
    } else if (status >= 200 && status < 300) {
        if (parsed != BF_OK) {
            c->req_bad_response++;
            c->docs_unknown += nd;
        } else {
            c->docs_ok += bc.ok;
            c->docs_conflict += bc.conflict;
            c->docs_mapping += bc.mapping;
            c->docs_failed_4xx += bc.failed_4xx;
            c->docs_failed_5xx += bc.failed_5xx;
            if (bc.ok == nd)
                c->req_ok++;
            else
                c->req_partial++;
            if (bc.rejected && s->retries < bf_scenario_request(w->cfg.sc)->retry_429_max)
                retry_n = (uint32_t)bc.rejected;
            else
                c->docs_rejected += bc.rejected;
        }
    } else {
        c->http_status[status > 0 && status < BF_HTTP_STATUS_MAX ? status : 0]++;
        if (status == 429)
            c->docs_rejected += nd;
        else if (status >= 500)
            c->docs_failed_5xx += nd;
        else
            c->docs_failed_4xx += nd;
    }
    if (cc == CURLE_OK || cc == CURLE_OPERATION_TIMEDOUT || cc == CURLE_RECV_ERROR) {
        uint64_t svc_us = (uint64_t)total_us;
        bf_hist_record(b->svc, svc_us);
        uint64_t lat_us = now - s->intended_us;
        bf_hist_record(b->lat, lat_us > svc_us ? lat_us : svc_us);
    }
    pthread_mutex_unlock(&w->lock);

    if (cc == CURLE_OK && (status == 401 || status == 403))
        set_fatal(w, "cell %s: the cluster answered HTTP %ld to _bulk: check target.auth "
                  "(user, password or API key) and the user's index privileges",
                  w->cfg.cell->id, status);
    else if (cc == CURLE_OK && status == 413)
        set_fatal(w, "cell %s: HTTP 413 Request Entity Too Large for a bulk body of %u documents "
                  "and %zu bytes: lower batch_size or raise http.max_content_length",
                  w->cfg.cell->id, nd, s->body.len);
    else if (cc == CURLE_OK && status == 404)
        set_fatal(w, "cell %s: HTTP 404 from _bulk: the index is missing and auto-creation is "
                  "off; set index.recreate: true", w->cfg.cell->id);

    if (retry_n > 0 && keep_rejected(w, s) > 0) {
        const bf_request_spec_t *rq = bf_scenario_request(w->cfg.sc);
        s->retries++;
        s->retry_due_us = bf_clock_mono_us() + (rq->retry_backoff_ms * 1000u << (s->retries - 1));
        s->state = SLOT_RETRY_WAIT;
    }
}

/* ---- the loop ----------------------------------------------------------------------------- */

static void abandon_all(bf_worker_t *w)
{
    for (uint32_t i = 0; i < w->cfg.connections; i++) {
        slot *s = &w->slots[i];
        if (s->state != SLOT_BUSY)
            continue;
        curl_multi_remove_handle(w->multi, s->h);
        atomic_fetch_sub(&w->inflight, 1);
        s->state = SLOT_IDLE;
        pthread_mutex_lock(&w->lock);
        bucket *b = bucket_now(w);
        b->c.docs_sent += s->retries ? 0 : s->ndocs;
        b->c.docs_unknown += s->ndocs;
        pthread_mutex_unlock(&w->lock);
    }
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
    int waiting_counted = 0;

    uint64_t now = bf_clock_mono_us();
    while (now < start && !atomic_load(&w->abort_flag)) {
        uint64_t left = start - now;
        bf_clock_sleep_us(left < 50000 ? left : 50000);
        now = bf_clock_mono_us();
    }

    for (;;) {
        now = bf_clock_mono_us();
        if (atomic_load(&w->abort_flag)) {
            abandon_all(w);
            break;
        }
        int loading = now < load_end;
        /* issue */
        for (uint32_t i = 0; i < cfg->connections; i++) {
            slot *s = &w->slots[i];
            if (s->state == SLOT_RETRY_WAIT && now >= s->retry_due_us)
                send_body(w, s, now);
        }
        if (loading && interval_us == 0) {
            for (uint32_t i = 0; i < cfg->connections && !atomic_load(&w->abort_flag); i++)
                if (w->slots[i].state == SLOT_IDLE)
                    send_new(w, &w->slots[i], bf_clock_mono_us());
        } else if (loading) {
            while (next_due <= (double)now && next_due < (double)load_end) {
                slot *free_slot = NULL;
                for (uint32_t i = 0; i < cfg->connections; i++)
                    if (w->slots[i].state == SLOT_IDLE) {
                        free_slot = &w->slots[i];
                        break;
                    }
                if (free_slot == NULL) {
                    if (!waiting_counted) {
                        pthread_mutex_lock(&w->lock);
                        bucket_now(w)->c.conn_wait++;
                        pthread_mutex_unlock(&w->lock);
                        waiting_counted = 1;
                    }
                    break;
                }
                waiting_counted = 0;
                if ((double)now - next_due > LATE_US) {
                    pthread_mutex_lock(&w->lock);
                    bucket_now(w)->c.rate_behind++;
                    pthread_mutex_unlock(&w->lock);
                }
                send_new(w, free_slot, (uint64_t)next_due);
                next_due += interval_us;
            }
        }
        int still = 0;
        curl_multi_perform(w->multi, &still);
        CURLMsg *m;
        int left;
        while ((m = curl_multi_info_read(w->multi, &left)) != NULL) {
            if (m->msg != CURLMSG_DONE)
                continue;
            slot *s = NULL;
            curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&s);
            on_done(w, s, m->data.result);
        }
        now = bf_clock_mono_us();
        int busy = 0;
        for (uint32_t i = 0; i < cfg->connections; i++)
            busy |= w->slots[i].state != SLOT_IDLE;
        if (!busy && now >= load_end)
            break;
        if (now >= hard_end) {
            abandon_all(w);
            break;
        }
        int wait_ms = 50;
        if (interval_us > 0 && now < load_end) {
            double d = (next_due - (double)now) / 1000.0;
            wait_ms = d <= 0 ? 0 : (d < 50 ? (int)d + 1 : 50);
        }
        if (wait_ms > 0)
            curl_multi_poll(w->multi, NULL, 0, wait_ms, NULL);
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
    for (int i = 0; i < RING; i++) {
        w->ring[i].second = -1;
        w->ring[i].svc = bf_hist_new();
        w->ring[i].lat = bf_hist_new();
    }
    const bf_target_t *t = bf_scenario_target(cfg->sc);
    const bf_request_spec_t *rq = bf_scenario_request(cfg->sc);
    w->multi = curl_multi_init();
    curl_multi_setopt(w->multi, CURLMOPT_MAX_HOST_CONNECTIONS, (long)w->cfg.connections);
    w->gen = bf_gen_new(cfg->tmpl, &cfg->part);
    bf_buf_init(&w->retry_tmp, BF_MAX_BODY_BYTES);
    if (cfg->cell->compression == BF_COMPRESS_GZIP) {
        if (deflateInit2(&w->z, rq->gzip_level ? rq->gzip_level : 1, Z_DEFLATED, 15 + 16, 8,
                         Z_DEFAULT_STRATEGY) != Z_OK) {
            bf_diag_set(diag, BF_E_IO, "zlib deflateInit2 failed");
            bf_worker_destroy(&w);
            return NULL;
        }
        w->z_ready = 1;
    }
    w->slots = bf_calloc(w->cfg.connections, sizeof *w->slots);
    for (uint32_t i = 0; i < w->cfg.connections; i++) {
        slot *s = &w->slots[i];
        bf_buf_init(&s->body, BF_MAX_BODY_BYTES);
        bf_buf_init(&s->gz, BF_MAX_BODY_BYTES + 65536);
        bf_buf_init(&s->resp, BF_MAX_RESPONSE_BYTES);
        s->h = curl_easy_init();
        /* connections are spread over all hosts: slot i of thread k uses host (k + i) mod n */
        const char *host = t->hosts[(cfg->thread_index + i) % t->nhosts];
        char *url = rq->filter_path ? bf_asprintf("%s/_bulk?filter_path=%s", host, rq->filter_path)
                                    : bf_asprintf("%s/_bulk", host);
        curl_easy_setopt(s->h, CURLOPT_URL, url);
        free(url);
        curl_easy_setopt(s->h, CURLOPT_POST, 1L);
        curl_easy_setopt(s->h, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(s->h, CURLOPT_TIMEOUT_MS, (long)rq->timeout_ms);
        curl_easy_setopt(s->h, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
        curl_easy_setopt(s->h, CURLOPT_WRITEFUNCTION, on_body);
        curl_easy_setopt(s->h, CURLOPT_WRITEDATA, &s->resp);
        curl_easy_setopt(s->h, CURLOPT_PRIVATE, (char *)s);
        curl_easy_setopt(s->h, CURLOPT_TCP_NODELAY, 1L);
        curl_easy_setopt(s->h, CURLOPT_TCP_KEEPALIVE, 1L);
        struct curl_slist *unused = NULL;
        bf_es_apply_target(s->h, t, &unused); /* auth and TLS; headers are built below */
        curl_slist_free_all(unused);
    }
    struct curl_slist *h = NULL;
    bf_es_apply_target(w->slots[0].h, t, &h);
    h = curl_slist_append(h, "Content-Type: application/x-ndjson");
    h = curl_slist_append(h, "Expect:");
    w->hdr_plain = h;
    h = NULL;
    bf_es_apply_target(w->slots[0].h, t, &h);
    h = curl_slist_append(h, "Content-Type: application/x-ndjson");
    h = curl_slist_append(h, "Content-Encoding: gzip");
    h = curl_slist_append(h, "Expect:");
    w->hdr_gzip = h;
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
    for (uint32_t i = 0; w->slots && i < w->cfg.connections; i++) {
        slot *s = &w->slots[i];
        if (s->state == SLOT_BUSY)
            curl_multi_remove_handle(w->multi, s->h);
        curl_easy_cleanup(s->h);
        bf_buf_cleanup(&s->body);
        bf_buf_cleanup(&s->gz);
        bf_buf_cleanup(&s->resp);
        free(s->item_class);
    }
    free(w->slots);
    if (w->multi)
        curl_multi_cleanup(w->multi);
    curl_slist_free_all(w->hdr_plain);
    curl_slist_free_all(w->hdr_gzip);
    if (w->z_ready)
        deflateEnd(&w->z);
    bf_gen_destroy(&w->gen);
    bf_buf_cleanup(&w->retry_tmp);
    for (int i = 0; i < RING; i++) {
        bf_hist_destroy(&w->ring[i].svc);
        bf_hist_destroy(&w->ring[i].lat);
    }
    pthread_mutex_destroy(&w->lock);
    free(w->url);
    free(w);
    *w_p = NULL;
}

void bf__worker_set_start(bf_worker_t *w, uint64_t start_mono_us)
{
    w->cfg.start_mono_us = start_mono_us;
}
