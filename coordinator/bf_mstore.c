/* SPDX-License-Identifier: MIT */
/* bf_mstore.c — the metrics store writer thread: a capped queue of bulk items, _bulk batches
 * judged by bf_bulkresp_parse, retries with back-off, counted drops.
 *
 * The queue is a linked list under one mutex; the caller's side only links a copy in. The
 * writer takes a batch out, sends it with its own bf_es_t (a curl handle is never shared
 * between threads), and links what must be sent again back at the front.
 */
#include "bf_mstore.h"

#include "bf_bulkresp.h"
#include "bf_clock.h"
#include "bf_log.h"
#include "bf_mem.h"
#include "bf_mstore_docs.h"

#include <errno.h>
#include <jansson.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct item {
    struct item *next;
    size_t len;
    char data[]; /* action line + source line, each ending in '\n' */
} item;

struct bf_mstore {
    const bf_target_t *store; /* &store_copy */
    bf_target_t store_copy;   /* the caller's (shallow: its strings borrowed), names set */
    uint64_t cap_docs, flush_wait_ms;
    pthread_t thread;
    int started;
    pthread_mutex_t mu;
    pthread_cond_t cv; /* writer: work or stop; adders: room */
    item *head, *tail;
    uint64_t nqueued; /* in the list + in the batch being sent */
    int stopping;
    uint64_t stop_deadline_us;
    bf_mstore_stats_t st;
    unsigned warned; /* kinds of failure said while running (W_*), under mu */
    char *label;     /* "metrics store http://host:port (metrics_store.hosts)", for messages */
    int exited;      /* under mu: the writer is done (close waits for it) */
    void (*tick)(void *ctx); /* bf_mstore_set_tick: run while close waits */
    void *tick_ctx;
    unsigned tick_ms;
};

/* kinds of failure, each said once while the campaign runs (and again after a recovery) */
enum { W_DOWN = 1u, W_REFUSED = 2u, W_ITEMS = 4u, W_TEMPLATE = 8u };

uint64_t bf_mstore_dropped(const bf_mstore_stats_t *s)
{
    return s->dropped_full + s->dropped_refused + s->dropped_unsent;
}

static void set_error(bf_mstore_t *mstore, const char *msg)
{
    pthread_mutex_lock(&mstore->mu);
    bf_strlcpy(mstore->st.last_error, msg, sizeof mstore->st.last_error);
    pthread_mutex_unlock(&mstore->mu);
}

static const bf_conn_names_t *names_of(const bf_mstore_t *mstore)
{
    return mstore->store->names;
}

/* A failure of the store (msg, which names the request and host): kept as last_error, and
 * said at once, the first time of its kind, with what happens to the documents, so a store
 * that is down or refusing never goes unseen until the end. The campaign never waits for it. */
static void store_failed(bf_mstore_t *mstore, unsigned kind, const char *msg)
{
    pthread_mutex_lock(&mstore->mu);
    bf_strlcpy(mstore->st.last_error, msg, sizeof mstore->st.last_error);
    int say = !(mstore->warned & kind);
    mstore->warned |= kind;
    uint64_t cap = mstore->cap_docs;
    pthread_mutex_unlock(&mstore->mu);
    if (!say)
        return;
    if (kind == W_DOWN)
        bf_warn("%s: %s; the documents wait in a buffer of %llu and are sent again with "
                "back-off; the campaign goes on (the end of the run says what was dropped)",
                mstore->label, msg, (unsigned long long)cap);
    else
        bf_warn("%s: %s; the documents it refuses are dropped (counted at the end); the "
                "campaign goes on",
                mstore->label, msg);
}

/* The store answered a batch again after being down: say so once, and warn again next time. */
static void store_recovered(bf_mstore_t *mstore)
{
    pthread_mutex_lock(&mstore->mu);
    int was_down = (mstore->warned & W_DOWN) != 0;
    mstore->warned &= ~W_DOWN;
    pthread_mutex_unlock(&mstore->mu);
    if (was_down)
        bf_info("%s answers again: sending the buffered documents", mstore->label);
}

/* What to do about an HTTP status of the store ("" when nothing can be said). */
static const char *status_hint(const bf_mstore_t *mstore, long status, char *buf, size_t size)
{
    const bf_conn_names_t *n = names_of(mstore);
    if (status == 401)
        snprintf(buf, size, "; the store refused the credentials: set %s", n->auth);
    else if (status == 403)
        snprintf(buf, size,
                 "; the store's user may not write there: let it write the "
                 "bulkfleet-* indices and index templates, or give other credentials in %s",
                 n->auth);
    else if (status == 404 || status == 405)
        snprintf(buf, size, "; is %s the URL of an Elasticsearch or OpenSearch cluster?", n->hosts);
    else if (status == 429 || status >= 500)
        snprintf(buf, size, "; the store is overloaded or not ready");
    else
        buf[0] = '\0';
    return buf;
}

/* wait on cv until the deadline (absolute, bf_clock_mono_us) or a signal; mu held */
static void wait_until(bf_mstore_t *mstore, uint64_t until_us)
{
    uint64_t now = bf_clock_mono_us();
    if (until_us <= now)
        return;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t d = until_us - now;
    ts.tv_sec += (time_t)(d / 1000000u);
    ts.tv_nsec += (long)(d % 1000000u) * 1000;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    pthread_cond_timedwait(&mstore->cv, &mstore->mu, &ts);
}

/* the writer gives up: stopping and the flush wait is over */
static int give_up(bf_mstore_t *mstore)
{
    return mstore->stopping && bf_clock_mono_us() >= mstore->stop_deadline_us;
}

/* sleep ms_wait milliseconds, up to close's deadline; returns 1 when the writer should give up */
static int backoff(bf_mstore_t *mstore, uint32_t ms_wait)
{
    pthread_mutex_lock(&mstore->mu);
    uint64_t until = bf_clock_mono_us() + (uint64_t)ms_wait * 1000u;
    while (!give_up(mstore) && bf_clock_mono_us() < until) {
        uint64_t u = until;
        if (mstore->stopping && mstore->stop_deadline_us < u)
            u = mstore->stop_deadline_us;
        wait_until(mstore, u);
    }
    int g = give_up(mstore);
    pthread_mutex_unlock(&mstore->mu);
    return g;
}

/* link items (a list) back at the front of the queue */
static void requeue_front(bf_mstore_t *mstore, item *first, item *last)
{
    if (first == NULL)
        return;
    pthread_mutex_lock(&mstore->mu);
    last->next = mstore->head;
    mstore->head = first;
    if (mstore->tail == NULL)
        mstore->tail = last;
    pthread_mutex_unlock(&mstore->mu);
}

static void free_items(bf_mstore_t *mstore, item **v, size_t n, uint64_t *counter)
{
    pthread_mutex_lock(&mstore->mu);
    for (size_t i = 0; i < n; i++) {
        if (v[i] == NULL)
            continue;
        free(v[i]);
        v[i] = NULL;
        mstore->nqueued--;
        if (counter)
            (*counter)++;
    }
    pthread_cond_broadcast(&mstore->cv);
    pthread_mutex_unlock(&mstore->mu);
}

static int put_templates(bf_mstore_t *mstore, bf_es_t *es)
{
    static const struct {
        const char *name;
        int results;
    } t[] = {{BF_MSTORE_SAMPLES_TEMPLATE, 0}, {BF_MSTORE_RESULTS_TEMPLATE, 1}};
    for (size_t i = 0; i < 2; i++) {
        char *body = bf_mstore_docs_template(t[i].results);
        char *path = bf_asprintf("/_index_template/%s", t[i].name);
        long status = 0;
        const char *resp = NULL;
        bf_diag_t d = {0};
        int rc = bf_es_request(es, "PUT", path, body, &status, &resp, &d);
        free(body);
        free(path);
        if (rc != BF_OK) {
            store_failed(mstore, W_DOWN, d.msg);
            return rc;
        }
        if (status < 200 || status > 299) {
            char msg[700], hint[300];
            snprintf(msg, sizeof msg, "PUT %s/_index_template/%s: HTTP %ld: %.300s%s",
                     bf_es_host(es), t[i].name, status, resp ? resp : "",
                     status_hint(mstore, status, hint, sizeof hint));
            /* 5xx and 429: the store is not ready, try again; 401/403: the documents will be
             * refused too (said by _bulk); other 4xx: it will not take the template (too old
             * for composable templates): go on with dynamic mappings */
            if (status == 429 || status >= 500) {
                store_failed(mstore, W_DOWN, msg);
                return BF_E_HTTP;
            }
            if (status == 401 || status == 403) {
                store_failed(mstore, W_REFUSED, msg);
                return BF_OK;
            }
            set_error(mstore, msg);
            pthread_mutex_lock(&mstore->mu);
            int say = !(mstore->warned & W_TEMPLATE);
            mstore->warned |= W_TEMPLATE;
            pthread_mutex_unlock(&mstore->mu);
            if (say)
                bf_warn("%s: %s; documents go in with dynamic mappings", mstore->label, msg);
        }
    }
    return BF_OK;
}

static void *writer(void *arg)
{
    bf_mstore_t *mstore = arg;
    bf_es_t *es = bf_es_new(mstore->store, 0, BF_MSTORE_REQUEST_TIMEOUT_MS);
    int templates = 0;
    uint32_t delay_ms = 250;
    item *batch[BF_MSTORE_BATCH_DOCS];
    uint8_t cls[BF_MSTORE_BATCH_DOCS];
    bf_buf_t body;
    bf_buf_init(&body, 0);
    for (;;) {
        /* take a batch */
        pthread_mutex_lock(&mstore->mu);
        while (mstore->head == NULL && !mstore->stopping)
            wait_until(mstore, bf_clock_mono_us() + 1000000u);
        if (mstore->head == NULL || give_up(mstore)) {
            pthread_mutex_unlock(&mstore->mu);
            break;
        }
        size_t n = 0, bytes = 0;
        while (mstore->head && n < BF_MSTORE_BATCH_DOCS &&
               (n == 0 || bytes + mstore->head->len <= BF_MSTORE_BATCH_BYTES)) {
            item *it = mstore->head;
            mstore->head = it->next;
            if (mstore->head == NULL)
                mstore->tail = NULL;
            it->next = NULL;
            bytes += it->len;
            batch[n++] = it;
        }
        pthread_mutex_unlock(&mstore->mu);

        int again = 0; /* the whole batch goes back */
        if (!templates) {
            templates = put_templates(mstore, es) == BF_OK;
            again = !templates;
        }
        if (!again) {
            bf_buf_reset(&body);
            for (size_t i = 0; i < n; i++)
                bf_buf_append(&body, batch[i]->data, batch[i]->len);
            bf_buf_append(&body, "", 0);
            long status = 0;
            const char *resp = NULL;
            bf_diag_t d = {0};
            pthread_mutex_lock(&mstore->mu);
            mstore->st.requests++;
            pthread_mutex_unlock(&mstore->mu);
            int rc = bf_es_request(es, "POST", "/_bulk", body.data, &status, &resp, &d);
            char msg[700], hint[300];
            if (rc != BF_OK) {
                store_failed(mstore, W_DOWN, d.msg);
                again = 1;
            } else if (status == 429 || status >= 500 || status == 408) {
                snprintf(msg, sizeof msg, "POST %s/_bulk: HTTP %ld: %.300s%s", bf_es_host(es),
                         status, resp ? resp : "", status_hint(mstore, status, hint, sizeof hint));
                store_failed(mstore, W_DOWN, msg);
                again = 1;
            } else if (status < 200 || status > 299) {
                snprintf(msg, sizeof msg, "POST %s/_bulk: HTTP %ld (refused for good): %.300s%s",
                         bf_es_host(es), status, resp ? resp : "",
                         status_hint(mstore, status, hint, sizeof hint));
                store_failed(mstore, W_REFUSED, msg);
                free_items(mstore, batch, n, &mstore->st.dropped_refused);
                n = 0;
            } else {
                store_recovered(mstore);
                bf_bulk_counts_t counts;
                char first[300] = "";
                if (bf_bulkresp_parse(resp, strlen(resp), (uint32_t)n, &counts, cls, first,
                                      sizeof first) != BF_OK) {
                    snprintf(msg, sizeof msg,
                             "POST %s/_bulk: not a bulk response (%s); is %s "
                             "the URL of an Elasticsearch or OpenSearch cluster?",
                             bf_es_host(es), first, names_of(mstore)->hosts);
                    store_failed(mstore, W_DOWN, msg);
                    again = 1;
                } else {
                    /* per item: ok → indexed; rejected/5xx → again; the rest → refused */
                    item *rf = NULL, *rl = NULL;
                    size_t nretry = 0;
                    pthread_mutex_lock(&mstore->mu);
                    for (size_t i = 0; i < n; i++) {
                        if (cls[i] == BF_ITEM_REJECTED || cls[i] == BF_ITEM_5XX) {
                            if (rl)
                                rl->next = batch[i];
                            else
                                rf = batch[i];
                            rl = batch[i];
                            batch[i] = NULL;
                            nretry++;
                            continue;
                        }
                        if (cls[i] == BF_ITEM_OK)
                            mstore->st.indexed++;
                        else
                            mstore->st.dropped_refused++;
                        free(batch[i]);
                        batch[i] = NULL;
                        mstore->nqueued--;
                    }
                    int refused = counts.mapping || counts.failed_4xx || counts.conflict;
                    if (refused)
                        snprintf(mstore->st.last_error, sizeof mstore->st.last_error,
                                 "POST %s/_bulk: items refused: %s", bf_es_host(es), first);
                    if (nretry)
                        mstore->st.retries++;
                    pthread_cond_broadcast(&mstore->cv);
                    pthread_mutex_unlock(&mstore->mu);
                    requeue_front(mstore, rf, rl);
                    n = 0;
                    if (refused) {
                        snprintf(msg, sizeof msg,
                                 "POST %s/_bulk: items refused: %s (a mapping "
                                 "of the bulkfleet-* indices that another tool changed? "
                                 "`publish --print-templates` shows the expected ones)",
                                 bf_es_host(es), first);
                        store_failed(mstore, W_ITEMS, msg);
                    }
                    if (nretry) {
                        snprintf(msg, sizeof msg,
                                 "POST %s/_bulk: %zu items rejected or failed "
                                 "(%s); sending them again",
                                 bf_es_host(es), nretry, first);
                        store_failed(mstore, W_DOWN, msg);
                        if (backoff(mstore, delay_ms))
                            break;
                        delay_ms = delay_ms * 2 > BF_MSTORE_BACKOFF_MAX_MS
                                       ? BF_MSTORE_BACKOFF_MAX_MS
                                       : delay_ms * 2;
                        continue;
                    }
                    delay_ms = 250;
                }
            }
        }
        if (again) {
            for (size_t i = 0; i + 1 < n; i++)
                batch[i]->next = batch[i + 1];
            requeue_front(mstore, batch[0], batch[n - 1]);
            pthread_mutex_lock(&mstore->mu);
            mstore->st.retries++;
            pthread_mutex_unlock(&mstore->mu);
            if (backoff(mstore, delay_ms))
                break;
            delay_ms =
                delay_ms * 2 > BF_MSTORE_BACKOFF_MAX_MS ? BF_MSTORE_BACKOFF_MAX_MS : delay_ms * 2;
        }
    }
    bf_buf_cleanup(&body);
    bf_es_destroy(&es);
    pthread_mutex_lock(&mstore->mu);
    mstore->exited = 1;
    pthread_cond_broadcast(&mstore->cv);
    pthread_mutex_unlock(&mstore->mu);
    return NULL;
}

bf_mstore_t *bf_mstore_new(const bf_target_t *store, uint64_t buffer_docs, uint64_t flush_wait_ms)
{
    bf_mstore_t *mstore = bf_calloc(1, sizeof *mstore);
    mstore->store_copy = *store;
    if (mstore->store_copy.names == NULL) /* messages name the store's keys, never target.* */
        mstore->store_copy.names = &bf_conn_names_store;
    mstore->store = &mstore->store_copy;
    char *shown = bf_url_redact_userinfo(store->hosts[0]);
    mstore->label = bf_asprintf("metrics store %s (%s)", shown ? shown : store->hosts[0],
                                names_of(mstore)->hosts);
    free(shown);
    mstore->cap_docs = buffer_docs ? buffer_docs : 50000;
    mstore->flush_wait_ms = flush_wait_ms;
    pthread_mutex_init(&mstore->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&mstore->cv, &ca);
    pthread_condattr_destroy(&ca);
    mstore->started = pthread_create(&mstore->thread, NULL, writer, mstore) == 0;
    if (!mstore->started)
        bf_warn("metrics store: cannot start the writer thread (%s); nothing will be stored",
                strerror(errno));
    return mstore;
}

static item *make_item(const char *index, const char *id, const char *source)
{
    char *act = bf_asprintf("{\"index\":{\"_index\":\"%s\",\"_id\":\"", index);
    bf_buf_t b;
    bf_buf_init(&b, 0);
    bf_buf_appendz(&b, act);
    free(act);
    json_t *ids = json_string(id);
    char *idq = json_dumps(ids, JSON_ENCODE_ANY);
    json_decref(ids);
    /* idq is "\"...\"" with JSON escapes: keep its inside */
    size_t ql = idq ? strlen(idq) : 0;
    if (ql >= 2)
        bf_buf_append(&b, idq + 1, ql - 2);
    free(idq);
    bf_buf_appendz(&b, "\"}}\n");
    bf_buf_appendz(&b, source);
    bf_buf_appendz(&b, "\n");
    item *it = bf_malloc(sizeof *it + b.len + 1);
    it->next = NULL;
    it->len = b.len;
    memcpy(it->data, b.data, b.len);
    it->data[b.len] = '\0';
    bf_buf_cleanup(&b);
    return it;
}

static int add(bf_mstore_t *mstore, const char *index, const char *id, const char *source, int wait,
               uint64_t timeout_ms)
{
    item *it = make_item(index, id, source);
    pthread_mutex_lock(&mstore->mu);
    uint64_t until = bf_clock_mono_us() + timeout_ms * 1000u;
    while (wait && mstore->started && mstore->nqueued >= mstore->cap_docs &&
           bf_clock_mono_us() < until)
        wait_until(mstore, until);
    if (!mstore->started || mstore->nqueued >= mstore->cap_docs) {
        mstore->st.dropped_full++;
        pthread_mutex_unlock(&mstore->mu);
        free(it);
        return wait ? BF_E_TIMEOUT : BF_E_TOOBIG;
    }
    if (mstore->tail)
        mstore->tail->next = it;
    else
        mstore->head = it;
    mstore->tail = it;
    mstore->nqueued++;
    mstore->st.queued++;
    pthread_cond_broadcast(&mstore->cv);
    pthread_mutex_unlock(&mstore->mu);
    return BF_OK;
}

int bf_mstore_add(bf_mstore_t *mstore, const char *index, const char *id, const char *source)
{
    return add(mstore, index, id, source, 0, 0);
}

int bf_mstore_add_wait(bf_mstore_t *mstore, const char *index, const char *id, const char *source,
                       uint64_t timeout_ms)
{
    return add(mstore, index, id, source, 1, timeout_ms);
}

void bf_mstore_stats(bf_mstore_t *mstore, bf_mstore_stats_t *out)
{
    pthread_mutex_lock(&mstore->mu);
    *out = mstore->st;
    pthread_mutex_unlock(&mstore->mu);
}

void bf_mstore_set_tick(bf_mstore_t *mstore, void (*tick)(void *ctx), void *ctx,
                        unsigned interval_ms)
{
    mstore->tick = tick;
    mstore->tick_ctx = ctx;
    mstore->tick_ms = interval_ms ? interval_ms : 1;
}

void bf_mstore_close(bf_mstore_t **mstore_p, bf_mstore_stats_t *out)
{
    if (mstore_p == NULL || *mstore_p == NULL)
        return;
    bf_mstore_t *mstore = *mstore_p;
    pthread_mutex_lock(&mstore->mu);
    mstore->stopping = 1;
    mstore->stop_deadline_us = bf_clock_mono_us() + mstore->flush_wait_ms * 1000u;
    /* a store that is failing makes the end wait up to flush_wait: say so */
    uint64_t left = mstore->started && (mstore->warned & W_DOWN) ? mstore->nqueued : 0;
    pthread_cond_broadcast(&mstore->cv);
    pthread_mutex_unlock(&mstore->mu);
    if (left > 0 && mstore->flush_wait_ms > 0)
        bf_info("%s: sending the last %llu documents (waiting at most %.1f s: "
                "metrics_store.flush_wait)",
                mstore->label, (unsigned long long)left, (double)mstore->flush_wait_ms / 1000.0);
    pthread_mutex_lock(&mstore->mu);
    /* the flush may take flush_wait_ms and a request: the caller's loop goes on meanwhile */
    while (mstore->started && mstore->tick && !mstore->exited) {
        uint64_t until = bf_clock_mono_us() + (uint64_t)mstore->tick_ms * 1000u;
        wait_until(mstore, until);
        if (!mstore->exited && bf_clock_mono_us() >= until) {
            pthread_mutex_unlock(&mstore->mu);
            mstore->tick(mstore->tick_ctx);
            pthread_mutex_lock(&mstore->mu);
        }
    }
    pthread_mutex_unlock(&mstore->mu);
    if (mstore->started)
        pthread_join(mstore->thread, NULL);
    for (item *it = mstore->head, *nx; it; it = nx) {
        nx = it->next;
        free(it);
        mstore->st.dropped_unsent++;
    }
    mstore->head = mstore->tail = NULL;
    if (out)
        *out = mstore->st;
    pthread_cond_destroy(&mstore->cv);
    pthread_mutex_destroy(&mstore->mu);
    free(mstore->label);
    free(mstore);
    *mstore_p = NULL;
}

int bf_mstore_cluster_uuid(bf_es_t *es, char *buf, size_t size, bf_diag_t *diag)
{
    long status = 0;
    const char *body = NULL;
    int rc = bf_es_request(es, "GET", "/", NULL, &status, &body, diag);
    if (rc != BF_OK)
        return rc;
    if (status != 200) {
        const bf_target_t *t = bf_es_target(es);
        const bf_conn_names_t *n = t && t->names ? t->names : &bf_conn_names_target;
        return bf_diag_set(diag, BF_E_HTTP, "GET %s/: HTTP %ld%s%s%s", bf_es_host(es), status,
                           status == 401 || status == 403 ? "; authentication failed: check " : "",
                           status == 401 || status == 403 ? n->auth : "",
                           status == 401 || status == 403 ? ""
                                                          : "; is it an Elasticsearch or "
                                                            "OpenSearch cluster?");
    }
    json_t *j = json_loads(body, 0, NULL);
    const char *u = json_string_value(json_object_get(j, "cluster_uuid"));
    if (u == NULL || strcmp(u, "_na_") == 0)
        u = json_string_value(json_object_get(j, "cluster_name"));
    bf_strlcpy(buf, u ? u : "", size);
    json_decref(j);
    return BF_OK;
}
