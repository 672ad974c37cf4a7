/* SPDX-License-Identifier: MIT */
/* bf_telemetry.c — per-second cluster telemetry for a cell, on its own thread.
 *
 * The thread only does HTTP and parsing into tick records; everything derived (deltas, the
 * window, the summary, the ndjson text) is computed after it was joined, from the same tick
 * records tests feed by hand through bf__telemetry_ingest.
 */
#include "bf_telemetry.h"

#include "bf_clock.h"
#include "bf_es.h"
#include "bf_log.h"
#include "bf_mem.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* One tick: what one round of requests returned. */
typedef struct tick {
    uint64_t mono_us;          /* request midpoint */
    bf_node_stats_t *nodes;    /* sorted by name; NULL when the request failed */
    size_t nnodes;
    int64_t primaries_total;   /* -1 unknown */
    char *error;               /* why the tick failed, or NULL */
} tick;

struct bf_telemetry {
    const bf_target_t *target; /* borrowed; NULL: fed by hand */
    bf_es_t *es;               /* used by the sampling thread while a cell runs, else by probe */
    bf_product_t product;
    int have_product;

    /* the current cell */
    char *index_list;
    uint64_t start_mono_us;
    uint32_t warmup_s, duration_s; /* the window; duration_s shortened by stop_at */
    uint32_t planned_duration_s;
    tick *ticks;
    size_t nticks, cap;
    int begun;

    pthread_t thread;
    int running;               /* a thread was created and not yet joined */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int stop;                  /* under mu */
    int exited;                /* under mu: the thread is done (bf_telemetry_stop waits for it) */
    void (*tick)(void *ctx);   /* bf_telemetry_set_tick: run while stop waits (not a `tick`) */
    void *tick_ctx;
    unsigned tick_ms;
};

/* ---- parsing ------------------------------------------------------------------------------ */

static void parse_version(const char *num, int *major, int *minor)
{
    *major = *minor = 0;
    if (num == NULL)
        return;
    char *end = NULL;
    long ma = strtol(num, &end, 10);
    if (end == num)
        return;
    *major = (int)ma;
    if (*end == '.') {
        const char *p = end + 1;
        long mi = strtol(p, &end, 10);
        if (end != p)
            *minor = (int)mi;
    }
}

int bf_telemetry_parse_product(const char *body, bf_product_t *out)
{
    memset(out, 0, sizeof *out);
    json_t *j = body ? json_loads(body, 0, NULL) : NULL;
    json_t *ver = json_object_get(j, "version");
    const char *num = json_string_value(json_object_get(ver, "number"));
    if (num == NULL) {
        json_decref(j);
        return BF_E_PARSE;
    }
    const char *dist = json_string_value(json_object_get(ver, "distribution"));
    const char *flavor = json_string_value(json_object_get(ver, "build_flavor"));
    const char *tagline = json_string_value(json_object_get(j, "tagline"));
    bf_strlcpy(out->version, num, sizeof out->version);
    bf_strlcpy(out->flavor, flavor ? flavor : "", sizeof out->flavor);
    if (dist && strcmp(dist, "opensearch") == 0) {
        bf_strlcpy(out->distribution, "opensearch", sizeof out->distribution);
    } else if ((tagline && strstr(tagline, "OpenSearch")) ||
               (strcmp(num, "7.10.2") == 0 && flavor == NULL)) {
        bf_strlcpy(out->distribution, "opensearch", sizeof out->distribution);
        out->compat_mode = 1;
    } else {
        bf_strlcpy(out->distribution, dist ? dist : "elasticsearch", sizeof out->distribution);
    }
    parse_version(out->version, &out->major, &out->minor);
    json_decref(j);
    return BF_OK;
}

static int64_t get_i64(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_integer(v) ? (int64_t)json_integer_value(v) : -1;
}

static int cmp_node(const void *x, const void *y)
{
    const bf_node_stats_t *a = x, *b = y;
    int c = strcmp(a->name, b->name);
    return c ? c : strcmp(a->id, b->id);
}

int bf_telemetry_parse_nodes(const char *body, bf_node_stats_t **nodes_out, size_t *n_out)
{
    *nodes_out = NULL;
    *n_out = 0;
    json_t *j = body ? json_loads(body, 0, NULL) : NULL;
    json_t *nodes = json_object_get(j, "nodes");
    if (!json_is_object(nodes)) {
        json_decref(j);
        return BF_E_PARSE;
    }
    size_t cap = json_object_size(nodes);
    if (cap > BF_MAX_TELEMETRY_NODES)
        cap = BF_MAX_TELEMETRY_NODES;
    bf_node_stats_t *arr = bf_calloc(cap + 1, sizeof *arr);
    size_t n = 0;
    const char *id;
    json_t *nd;
    json_object_foreach(nodes, id, nd) {
        if (n >= cap)
            break;
        bf_node_stats_t *s = &arr[n++];
        bf_strlcpy(s->id, id, sizeof s->id);
        const char *name = json_string_value(json_object_get(nd, "name"));
        bf_strlcpy(s->name, name ? name : id, sizeof s->name);
        s->ts_ms = get_i64(nd, "timestamp");
        json_t *roles = json_object_get(nd, "roles");
        s->data = 1;
        if (json_is_array(roles)) {
            s->data = 0;
            size_t i;
            json_t *r;
            json_array_foreach(roles, i, r) {
                const char *rs = json_string_value(r);
                if (rs && strncmp(rs, "data", 4) == 0)
                    s->data = 1;
            }
        }
        json_t *tp = json_object_get(nd, "thread_pool");
        json_t *w = json_object_get(tp, "write");
        if (w == NULL)
            w = json_object_get(tp, "bulk"); /* ES <= 6.2 */
        s->queue = get_i64(w, "queue");
        s->active = get_i64(w, "active");
        s->rejected = get_i64(w, "rejected");
        s->write_completed = get_i64(w, "completed");
        json_t *tr = json_object_get(nd, "transport");
        s->transport_rx = get_i64(tr, "rx_size_in_bytes");
        s->transport_tx = get_i64(tr, "tx_size_in_bytes");
        json_t *wc = json_object_get(tp, "write_coordination");
        s->wc_queue = get_i64(wc, "queue");
        s->wc_rejected = get_i64(wc, "rejected");
        json_t *ix = json_object_get(json_object_get(nd, "indices"), "indexing");
        s->index_total = get_i64(ix, "index_total");
        s->index_time_ms = get_i64(ix, "index_time_in_millis");
    }
    json_decref(j);
    qsort(arr, n, sizeof *arr, cmp_node);
    *nodes_out = arr;
    *n_out = n;
    return BF_OK;
}

static int64_t parse_primaries(const char *body)
{
    json_t *j = body ? json_loads(body, 0, NULL) : NULL;
    json_t *ix = json_object_get(json_object_get(json_object_get(json_object_get(j, "_all"),
                                                                 "primaries"), "indexing"),
                                 "index_total");
    int64_t v = json_is_integer(ix) ? (int64_t)json_integer_value(ix) : -1;
    json_decref(j);
    return v;
}

/* ---- lifecycle ---------------------------------------------------------------------------- */

bf_telemetry_t *bf_telemetry_new(const bf_target_t *target)
{
    bf_telemetry_t *t = bf_calloc(1, sizeof *t);
    t->target = target;
    if (target)
        t->es = bf_es_new(target, 0, BF_TELEMETRY_TIMEOUT_MS);
    pthread_mutex_init(&t->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&t->cv, &ca);
    pthread_condattr_destroy(&ca);
    return t;
}

static void reset_cell(bf_telemetry_t *t)
{
    for (size_t i = 0; i < t->nticks; i++) {
        free(t->ticks[i].nodes);
        free(t->ticks[i].error);
    }
    free(t->ticks);
    t->ticks = NULL;
    t->nticks = t->cap = 0;
    free(t->index_list);
    t->index_list = NULL;
    t->begun = 0;
}

void bf_telemetry_destroy(bf_telemetry_t **t_p)
{
    if (t_p == NULL || *t_p == NULL)
        return;
    bf_telemetry_t *t = *t_p;
    bf_telemetry_summary_t sum;
    bf_telemetry_stop(t, &sum, NULL);
    reset_cell(t);
    bf_es_destroy(&t->es);
    pthread_cond_destroy(&t->cv);
    pthread_mutex_destroy(&t->mu);
    free(t);
    *t_p = NULL;
}

void bf__telemetry_set_product(bf_telemetry_t *t, const bf_product_t *p)
{
    t->product = *p;
    t->have_product = 1;
}

int bf_telemetry_probe(bf_telemetry_t *t, bf_product_t *out, bf_diag_t *diag)
{
    if (t->es == NULL || t->running)
        return bf_diag_set(diag, BF_E_STATE, "telemetry: no target, or a cell is running");
    long status = 0;
    const char *body = NULL;
    int rc = bf_es_request(t->es, "GET", "/", NULL, &status, &body, diag);
    if (rc != BF_OK)
        return rc;
    if (status != 200)
        return bf_diag_set(diag, BF_E_HTTP, "GET / on %s: HTTP %ld", bf_es_host(t->es), status);
    bf_product_t p;
    if (bf_telemetry_parse_product(body, &p) != BF_OK)
        return bf_diag_set(diag, BF_E_PARSE, "GET / on %s: no version.number in the answer",
                           bf_es_host(t->es));
    if (p.compat_mode) {
        /* the real version is only on _nodes (docs/internals/es-api.md §3.1) */
        if (bf_es_request(t->es, "GET", "/_nodes/_local?filter_path=nodes.*.version", NULL,
                          &status, &body, NULL) == BF_OK && status == 200) {
            json_t *j = json_loads(body, 0, NULL);
            const char *k;
            json_t *nd;
            json_object_foreach(json_object_get(j, "nodes"), k, nd) {
                const char *v = json_string_value(json_object_get(nd, "version"));
                if (v) {
                    bf_strlcpy(p.version, v, sizeof p.version);
                    parse_version(p.version, &p.major, &p.minor);
                }
                break;
            }
            json_decref(j);
        }
    }
    bf__telemetry_set_product(t, &p);
    if (out)
        *out = p;
    return BF_OK;
}

/* ---- ticks -------------------------------------------------------------------------------- */

void bf__telemetry_begin(bf_telemetry_t *t, const char *index_list, uint64_t start_mono_us,
                         uint32_t warmup_s, uint32_t duration_s)
{
    reset_cell(t);
    t->index_list = bf_strdup(index_list ? index_list : "");
    t->start_mono_us = start_mono_us;
    t->warmup_s = warmup_s;
    t->duration_s = duration_s;
    t->planned_duration_s = duration_s;
    t->begun = 1;
}

void bf_telemetry_set_warmup(bf_telemetry_t *t, uint32_t warmup_s)
{
    t->warmup_s = warmup_s;
}

void bf_telemetry_stop_at(bf_telemetry_t *t, int32_t second)
{
    uint64_t end = second > 0 ? (uint64_t)second : 0;
    if (end < (uint64_t)t->warmup_s + t->duration_s)
        t->duration_s = end > t->warmup_s ? (uint32_t)(end - t->warmup_s) : 0;
}

int bf__telemetry_ingest(bf_telemetry_t *t, uint64_t mono_us, const char *nodes_body,
                         const char *index_body, const char *error)
{
    if (t->nticks >= BF_MAX_TELEMETRY_TICKS)
        return BF_E_RANGE;
    if (t->nticks == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 128;
        t->ticks = bf_realloc(t->ticks, t->cap * sizeof *t->ticks);
    }
    tick *k = &t->ticks[t->nticks++];
    memset(k, 0, sizeof *k);
    k->mono_us = mono_us;
    k->primaries_total = index_body ? parse_primaries(index_body) : -1;
    int rc = BF_OK;
    if (nodes_body == NULL) {
        k->error = bf_strdup(error ? error : "no answer");
    } else if (bf_telemetry_parse_nodes(nodes_body, &k->nodes, &k->nnodes) != BF_OK) {
        k->error = bf_strdup("unreadable _nodes/stats answer");
        rc = BF_E_PARSE;
    }
    return rc;
}

/* filter_path keeps the answer to a few hundred bytes a node (docs/internals/es-api.md §3.2) */
#define NODES_PATH                                                                                 \
    "/_nodes/stats/indices,thread_pool,transport/indexing?filter_path=nodes.*.name,"               \
    "nodes.*.timestamp,nodes.*.transport.rx_size_in_bytes,nodes.*.transport.tx_size_in_bytes,"     \
    "nodes.*.roles,nodes.*.indices.indexing.index_total,"                                          \
    "nodes.*.indices.indexing.index_time_in_millis,nodes.*.thread_pool.write,"                     \
    "nodes.*.thread_pool.bulk,nodes.*.thread_pool.write_coordination"

static int stopping(bf_telemetry_t *t)
{
    pthread_mutex_lock(&t->mu);
    int s = t->stop;
    pthread_mutex_unlock(&t->mu);
    return s;
}

static void take_tick(bf_telemetry_t *t)
{
    uint64_t t0 = bf_clock_mono_us();
    long status = 0;
    const char *body = NULL;
    bf_diag_t d = {0};
    char *nodes_body = NULL;
    char *error = NULL;
    if (bf_es_request(t->es, "GET", NODES_PATH, NULL, &status, &body, &d) != BF_OK)
        error = bf_strdup(d.msg);
    else if (status != 200)
        error = bf_asprintf("_nodes/stats: HTTP %ld", status);
    else
        nodes_body = bf_strdup(body);
    char *index_body = NULL;
    /* a stop during a slow first answer must not wait for a second one */
    if (t->index_list[0] && strlen(t->index_list) < BF_MAX_TELEMETRY_URL && !stopping(t)) {
        char *path = bf_asprintf("/%s/_stats/indexing?level=indices&filter_path="
                                 "_all.primaries.indexing.index_total", t->index_list);
        if (bf_es_request(t->es, "GET", path, NULL, &status, &body, NULL) == BF_OK && status == 200)
            index_body = bf_strdup(body);
        free(path);
    }
    uint64_t t1 = bf_clock_mono_us();
    bf__telemetry_ingest(t, t0 + (t1 - t0) / 2, nodes_body, index_body, error);
    free(nodes_body);
    free(index_body);
    free(error);
}

static void *sampler(void *arg)
{
    bf_telemetry_t *t = arg;
    const uint64_t step = BF_TELEMETRY_INTERVAL_MS * 1000ull;
    for (;;) {
        take_tick(t);
        /* next whole second of t after now: a slow answer skips ticks instead of queueing */
        uint64_t now = bf_clock_mono_us();
        uint64_t next;
        if (now < t->start_mono_us)
            next = t->start_mono_us - ((t->start_mono_us - now) / step) * step;
        else
            next = t->start_mono_us + ((now - t->start_mono_us) / step + 1) * step;
        if (next <= now)
            next += step;
        struct timespec ts = {.tv_sec = (time_t)(next / 1000000u),
                              .tv_nsec = (long)(next % 1000000u) * 1000L};
        pthread_mutex_lock(&t->mu);
        while (!t->stop && bf_clock_mono_us() < next) {
            if (pthread_cond_timedwait(&t->cv, &t->mu, &ts) == ETIMEDOUT)
                break;
        }
        int stop = t->stop;
        pthread_mutex_unlock(&t->mu);
        if (stop || t->nticks >= BF_MAX_TELEMETRY_TICKS)
            break;
    }
    pthread_mutex_lock(&t->mu);
    t->exited = 1;
    pthread_cond_broadcast(&t->cv);
    pthread_mutex_unlock(&t->mu);
    return NULL;
}

int bf_telemetry_start(bf_telemetry_t *t, const bf_cell_t *cell, uint64_t start_mono_us,
                       uint32_t warmup_s, uint32_t duration_s)
{
    if (t->running || t->es == NULL)
        return BF_E_STATE;
    bf_buf_t b;
    bf_buf_init(&b, 0);
    for (uint32_t i = 0; i < cell->indices; i++) {
        if (i)
            bf_buf_append(&b, ",", 1);
        bf_buf_appendz(&b, cell->index_names[i]);
    }
    char *list = bf_buf_steal(&b);
    bf__telemetry_begin(t, list, start_mono_us, warmup_s, duration_s);
    free(list);
    t->stop = 0;
    t->exited = 0;
    if (pthread_create(&t->thread, NULL, sampler, t) != 0) {
        bf_warn("telemetry: cannot start the sampling thread: %s; cell runs without telemetry",
                strerror(errno));
        return BF_E_IO;
    }
    t->running = 1;
    return BF_OK;
}

/* ---- summary ------------------------------------------------------------------------------ */

static double tick_t(const bf_telemetry_t *t, const tick *k)
{
    return ((double)k->mono_us - (double)t->start_mono_us) / 1e6;
}

static const bf_node_stats_t *find_node(const tick *k, const char *id)
{
    for (size_t i = 0; i < k->nnodes; i++)
        if (strcmp(k->nodes[i].id, id) == 0)
            return &k->nodes[i];
    return NULL;
}

/* the answered tick nearest to time `at`, or -1 */
static long nearest(const bf_telemetry_t *t, double at, int need_primaries)
{
    long best = -1;
    double bd = INFINITY;
    for (size_t i = 0; i < t->nticks; i++) {
        const tick *k = &t->ticks[i];
        if (need_primaries ? k->primaries_total < 0 : k->nodes == NULL)
            continue;
        double d = fabs(tick_t(t, k) - at);
        if (d < bd) {
            bd = d;
            best = (long)i;
        }
    }
    return best;
}

static json_t *num_or_null(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *i64_or_null(int64_t v)
{
    return v >= 0 ? json_integer((json_int_t)v) : json_null();
}

static void append_line(bf_buf_t *out, json_t *o)
{
    char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
    bf_buf_appendf(out, "%s\n", s);
    free(s);
    json_decref(o);
}

/* per-node values over the window [base, end] */
typedef struct node_sum {
    const bf_node_stats_t *node; /* as seen in the end tick */
    int64_t queue_max, rejected;
    double rate;
    int64_t completed, rx, tx; /* deltas; -1 unknown */
} node_sum;

/* b - a of a cumulative counter; -1 when either is unknown or it went down (a restart) */
static int64_t delta(int64_t a, int64_t b)
{
    return a >= 0 && b >= a ? b - a : -1;
}

static void summarize(bf_telemetry_t *t, bf_telemetry_summary_t *sum, bf_buf_t *out)
{
    double W = t->warmup_s, E = (double)t->warmup_s + t->duration_s;
    for (size_t i = 0; i < t->nticks; i++) {
        sum->ticks++;
        if (t->ticks[i].nodes == NULL)
            sum->ticks_failed++;
    }
    long b = nearest(t, W, 0), e = nearest(t, E, 0);
    double dt = b >= 0 && e > b ? tick_t(t, &t->ticks[e]) - tick_t(t, &t->ticks[b]) : 0;
    node_sum *ns = NULL;
    size_t nn = 0;
    if (b >= 0 && e > b && dt > 0) {
        const tick *kb = &t->ticks[b], *ke = &t->ticks[e];
        ns = bf_calloc(ke->nnodes + 1, sizeof *ns);
        int64_t qmax = -1, rej = 0, rx_sum = 0, tx_sum = 0;
        int rej_known = 0;
        size_t tr_known = 0;
        double rmax = 0, rsum = 0;
        uint32_t ndata = 0;
        for (size_t i = 0; i < ke->nnodes; i++) {
            const bf_node_stats_t *n1 = &ke->nodes[i];
            const bf_node_stats_t *n0 = find_node(kb, n1->id);
            node_sum *s = &ns[nn++];
            s->node = n1;
            s->queue_max = -1;
            s->rejected = -1;
            s->rate = NAN;
            for (long k = b; k <= e; k++) {
                const bf_node_stats_t *x = t->ticks[k].nodes ? find_node(&t->ticks[k], n1->id) : NULL;
                if (x && x->queue >= 0 && x->queue > s->queue_max)
                    s->queue_max = x->queue;
                if (x && x->wc_queue >= 0 && x->wc_queue > s->queue_max)
                    s->queue_max = x->wc_queue;
            }
            if (n0 && n0->rejected >= 0 && n1->rejected >= 0) {
                /* a counter going down means the node restarted: its delta is unknown */
                s->rejected = n1->rejected >= n0->rejected ? n1->rejected - n0->rejected : -1;
                if (s->rejected >= 0 && n0->wc_rejected >= 0 && n1->wc_rejected >= n0->wc_rejected)
                    s->rejected += n1->wc_rejected - n0->wc_rejected;
            }
            if (n0 && n0->index_total >= 0 && n1->index_total >= n0->index_total)
                s->rate = (double)(n1->index_total - n0->index_total) / dt;
            s->completed = n0 ? delta(n0->write_completed, n1->write_completed) : -1;
            s->rx = n0 ? delta(n0->transport_rx, n1->transport_rx) : -1;
            s->tx = n0 ? delta(n0->transport_tx, n1->transport_tx) : -1;
            if (s->rx >= 0 && s->tx >= 0) {
                rx_sum += s->rx;
                tx_sum += s->tx;
                tr_known++;
            }
            if (s->queue_max > qmax)
                qmax = s->queue_max;
            if (s->rejected >= 0) {
                rej += s->rejected;
                rej_known = 1;
            }
            if (n1->data && isfinite(s->rate)) {
                ndata++;
                rsum += s->rate;
                if (s->rate > rmax)
                    rmax = s->rate;
            }
        }
        sum->write_queue_max = qmax;
        sum->write_rejected = rej_known ? rej : -1;
        sum->hot_spot_ratio = ndata >= 1 && rsum > 0 ? rmax / (rsum / ndata) : NAN;
        /* only when every node's counters are known: a partial sum would understate it */
        if (tr_known == nn && nn > 0) {
            sum->transport_rx_bytes = rx_sum;
            sum->transport_tx_bytes = tx_sum;
        }
    }
    long pb = nearest(t, W, 1), pe = nearest(t, E, 1);
    if (pb >= 0 && pe > pb) {
        double pdt = tick_t(t, &t->ticks[pe]) - tick_t(t, &t->ticks[pb]);
        int64_t d = t->ticks[pe].primaries_total - t->ticks[pb].primaries_total;
        if (pdt > 0 && d >= 0)
            sum->cluster_docs_per_s = (double)d / pdt;
    }
    if (out == NULL) {
        free(ns);
        return;
    }

    json_t *o = json_object();
    json_object_set_new(o, "type", json_string("info"));
    json_object_set_new(o, "distribution", json_string(t->have_product ? t->product.distribution : ""));
    json_object_set_new(o, "version", json_string(t->have_product ? t->product.version : ""));
    json_object_set_new(o, "compat_mode", json_boolean(t->have_product && t->product.compat_mode));
    json_object_set_new(o, "indices", json_string(t->index_list ? t->index_list : ""));
    json_object_set_new(o, "warmup_s", json_integer(t->warmup_s));
    json_object_set_new(o, "duration_s", json_integer(t->duration_s));
    json_object_set_new(o, "planned_duration_s", json_integer(t->planned_duration_s));
    json_object_set_new(o, "interval_ms", json_integer(BF_TELEMETRY_INTERVAL_MS));
    append_line(out, o);
    const tick *prev = NULL;
    for (size_t i = 0; i < t->nticks; i++) {
        const tick *k = &t->ticks[i];
        double tt = tick_t(t, k);
        o = json_object();
        json_object_set_new(o, "type", json_string("tick"));
        json_object_set_new(o, "t_ms", json_integer((json_int_t)llround(tt * 1000.0)));
        json_object_set_new(o, "second", json_integer((json_int_t)floor(tt)));
        json_object_set_new(o, "primaries_index_total", i64_or_null(k->primaries_total));
        if (k->nodes == NULL) {
            json_object_set_new(o, "error", json_string(k->error ? k->error : ""));
            append_line(out, o);
            continue;
        }
        double pdt = prev ? (double)(k->mono_us - prev->mono_us) / 1e6 : 0;
        json_t *arr = json_array();
        for (size_t n = 0; n < k->nnodes; n++) {
            const bf_node_stats_t *x = &k->nodes[n];
            const bf_node_stats_t *p = prev ? find_node(prev, x->id) : NULL;
            json_t *no = json_object();
            json_object_set_new(no, "id", json_string(x->id));
            json_object_set_new(no, "name", json_string(x->name));
            json_object_set_new(no, "data", json_boolean(x->data));
            json_object_set_new(no, "queue", i64_or_null(x->queue));
            json_object_set_new(no, "active", i64_or_null(x->active));
            json_object_set_new(no, "rejected", i64_or_null(x->rejected));
            json_object_set_new(no, "rejected_delta",
                                p && p->rejected >= 0 && x->rejected >= p->rejected
                                    ? json_integer((json_int_t)(x->rejected - p->rejected))
                                    : json_null());
            json_object_set_new(no, "index_total", i64_or_null(x->index_total));
            json_object_set_new(no, "index_time_ms", i64_or_null(x->index_time_ms));
            json_object_set_new(no, "index_docs_per_s",
                                p && pdt > 0 && p->index_total >= 0 && x->index_total >= p->index_total
                                    ? json_real((double)(x->index_total - p->index_total) / pdt)
                                    : json_null());
            if (x->wc_queue >= 0 || x->wc_rejected >= 0) {
                json_object_set_new(no, "wc_queue", i64_or_null(x->wc_queue));
                json_object_set_new(no, "wc_rejected", i64_or_null(x->wc_rejected));
            }
            json_array_append_new(arr, no);
        }
        json_object_set_new(o, "nodes", arr);
        append_line(out, o);
        prev = k;
    }
    for (size_t i = 0; i < nn; i++) {
        o = json_object();
        json_object_set_new(o, "type", json_string("node"));
        json_object_set_new(o, "id", json_string(ns[i].node->id));
        json_object_set_new(o, "name", json_string(ns[i].node->name));
        json_object_set_new(o, "data", json_boolean(ns[i].node->data));
        json_object_set_new(o, "write_queue_max", i64_or_null(ns[i].queue_max));
        json_object_set_new(o, "write_rejected", i64_or_null(ns[i].rejected));
        json_object_set_new(o, "index_docs_per_s", num_or_null(ns[i].rate));
        json_object_set_new(o, "write_completed", i64_or_null(ns[i].completed));
        json_object_set_new(o, "transport_rx_bytes", i64_or_null(ns[i].rx));
        json_object_set_new(o, "transport_tx_bytes", i64_or_null(ns[i].tx));
        append_line(out, o);
    }
    free(ns);
    o = json_object();
    json_object_set_new(o, "type", json_string("summary"));
    json_object_set_new(o, "write_queue_max", i64_or_null(sum->write_queue_max));
    json_object_set_new(o, "write_rejected", i64_or_null(sum->write_rejected));
    json_object_set_new(o, "hot_spot_ratio", num_or_null(sum->hot_spot_ratio));
    json_object_set_new(o, "cluster_docs_per_s", num_or_null(sum->cluster_docs_per_s));
    json_object_set_new(o, "transport_rx_bytes", i64_or_null(sum->transport_rx_bytes));
    json_object_set_new(o, "transport_tx_bytes", i64_or_null(sum->transport_tx_bytes));
    json_object_set_new(o, "ticks", json_integer(sum->ticks));
    json_object_set_new(o, "ticks_failed", json_integer(sum->ticks_failed));
    json_object_set_new(o, "window_from_ms", b >= 0 ? json_integer((json_int_t)llround(tick_t(t, &t->ticks[b]) * 1000.0)) : json_null());
    json_object_set_new(o, "window_to_ms", e >= 0 ? json_integer((json_int_t)llround(tick_t(t, &t->ticks[e]) * 1000.0)) : json_null());
    append_line(out, o);
}

void bf_telemetry_set_tick(bf_telemetry_t *t, void (*fn)(void *ctx), void *ctx,
                           unsigned interval_ms)
{
    t->tick = fn;
    t->tick_ctx = ctx;
    t->tick_ms = interval_ms ? interval_ms : 1;
}

void bf_telemetry_disable(bf_telemetry_t *t)
{
    bf_es_destroy(&t->es);
}

void bf_telemetry_stop(bf_telemetry_t *t, bf_telemetry_summary_t *sum, bf_buf_t *ndjson)
{
    memset(sum, 0, sizeof *sum);
    sum->write_queue_max = -1;
    sum->write_rejected = -1;
    sum->hot_spot_ratio = NAN;
    sum->cluster_docs_per_s = NAN;
    sum->transport_rx_bytes = -1;
    sum->transport_tx_bytes = -1;
    if (t->running) {
        pthread_mutex_lock(&t->mu);
        t->stop = 1;
        pthread_cond_broadcast(&t->cv);
        /* the request in flight may take BF_TELEMETRY_TIMEOUT_MS: the caller's loop goes on */
        while (t->tick && !t->exited) {
            uint64_t until = bf_clock_mono_us() + (uint64_t)t->tick_ms * 1000u;
            struct timespec ts = {.tv_sec = (time_t)(until / 1000000u),
                                  .tv_nsec = (long)(until % 1000000u) * 1000L};
            if (pthread_cond_timedwait(&t->cv, &t->mu, &ts) == ETIMEDOUT && !t->exited) {
                pthread_mutex_unlock(&t->mu);
                t->tick(t->tick_ctx);
                pthread_mutex_lock(&t->mu);
            }
        }
        pthread_mutex_unlock(&t->mu);
        pthread_join(t->thread, NULL);
        t->running = 0;
    }
    if (!t->begun)
        return;
    summarize(t, sum, ndjson);
    reset_cell(t);
}
