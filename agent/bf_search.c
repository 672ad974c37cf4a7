/* SPDX-License-Identifier: MIT */
/* bf_search.c — search clients: named queries by weight, open or closed loop, per-query
 * per-second counters (see bf_search.h for the rules). */
#include "bf_search.h"

#include "bf_buf.h"
#include "bf_aws.h"
#include "bf_clock.h"
#include "bf_cluster.h"
#include "bf_es.h"
#include "bf_mem.h"
#include "bf_vars.h"

#include <curl/curl.h>
#include <jansson.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define QRING 4               /* seconds buffered per query (the sampler seals each second) */
#define IDLE_POLL_MS 50       /* longest wait in curl_multi_poll */
#define BODY_CAP (1u << 20)   /* a rendered query body */
#define PIT_KEEP_ALIVE "1m"   /* a point in time outlives the pages of one sequence */
#define PIT_ID_MAX 4096       /* bytes of a point-in-time id kept between pages */

/* What a client's request is, within a paged query (search.queries[].paging). */
enum pstate { PS_ONE = 0, PS_PIT_OPEN, PS_PAGE, PS_PIT_CLOSE };

typedef struct qbucket {
    int32_t second;           /* -1: empty */
    bf_qstats_t *q;           /* one per query */
} qbucket;

typedef struct qslot {
    bf_search_t *s;
    CURL *h;
    int busy;
    uint32_t query;
    uint32_t host;
    bf_buf_t body;            /* request body */
    bf_buf_t resp;            /* answer, capped at BF_MAX_SEARCH_RESPONSE_BYTES */
    int too_large;
    uint64_t sent_us, intended_us;
    /* paging: the sequence this client walks */
    enum pstate ps;
    int started;             /* has sent its first query */
    int profiled;            /* this request carries "profile": true */
    uint32_t nsearch;        /* searches in this request: 1, or an _msearch body's pairs */
    uint32_t page;           /* page being fetched, 0-based */
    json_t *base;            /* the sequence's rendered body (pages add size/from/...) */
    json_t *after;           /* last hit's sort values of the previous page */
    char pit_id[PIT_ID_MAX]; /* "" = no point in time */
    struct curl_slist *sig_hdr; /* target.auth.aws: this request's headers, signed */
    char *sig_url;              /* target.auth.aws: its URL with the query as signed, or NULL */
} qslot;

struct bf_search {
    bf_search_cfg_t cfg;
    const bf_search_spec_t *spec;
    size_t nq;
    pthread_t thread;
    int started;
    atomic_int abort_flag;
    atomic_int load_ended;   /* bf_search_end_load: the load time is over early */
    atomic_uint end_load_ms; /* bf_search_end_load_at: the load's end (ms after start), 0 */
    atomic_int finished;
    atomic_int last_second;
    atomic_uint inflight;
    pthread_mutex_t lock;
    qbucket ring[QRING];
    CURLM *multi;
    qslot *slots;
    struct curl_slist *hdr;
    struct curl_slist *hdr_nd; /* the same with Content-Type: application/x-ndjson (_msearch) */
    bf_tmpl_t **tmpl;         /* per query, NULL without a body */
    bf_gen_t **gen;
    char ***urls;             /* [query][host] */
    uint64_t weight_total;
    bf_rng_t rng;
    char fatal[1024];
    atomic_int fatal_set;
    int no_pit;     /* the cluster has no point in time: search_after without one */
    int es_pit;     /* the cluster's point in time is Elasticsearch's /<index>/_pit API (it has
                       no /_search/point_in_time, OpenSearch's) */
    uint64_t *nreq; /* requests started per query (profile sampling) */
};

static void set_fatal(bf_search_t *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_fatal(bf_search_t *s, const char *fmt, ...)
{
    if (atomic_load(&s->fatal_set))
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->fatal, sizeof s->fatal, fmt, ap);
    va_end(ap);
    atomic_store(&s->fatal_set, 1);
    atomic_store(&s->abort_flag, 1);
}

/* The bucket of now for query qi (clock read under the lock, as bf_worker's). */
static bf_qstats_t *bucket_now(bf_search_t *s, uint32_t qi)
{
    uint64_t now = bf_clock_mono_us();
    uint64_t start = s->cfg.start_mono_us;
    int32_t sec = now > start ? (int32_t)((now - start) / 1000000u) : 0;
    qbucket *b = &s->ring[sec % QRING];
    if (b->second != sec && b->second < 0)
        b->second = sec;
    /* else: the sampler fell QRING seconds behind; counted under the older second */
    if (b->second == sec && sec > atomic_load(&s->last_second))
        atomic_store(&s->last_second, sec);
    return &b->q[qi];
}

static size_t on_body(char *p, size_t size, size_t n, void *ud)
{
    qslot *q = ud;
    size_t len = size * n;
    if (q->resp.len + len > BF_MAX_SEARCH_RESPONSE_BYTES)
        q->too_large = 1;
    else
        bf_buf_append(&q->resp, p, len);
    return len;
}

static const char *transport_type(CURLcode cc)
{
    switch (cc) {
    case CURLE_OPERATION_TIMEDOUT: return "timeout";
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST: return "connect";
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_GOT_NOTHING: return "reset";
    default: return "transport";
    }
}

/* The query is wrong, not the cluster busy: no point sending it for the rest of the cell. */
static int status_is_fatal(long status)
{
    return status == 400 || status == 401 || status == 403 || status == 404 || status == 405;
}

static void send_page(bf_search_t *s, qslot *q);
static void end_sequence(bf_search_t *s, qslot *q);

/* Reads what the next page needs from a page's answer: the last hit's sort values and the
 * point in time's id (it may change between pages). Returns the hits of this page. */
static size_t page_state(qslot *q)
{
    json_t *j = json_loadb(q->resp.data, q->resp.len, 0, NULL);
    json_t *hits = json_object_get(json_object_get(j, "hits"), "hits");
    size_t n = json_array_size(hits);
    json_t *last = n ? json_object_get(json_array_get(hits, n - 1), "sort") : NULL;
    json_decref(q->after);
    q->after = last ? json_incref(last) : NULL;
    const char *pit = json_string_value(json_object_get(j, "pit_id"));
    if (pit && strlen(pit) < sizeof q->pit_id)
        memcpy(q->pit_id, pit, strlen(pit) + 1);
    json_decref(j);
    return n;
}

static void open_pit(bf_search_t *s, qslot *q);

/* when the load ends: the planned load time, or earlier (bf_search_end_load_at) */
static uint64_t load_end_us(bf_search_t *s)
{
    uint32_t e = atomic_load(&s->end_load_ms);
    return s->cfg.start_mono_us + (e ? e : s->cfg.load_ms) * 1000u;
}

/* The point in time opened (its id kept: OpenSearch answers "pit_id", Elasticsearch "id"), or
 * the cluster has none: the pages go without. OpenSearch's API missing (400/404/405), the
 * sequence tries Elasticsearch's before it pages without one. */
static void on_pit_open(bf_search_t *s, qslot *q, CURLcode cc, long status)
{
    json_t *j = cc == CURLE_OK ? json_loadb(q->resp.data, q->resp.len, 0, NULL) : NULL;
    const char *id = json_string_value(json_object_get(j, s->es_pit ? "id" : "pit_id"));
    if (status / 100 == 2 && id && strlen(id) < sizeof q->pit_id) {
        memcpy(q->pit_id, id, strlen(id) + 1);
    } else {
        q->pit_id[0] = '\0';
        if (cc == CURLE_OK && (status == 400 || status == 404 || status == 405)) {
            json_decref(j);
            if (!s->es_pit) {
                s->es_pit = 1; /* Elasticsearch: POST /<index>/_pit */
                open_pit(s, q);
                return;
            }
            s->no_pit = 1; /* neither (OpenSearch < 2.4, Elasticsearch < 7.10): search_after */
            send_page(s, q);
            return;
        }
    }
    json_decref(j);
    send_page(s, q);
}

static void on_done(bf_search_t *s, qslot *q, CURLcode cc)
{
    uint64_t done = bf_clock_mono_us();
    long status = 0;
    curl_easy_getinfo(q->h, CURLINFO_RESPONSE_CODE, &status);
    if (q->ps == PS_PIT_OPEN) {
        on_pit_open(s, q, cc, status);
        return;
    }
    if (q->ps == PS_PIT_CLOSE) { /* not counted: the sequence was */
        q->ps = PS_ONE;
        q->busy = 0;
        atomic_fetch_sub(&s->inflight, 1);
        return;
    }
    const bf_query_spec_t *qs = &s->spec->queries[q->query];
    bf_qanswer_t a;
    bf_qitems_t items;
    int ok = 0, multi = qs->msearch && q->ps == PS_ONE;
    char type[BF_QERR_TYPE_LEN] = "";
    if (cc != CURLE_OK) {
        snprintf(type, sizeof type, "%s", transport_type(cc));
        memset(&a, 0, sizeof a);
    } else if (q->too_large) {
        snprintf(type, sizeof type, "response_too_large");
        memset(&a, 0, sizeof a);
    } else if (multi && status >= 200 && status < 300) {
        /* an _msearch answer: every search in it counted by its own item */
        memset(&a, 0, sizeof a);
        bf_qstats_parse_msearch(q->resp.data, q->resp.len, q->nsearch, &items);
        ok = 1;
        if (items.bad_item >= 0)
            set_fatal(s,
                      "search query '%s' (%s %s) failed: search %d of its _msearch (lines "
                      "%d-%d of the body) answered HTTP %ld %s%s%s; fix search.queries[%u] (that "
                      "header or body) or the index it searches",
                      qs->name, qs->post ? "POST" : "GET", s->urls[q->query][q->host],
                      items.bad_item + 1, 2 * items.bad_item + 1, 2 * items.bad_item + 2,
                      items.bad_status, items.bad_type, items.bad_reason[0] ? ": " : "",
                      items.bad_reason, q->query);
    } else {
        bf_qstats_parse_answer(q->resp.data, q->resp.len, &a);
        if (status >= 200 && status < 300 && a.json_ok)
            ok = 1;
        else if (status >= 200 && status < 300)
            snprintf(type, sizeof type, "bad_response");
        else if (a.error_type[0])
            snprintf(type, sizeof type, "%s", a.error_type);
        else
            snprintf(type, sizeof type, "http_%ld", status);
        if (!ok && status_is_fatal(status)) {
            const char *path = s->urls[q->query][q->host];
            char hint[400];
            bf_cluster_script_hint(q->resp.data, hint, sizeof hint);
            set_fatal(s,
                      "search query '%s' (%s %s) failed: HTTP %ld %s%s%s; fix "
                      "search.queries[%u] (its path or body) or the index it searches%s",
                      qs->name, qs->post ? "POST" : "GET", path, status, type,
                      a.error_reason[0] ? ": " : "", a.error_reason, q->query, hint);
        }
    }
    bf_qprofile_t prof = {0};
    if (ok && q->profiled)
        bf_qstats_profile_parse(q->resp.data, q->resp.len,
                                done > q->sent_us ? done - q->sent_us : 1, &prof);
    pthread_mutex_lock(&s->lock);
    bf_qstats_t *b = bucket_now(s, q->query);
    bf_qprofile_keep_slower(&b->prof, &prof);
    uint64_t nsearch = q->nsearch ? q->nsearch : 1;
    if (multi && ok) {
        bf_qstats_add_items(b, &items);
    } else if (multi) {
        bf_qstats_error(b, type, nsearch); /* the whole request failed: each of its searches */
    } else if (ok) {
        b->ops_ok++;
        b->timed_out += (uint64_t)a.timed_out;
        b->shard_failures += a.shard_failures;
        b->hits += a.hits;
        if (a.has_took) {
            b->took_ms += a.took_ms;
            b->took_count++;
        }
    } else {
        bf_qstats_error(b, type, 1);
    }
    /* one value per search: an _msearch's searches all waited for the whole answer */
    uint64_t nrec = multi ? nsearch : 1;
    bf_hist_record_n(b->svc, done > q->sent_us ? done - q->sent_us : 1, nrec);
    bf_hist_record_n(b->lat, done > q->intended_us ? done - q->intended_us : 1, nrec);
    pthread_mutex_unlock(&s->lock);
    bf_qprofile_clear(&prof);
    if (q->ps == PS_PAGE) {
        /* the next page at once (pages of one sequence are back to back), until the depth,
         * the last hit, an error or the end of the load time */
        size_t hits = ok ? page_state(q) : 0;
        uint64_t load_end = load_end_us(s);
        q->page++;
        if (ok && hits > 0 && (uint64_t)q->page * qs->page_size < qs->depth &&
            bf_clock_mono_us() < load_end && !atomic_load(&s->abort_flag) &&
            !atomic_load(&s->load_ended)) {
            q->intended_us = bf_clock_mono_us();
            send_page(s, q);
        } else {
            end_sequence(s, q);
        }
        return;
    }
    q->busy = 0;
    atomic_fetch_sub(&s->inflight, 1);
}

static uint32_t pick_query(bf_search_t *s)
{
    uint64_t r = bf_rng_below(&s->rng, s->weight_total);
    for (uint32_t i = 0; i < s->nq; i++) {
        uint64_t w = s->spec->queries[i].weight;
        if (r < w)
            return i;
        r -= w;
    }
    return (uint32_t)s->nq - 1;
}

/* The index part of a query's URL, for point-in-time calls: "/idx1,idx2". */
static void index_path(const bf_cell_t *cell, bf_buf_t *b)
{
    bf_buf_appendz(b, "/");
    for (uint32_t k = 0; k < cell->indices; k++)
        bf_buf_appendf(b, "%s%s", k ? "," : "", cell->index_names[k]);
}

/* Profile sampling: 1 in BF_PROFILE_EVERY requests of a query with profile: true. */
static int want_profile(bf_search_t *s, uint32_t qi)
{
    if (!s->spec->queries[qi].profile)
        return 0;
    return s->nreq[qi]++ % BF_PROFILE_EVERY == 0;
}

/* Adds "profile": true to the JSON body in q->body (an empty body becomes {"profile":true}). */
static void add_profile(qslot *q)
{
    json_t *b = q->body.len ? json_loadb(q->body.data, q->body.len, 0, NULL) : json_object();
    if (!json_is_object(b)) {
        json_decref(b);
        return; /* not an object (the loader checked it is): leave it */
    }
    json_object_set_new(b, "profile", json_true());
    char *txt = json_dumps(b, JSON_COMPACT);
    json_decref(b);
    bf_buf_reset(&q->body);
    if (txt)
        bf_buf_appendz(&q->body, txt);
    free(txt);
    q->profiled = 1;
}

/* Puts the request of q's current state on the wire (body already in q->body for pages). */
static void transmit(bf_search_t *s, qslot *q, const char *url, const char *method, int counted)
{
    bf_buf_reset(&q->resp);
    q->too_large = 0;
    curl_easy_setopt(q->h, CURLOPT_URL, url);
    int nd = q->ps == PS_ONE && s->spec->queries[q->query].msearch;
    curl_easy_setopt(q->h, CURLOPT_HTTPHEADER, nd ? s->hdr_nd : s->hdr);
    const bf_target_t *t = s->cfg.cell->target;
    if (t->auth == BF_AUTH_AWS) {
        /* signed with its body (an empty one for a GET without): the headers of this request */
        struct curl_slist *h = NULL;
        for (const struct curl_slist *p = nd ? s->hdr_nd : s->hdr; p; p = p->next)
            h = curl_slist_append(h, p->data);
        char *su = NULL;
        bf_diag_t d = {0};
        if (bf_aws_sign(t, method, url, q->body.len ? q->body.data : NULL, q->body.len, &h, &su,
                        &d) != BF_OK) {
            curl_slist_free_all(h);
            set_fatal(s, "search: cannot sign a request: %s", d.msg);
            return;
        }
        curl_easy_setopt(q->h, CURLOPT_HTTPHEADER, h);
        curl_slist_free_all(q->sig_hdr);
        q->sig_hdr = h;
        if (su) {
            curl_easy_setopt(q->h, CURLOPT_URL, su);
            free(q->sig_url);
            q->sig_url = su;
        }
    }
    if (strcmp(method, "GET") == 0 && q->body.len == 0) {
        curl_easy_setopt(q->h, CURLOPT_HTTPGET, 1L);
        curl_easy_setopt(q->h, CURLOPT_CUSTOMREQUEST, NULL);
    } else {
        curl_easy_setopt(q->h, CURLOPT_POSTFIELDS, q->body.len ? q->body.data : "");
        curl_easy_setopt(q->h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)q->body.len);
        curl_easy_setopt(q->h, CURLOPT_CUSTOMREQUEST, strcmp(method, "POST") ? method : NULL);
    }
    if (counted) {
        pthread_mutex_lock(&s->lock);
        bucket_now(s, q->query)->ops_sent += q->nsearch ? q->nsearch : 1;
        pthread_mutex_unlock(&s->lock);
    }
    q->sent_us = bf_clock_mono_us();
    if (!q->busy) {
        q->busy = 1;
        atomic_fetch_add(&s->inflight, 1);
    }
    curl_multi_add_handle(s->multi, q->h);
}

/* One page of q's sequence: the base body with size and from / search_after (and the point in
 * time, whose searches go to /_search without an index). */
static void send_page(bf_search_t *s, qslot *q)
{
    const bf_query_spec_t *qs = &s->spec->queries[q->query];
    json_t *b = json_deep_copy(q->base);
    uint32_t from = q->page * qs->page_size;
    uint32_t size = qs->depth - from < qs->page_size ? qs->depth - from : qs->page_size;
    json_object_set_new(b, "size", json_integer(size));
    if (qs->paging == BF_PAGING_FROM) {
        json_object_set_new(b, "from", json_integer(from));
    } else if (q->after) {
        json_object_set(b, "search_after", q->after);
    }
    q->profiled = want_profile(s, q->query);
    if (q->profiled)
        json_object_set_new(b, "profile", json_true());
    if (q->pit_id[0]) {
        json_t *pit = json_object();
        json_object_set_new(pit, "id", json_string(q->pit_id));
        json_object_set_new(pit, "keep_alive", json_string(PIT_KEEP_ALIVE));
        json_object_set_new(b, "pit", pit);
    }
    char *txt = json_dumps(b, JSON_COMPACT);
    json_decref(b);
    bf_buf_reset(&q->body);
    if (txt)
        bf_buf_appendz(&q->body, txt);
    free(txt);
    q->ps = PS_PAGE;
    if (q->pit_id[0]) {
        char *url = bf_asprintf("%s/_search", s->cfg.cell->target->hosts[q->host]);
        transmit(s, q, url, "POST", 1);
        free(url);
    } else {
        transmit(s, q, s->urls[q->query][q->host], qs->post ? "POST" : "GET", 1);
    }
}

/* Ends q's paged sequence: closes its point in time (not counted), or frees the client. */
static void end_sequence(bf_search_t *s, qslot *q)
{
    json_decref(q->base);
    json_decref(q->after);
    q->base = q->after = NULL;
    if (q->pit_id[0]) {
        json_t *b = s->es_pit ? json_pack("{s:s}", "id", q->pit_id)
                              : json_pack("{s:[s]}", "pit_id", q->pit_id);
        char *txt = json_dumps(b, JSON_COMPACT);
        json_decref(b);
        bf_buf_reset(&q->body);
        if (txt)
            bf_buf_appendz(&q->body, txt);
        free(txt);
        q->pit_id[0] = '\0';
        q->ps = PS_PIT_CLOSE;
        char *url = bf_asprintf(s->es_pit ? "%s/_pit" : "%s/_search/point_in_time",
                                s->cfg.cell->target->hosts[q->host]);
        transmit(s, q, url, "DELETE", 0);
        free(url);
        return;
    }
    q->ps = PS_ONE;
    q->busy = 0;
    atomic_fetch_sub(&s->inflight, 1);
}

/* Opens q's point in time (not counted): OpenSearch's POST /<index>/_search/point_in_time, or
 * Elasticsearch's POST /<index>/_pit once the cluster has shown it has no OpenSearch API. */
static void open_pit(bf_search_t *s, qslot *q)
{
    bf_buf_t u;
    bf_buf_init(&u, 0);
    bf_buf_appendz(&u, s->cfg.cell->target->hosts[q->host]);
    index_path(s->cfg.cell, &u);
    bf_buf_appendz(&u, s->es_pit ? "/_pit?keep_alive=" PIT_KEEP_ALIVE
                                 : "/_search/point_in_time?keep_alive=" PIT_KEEP_ALIVE);
    bf_buf_reset(&q->body);
    q->ps = PS_PIT_OPEN;
    transmit(s, q, u.data, "POST", 0);
    bf_buf_cleanup(&u);
}

/* Starts one query on free slot q; intended_us is when it was due. */
static void send_query(bf_search_t *s, qslot *q, uint64_t intended_us)
{
    /* a client's first query is its own (client i: query i mod n), so every query is measured
     * from the first second when there are as many clients as queries; then by weight */
    uint32_t qi = q->started ? pick_query(s) : (uint32_t)((size_t)(q - s->slots) % s->nq);
    q->started = 1;
    const bf_query_spec_t *qs = &s->spec->queries[qi];
    bf_buf_reset(&q->body);
    if (s->tmpl[qi]) {
        int rc = bf_tmpl_render_body(s->tmpl[qi], s->gen[qi], &q->body);
        if (rc != BF_OK) {
            set_fatal(s, "search query '%s': its body cannot be rendered (%s); a sequence "
                      "variable without wrap ran out, or the body is over %u bytes", qs->name,
                      bf_strerror(rc), BODY_CAP);
            return;
        }
    }
    pthread_mutex_lock(&s->lock);
    bucket_now(s, qi)->started++;
    pthread_mutex_unlock(&s->lock);
    q->query = qi;
    q->intended_us = intended_us;
    q->page = 0;
    q->profiled = 0;
    q->nsearch = 1;
    if (qs->msearch) {
        /* header/body line pairs (the compiler keeps one '\n' per line, the last included) */
        uint32_t lines = 0;
        for (size_t k = 0; k < q->body.len; k++)
            lines += q->body.data[k] == '\n';
        q->nsearch = lines / 2 ? lines / 2 : 1;
    }
    if (qs->paging == BF_PAGING_NONE) {
        q->ps = PS_ONE;
        if (want_profile(s, qi))
            add_profile(q);
        transmit(s, q, s->urls[qi][q->host], qs->post ? "POST" : "GET", 1);
        return;
    }
    q->base = json_loadb(q->body.data, q->body.len, 0, NULL);
    if (!json_is_object(q->base)) {
        json_decref(q->base);
        q->base = json_object();
    }
    if (qs->pit && !s->no_pit) {
        open_pit(s, q);
        return;
    }
    send_page(s, q);
}

static void abandon_all(bf_search_t *s)
{
    for (uint32_t i = 0; i < s->cfg.clients; i++) {
        qslot *q = &s->slots[i];
        if (!q->busy)
            continue;
        curl_multi_remove_handle(s->multi, q->h);
        pthread_mutex_lock(&s->lock);
        if (q->ps != PS_PIT_OPEN && q->ps != PS_PIT_CLOSE)
            bf_qstats_error(bucket_now(s, q->query), "aborted", q->nsearch ? q->nsearch : 1);
        pthread_mutex_unlock(&s->lock);
        json_decref(q->base);
        json_decref(q->after);
        q->base = q->after = NULL;
        q->ps = PS_ONE;
        q->busy = 0;
        atomic_fetch_sub(&s->inflight, 1);
    }
}

static void *run(void *arg)
{
    bf_search_t *s = arg;
    const bf_search_cfg_t *cfg = &s->cfg;
    uint64_t start = cfg->start_mono_us;
    uint64_t load_end = start + cfg->load_ms * 1000u;
    uint64_t timeout_us = bf_scenario_request(cfg->sc)->timeout_ms * 1000u;
    uint64_t hard_end = load_end + timeout_us + 2000000u;
    double interval_us = cfg->target_rate > 0 ? 1e6 / cfg->target_rate : 0;
    double next_due = (double)start;
    uint64_t now = bf_clock_mono_us();
    while (now < start && !atomic_load(&s->abort_flag)) {
        uint64_t left = start - now;
        bf_clock_sleep_us(left < 50000 ? left : 50000);
        now = bf_clock_mono_us();
    }
    for (;;) {
        now = bf_clock_mono_us();
        if (load_end_us(s) < load_end) { /* bf_search_end_load_at: the load ends earlier */
            load_end = load_end_us(s);
            hard_end = load_end + timeout_us + 2000000u;
        }
        if (atomic_load(&s->abort_flag) || now > hard_end) {
            abandon_all(s);
            break;
        }
        int loading = now < load_end && !atomic_load(&s->load_ended);
        uint64_t wake_us = now + IDLE_POLL_MS * 1000u;
        for (uint32_t i = 0; loading && i < cfg->clients; i++) {
            qslot *q = &s->slots[i];
            if (q->busy)
                continue;
            if (interval_us == 0) {
                send_query(s, q, now);
                continue;
            }
            if ((double)now < next_due) {
                if ((uint64_t)next_due < wake_us)
                    wake_us = (uint64_t)next_due;
                break;
            }
            uint64_t due = (uint64_t)next_due;
            next_due += interval_us;
            if (next_due >= (double)load_end)
                next_due = (double)load_end; /* nothing is due after the load time */
            send_query(s, q, due);
        }
        if (atomic_load(&s->abort_flag))
            continue;
        if (!loading && atomic_load(&s->inflight) == 0)
            break;
        int running = 0;
        curl_multi_perform(s->multi, &running);
        CURLMsg *m;
        int left, answered = 0;
        while ((m = curl_multi_info_read(s->multi, &left)) != NULL) {
            if (m->msg != CURLMSG_DONE)
                continue;
            qslot *q = NULL;
            curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&q);
            CURLcode cc = m->data.result;
            curl_multi_remove_handle(s->multi, m->easy_handle);
            on_done(s, q, cc);
            answered++;
        }
        /* a client answered just now is free: its next query goes at once (closed loop) or
         * when due (open loop: the top of the loop computes it), not after an idle poll on a
         * descriptor that has nothing more to say (one client made ~18 queries/s so) */
        if (answered && loading)
            continue;
        now = bf_clock_mono_us();
        int wait_ms = wake_us > now ? (int)((wake_us - now + 999) / 1000) : 0;
        if (wait_ms > IDLE_POLL_MS)
            wait_ms = IDLE_POLL_MS;
        curl_multi_poll(s->multi, NULL, 0, wait_ms, NULL);
    }
    atomic_store(&s->finished, 1);
    return NULL;
}

/* "/{index}/_search" with the cell's index names joined by ',' (index names cannot hold ','). */
static char *make_url(const char *host, const char *path, const bf_cell_t *cell)
{
    bf_buf_t b;
    bf_buf_init(&b, 0);
    bf_buf_appendz(&b, host);
    for (const char *p = path; *p; p++) {
        if (strncmp(p, "{index}", 7) == 0) {
            for (uint32_t k = 0; k < cell->indices; k++) {
                if (k)
                    bf_buf_appendz(&b, ",");
                bf_buf_appendz(&b, cell->index_names[k]);
            }
            p += 6;
            continue;
        }
        bf_buf_append(&b, p, 1);
    }
    return bf_buf_steal(&b);
}

bf_search_t *bf_search_new(const bf_search_cfg_t *cfg, bf_diag_t *diag)
{
    const bf_search_spec_t *spec = bf_scenario_search(cfg->sc);
    if (!spec->enabled || spec->nqueries == 0 || cfg->clients == 0) {
        bf_diag_set(diag, BF_E_INVAL, "search clients without a search section or clients");
        return NULL;
    }
    bf_search_t *s = bf_calloc(1, sizeof *s);
    s->cfg = *cfg;
    s->spec = spec;
    s->nq = spec->nqueries;
    atomic_init(&s->last_second, -1);
    atomic_init(&s->end_load_ms, 0u);
    pthread_mutex_init(&s->lock, NULL);
    bf_rng_seed(&s->rng, cfg->part.seed ^ 0x5EA4C4ull, cfg->part.stream_index);
    for (int r = 0; r < QRING; r++) {
        s->ring[r].second = -1;
        s->ring[r].q = bf_calloc(s->nq, sizeof *s->ring[r].q);
        for (size_t i = 0; i < s->nq; i++)
            bf_qstats_init(&s->ring[r].q[i]);
    }
    const bf_target_t *t = cfg->cell->target;
    s->tmpl = bf_calloc(s->nq, sizeof *s->tmpl);
    s->nreq = bf_calloc(s->nq, sizeof *s->nreq);
    s->gen = bf_calloc(s->nq, sizeof *s->gen);
    s->urls = bf_calloc(s->nq, sizeof *s->urls);
    for (size_t i = 0; i < s->nq; i++) {
        const bf_query_spec_t *q = &spec->queries[i];
        s->weight_total += q->weight;
        s->urls[i] = bf_calloc(t->nhosts, sizeof *s->urls[i]);
        for (size_t h = 0; h < t->nhosts; h++)
            s->urls[i][h] = make_url(t->hosts[h], q->path, cfg->cell);
        if (q->body == NULL)
            continue;
        char what[96];
        snprintf(what, sizeof what, "search.queries[%zu].body", i);
        int rc = q->msearch ? bf_tmpl_compile_ndjson_body(cfg->sc, q->body, what, &s->tmpl[i], diag)
                            : bf_tmpl_compile_body(cfg->sc, q->body, what, &s->tmpl[i], diag);
        if (rc != BF_OK) {
            bf_search_destroy(&s);
            return NULL;
        }
        bf_partition_t p = cfg->part;
        p.seed ^= 0x9E3779B97F4A7C15ull * (i + 1); /* each query its own draws */
        s->gen[i] = bf_gen_new(s->tmpl[i], &p);
    }
    s->multi = curl_multi_init();
    s->hdr = NULL;
    s->slots = bf_calloc(cfg->clients, sizeof *s->slots);
    for (uint32_t i = 0; i < cfg->clients; i++) {
        qslot *q = &s->slots[i];
        q->s = s;
        q->host = (cfg->host_base + i) % (uint32_t)t->nhosts;
        bf_buf_init(&q->body, BODY_CAP);
        bf_buf_init(&q->resp, BF_MAX_SEARCH_RESPONSE_BYTES);
        q->h = curl_easy_init();
        curl_easy_setopt(q->h, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
        curl_easy_setopt(q->h, CURLOPT_USERAGENT, "bulkfleet-agent/" BF_VERSION);
        curl_easy_setopt(q->h, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(q->h, CURLOPT_TIMEOUT_MS, (long)bf_scenario_request(cfg->sc)->timeout_ms);
        curl_easy_setopt(q->h, CURLOPT_CONNECTTIMEOUT_MS,
                         t->connect_timeout_ms ? (long)t->connect_timeout_ms : 10000L);
        curl_easy_setopt(q->h, CURLOPT_WRITEFUNCTION, on_body);
        curl_easy_setopt(q->h, CURLOPT_WRITEDATA, q);
        curl_easy_setopt(q->h, CURLOPT_PRIVATE, (char *)q);
        curl_easy_setopt(q->h, CURLOPT_TCP_NODELAY, 1L);
        curl_easy_setopt(q->h, CURLOPT_TCP_KEEPALIVE, 1L);
        if (i == 0) {
            bf_es_apply_target(q->h, t, &s->hdr);
            s->hdr = curl_slist_append(s->hdr, "Content-Type: application/json");
            s->hdr = curl_slist_append(s->hdr, "Accept: application/json");
            s->hdr = curl_slist_append(s->hdr, "Expect:");
            bf_es_apply_target(q->h, t, &s->hdr_nd);
            s->hdr_nd = curl_slist_append(s->hdr_nd, "Content-Type: application/x-ndjson");
            s->hdr_nd = curl_slist_append(s->hdr_nd, "Accept: application/json");
            s->hdr_nd = curl_slist_append(s->hdr_nd, "Expect:");
        } else {
            struct curl_slist *unused = NULL;
            bf_es_apply_target(q->h, t, &unused);
            curl_slist_free_all(unused);
        }
    }
    for (uint32_t i = 0; i < cfg->clients; i++)
        curl_easy_setopt(s->slots[i].h, CURLOPT_HTTPHEADER, s->hdr);
    return s;
}

int bf_search_start(bf_search_t *s, uint64_t start_mono_us)
{
    s->cfg.start_mono_us = start_mono_us;
    if (pthread_create(&s->thread, NULL, run, s) != 0)
        return BF_E_IO;
    s->started = 1;
    return BF_OK;
}

void bf_search_abort(bf_search_t *s)
{
    atomic_store(&s->abort_flag, 1);
    if (s->multi)
        curl_multi_wakeup(s->multi);
}

void bf_search_end_load_at(bf_search_t *s, uint32_t end_load_ms)
{
    if (end_load_ms == 0 || end_load_ms >= s->cfg.load_ms)
        return;
    atomic_store(&s->end_load_ms, end_load_ms);
    if (s->multi)
        curl_multi_wakeup(s->multi);
}

void bf_search_end_load(bf_search_t *s)
{
    atomic_store(&s->load_ended, 1);
    if (s->multi)
        curl_multi_wakeup(s->multi);
}

int bf_search_finished(bf_search_t *s)
{
    return !s->started || atomic_load(&s->finished);
}

size_t bf_search_query_count(const bf_search_t *s)
{
    return s->nq;
}

int bf_search_collect(bf_search_t *s, int32_t second, bf_qstats_t *q)
{
    int had = 0;
    pthread_mutex_lock(&s->lock);
    qbucket *b = &s->ring[second % QRING];
    if (b->second == second) {
        for (size_t i = 0; i < s->nq; i++) {
            bf_qstats_add(&q[i], &b->q[i]);
            bf_qstats_reset(&b->q[i]);
        }
        b->second = -1;
        had = 1;
    }
    pthread_mutex_unlock(&s->lock);
    return had;
}

int32_t bf_search_last_second(bf_search_t *s)
{
    return atomic_load(&s->last_second);
}

uint32_t bf_search_inflight(bf_search_t *s)
{
    return atomic_load(&s->inflight);
}

const char *bf_search_fatal(bf_search_t *s)
{
    return atomic_load(&s->fatal_set) ? s->fatal : "";
}

void bf_search_destroy(bf_search_t **s_p)
{
    if (s_p == NULL || *s_p == NULL)
        return;
    bf_search_t *s = *s_p;
    if (s->started) {
        bf_search_abort(s);
        pthread_join(s->thread, NULL);
    }
    for (uint32_t i = 0; s->slots && i < s->cfg.clients; i++) {
        qslot *q = &s->slots[i];
        if (q->busy)
            curl_multi_remove_handle(s->multi, q->h);
        curl_easy_cleanup(q->h);
        curl_slist_free_all(q->sig_hdr);
        free(q->sig_url);
        json_decref(q->base);
        json_decref(q->after);
        bf_buf_cleanup(&q->body);
        bf_buf_cleanup(&q->resp);
    }
    free(s->slots);
    if (s->multi)
        curl_multi_cleanup(s->multi);
    curl_slist_free_all(s->hdr);
    curl_slist_free_all(s->hdr_nd);
    const bf_target_t *t = s->cfg.cell->target;
    for (size_t i = 0; i < s->nq; i++) {
        bf_gen_destroy(&s->gen[i]);
        bf_tmpl_destroy(&s->tmpl[i]);
        for (size_t h = 0; s->urls && s->urls[i] && h < t->nhosts; h++)
            free(s->urls[i][h]);
        if (s->urls)
            free(s->urls[i]);
    }
    free(s->gen);
    free(s->tmpl);
    free(s->nreq);
    free(s->urls);
    for (int r = 0; r < QRING; r++) {
        for (size_t i = 0; s->ring[r].q && i < s->nq; i++)
            bf_qstats_cleanup(&s->ring[r].q[i]);
        free(s->ring[r].q);
    }
    pthread_mutex_destroy(&s->lock);
    free(s);
    *s_p = NULL;
}
