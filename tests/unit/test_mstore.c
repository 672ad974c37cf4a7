/* SPDX-License-Identifier: MIT */
/* test_mstore.c — unit tests for bf_mstore, the metrics store writer, against a scripted bulk
 * endpoint on 127.0.0.1 (libmicrohttpd, like bf_metrics' server): items rejected with 429 are
 * sent again until indexed, a 503 makes the whole batch go again, items refused for good (400
 * mapping) are dropped and counted, a full buffer drops and counts instead of waiting, and close
 * gives up after flush_wait with what is left counted as unsent. */
#include "bf_error.h"
#include "bf_mem.h"
#include "bf_mstore.h"

#include <jansson.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

enum mode { OK_ALL, REJECT_FIRST_FIVE, UNAVAILABLE_TWICE, REFUSE_ALL, AUTH_BASIC };

typedef struct server {
    struct MHD_Daemon *d;
    uint16_t port;
    enum mode mode;
    pthread_mutex_t mu;
    int bulks;          /* _bulk requests answered */
    int templates;      /* PUT _index_template answered */
    int items_received; /* items over every _bulk */
    int items_ok;       /* items answered 201 */
} server;

typedef struct upload {
    char *data;
    size_t len;
} upload;

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned status, char *body)
{
    struct MHD_Response *r =
        MHD_create_response_from_buffer(strlen(body), body, MHD_RESPMEM_MUST_FREE);
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json");
    enum MHD_Result q = MHD_queue_response(conn, status, r);
    MHD_destroy_response(r);
    return q;
}

/* the bulk answer: one item per action line (every other line) */
static char *bulk_answer(server *s, const upload *u)
{
    int n = 0;
    for (size_t i = 0; i < u->len; i++)
        n += u->data[i] == '\n';
    n /= 2;
    json_t *items = json_array();
    int errors = 0;
    pthread_mutex_lock(&s->mu);
    s->bulks++;
    for (int i = 0; i < n; i++) {
        json_t *it = json_object();
        int st = 201;
        if (s->mode == REFUSE_ALL)
            st = 400;
        else if (s->mode == REJECT_FIRST_FIVE && s->items_received < 5)
            st = 429; /* the first five items ever received */
        s->items_received++;
        json_object_set_new(it, "status", json_integer(st));
        if (st != 201) {
            errors = 1;
            json_object_set_new(
                it, "error",
                json_pack("{s:s,s:s}", "type",
                          st == 429 ? "rejected_execution_exception" : "mapper_parsing_exception",
                          "reason", "scripted"));
        } else {
            s->items_ok++;
        }
        json_t *w = json_object();
        json_object_set_new(w, "index", it);
        json_array_append_new(items, w);
    }
    pthread_mutex_unlock(&s->mu);
    json_t *o = json_pack("{s:i,s:b,s:o}", "took", 1, "errors", errors, "items", items);
    char *txt = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    return txt;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version, const char *data,
                                  size_t *data_size, void **con_cls)
{
    (void)version;
    server *s = cls;
    upload *u = *con_cls;
    if (u == NULL) {
        *con_cls = bf_calloc(1, sizeof(upload));
        return MHD_YES;
    }
    if (*data_size) {
        u->data = bf_realloc(u->data, u->len + *data_size + 1);
        memcpy(u->data + u->len, data, *data_size);
        u->len += *data_size;
        u->data[u->len] = '\0';
        *data_size = 0;
        return MHD_YES;
    }
    if (s->mode == AUTH_BASIC) { /* as a secured cluster: bf / secret, else 401 */
        const char *a = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Authorization");
        if (a == NULL || strcmp(a, "Basic YmY6c2VjcmV0") != 0)
            return reply(conn, 401,
                         bf_strdup("{\"error\":{\"type\":\"security_exception\","
                                   "\"reason\":\"unable to authenticate user [bf]\"},"
                                   "\"status\":401}"));
    }
    if (strcmp(method, "PUT") == 0 && strncmp(url, "/_index_template/", 17) == 0) {
        pthread_mutex_lock(&s->mu);
        s->templates++;
        pthread_mutex_unlock(&s->mu);
        return reply(conn, 200, bf_strdup("{\"acknowledged\":true}"));
    }
    if (strcmp(method, "POST") == 0 && strcmp(url, "/_bulk") == 0) {
        pthread_mutex_lock(&s->mu);
        int unavailable = s->mode == UNAVAILABLE_TWICE && s->bulks < 2;
        if (unavailable)
            s->bulks++;
        pthread_mutex_unlock(&s->mu);
        if (unavailable)
            return reply(conn, 503, bf_strdup("{\"error\":\"scripted\",\"status\":503}"));
        return reply(conn, 200, bulk_answer(s, u));
    }
    return reply(conn, 404, bf_strdup("{}"));
}

static void on_done(void *cls, struct MHD_Connection *conn, void **con_cls,
                    enum MHD_RequestTerminationCode toe)
{
    (void)cls;
    (void)conn;
    (void)toe;
    upload *u = *con_cls;
    if (u) {
        free(u->data);
        free(u);
    }
    *con_cls = NULL;
}

static void start(server *s, enum mode m)
{
    memset(s, 0, sizeof *s);
    s->mode = m;
    pthread_mutex_init(&s->mu, NULL);
    struct sockaddr_in sin;
    memset(&sin, 0, sizeof sin);
    sin.sin_family = AF_INET;
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    s->d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL, on_request, s,
                            MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sin,
                            MHD_OPTION_NOTIFY_COMPLETED, on_done, NULL, MHD_OPTION_END);
    assert_non_null(s->d);
    s->port = MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_BIND_PORT)->port;
}

static void stop(server *s)
{
    MHD_stop_daemon(s->d);
    pthread_mutex_destroy(&s->mu);
}

/* a target of one host at port (hosts borrowed from buf) */
static void target_at(bf_target_t *t, char *buf, size_t size, char **hosts, uint16_t port)
{
    memset(t, 0, sizeof *t);
    snprintf(buf, size, "http://127.0.0.1:%u", (unsigned)port);
    hosts[0] = buf;
    t->hosts = hosts;
    t->nhosts = 1;
}

static void add_docs(bf_mstore_t *mstore, int n, int *rejected)
{
    for (int i = 0; i < n; i++) {
        char id[32], src[64];
        snprintf(id, sizeof id, "c/cell/second/%d", i);
        snprintf(src, sizeof src, "{\"second\":%d}", i);
        if (bf_mstore_add(mstore, "bulkfleet-samples-2026.12", id, src) != BF_OK && rejected)
            (*rejected)++;
    }
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void test_rejected_items_sent_again(void **state)
{
    (void)state;
    server s;
    start(&s, REJECT_FIRST_FIVE);
    bf_target_t t;
    char url[64], *hosts[1];
    target_at(&t, url, sizeof url, hosts, s.port);
    bf_mstore_t *mstore = bf_mstore_new(&t, 0, 10000);
    add_docs(mstore, 10, NULL);
    bf_mstore_stats_t st;
    bf_mstore_close(&mstore, &st);
    assert_null(mstore);
    assert_int_equal(st.queued, 10);
    assert_int_equal(st.indexed, 10);
    assert_int_equal(bf_mstore_dropped(&st), 0);
    assert_true(st.retries >= 1);
    assert_int_equal(s.templates, 2);
    assert_int_equal(s.items_ok, 10);
    /* the five 429 items went again, and only they */
    assert_int_equal(s.items_received, 15);
    stop(&s);
}

static void test_unavailable_then_ok(void **state)
{
    (void)state;
    server s;
    start(&s, UNAVAILABLE_TWICE);
    bf_target_t t;
    char url[64], *hosts[1];
    target_at(&t, url, sizeof url, hosts, s.port);
    bf_mstore_t *mstore = bf_mstore_new(&t, 0, 10000);
    add_docs(mstore, 5, NULL);
    bf_mstore_stats_t st;
    bf_mstore_close(&mstore, &st);
    assert_int_equal(st.indexed, 5);
    assert_int_equal(bf_mstore_dropped(&st), 0);
    assert_true(st.retries >= 2);
    assert_int_equal(s.items_ok, 5);
    stop(&s);
}

static void test_refused_items_dropped(void **state)
{
    (void)state;
    server s;
    start(&s, REFUSE_ALL);
    bf_target_t t;
    char url[64], *hosts[1];
    target_at(&t, url, sizeof url, hosts, s.port);
    bf_mstore_t *mstore = bf_mstore_new(&t, 0, 10000);
    add_docs(mstore, 4, NULL);
    bf_mstore_stats_t st;
    bf_mstore_close(&mstore, &st);
    assert_int_equal(st.indexed, 0);
    assert_int_equal(st.dropped_refused, 4);
    assert_int_equal(bf_mstore_dropped(&st), 4);
    assert_int_equal(s.items_received, 4); /* refused for good: not sent again */
    assert_non_null(strstr(st.last_error, "mapper_parsing_exception"));
    stop(&s);
}

/* a port nothing listens on: bind a server, take its port, stop it */
static uint16_t dead_port(void)
{
    server s;
    start(&s, OK_ALL);
    uint16_t port = s.port;
    stop(&s);
    return port;
}

static void test_full_buffer_and_close_deadline(void **state)
{
    (void)state;
    uint16_t port = dead_port();
    bf_target_t t;
    char url[64], *hosts[1];
    target_at(&t, url, sizeof url, hosts, port);
    bf_mstore_t *mstore = bf_mstore_new(&t, 100, 300);
    int full = 0;
    double t0 = now_s();
    add_docs(mstore, 150, &full);
    double added = now_s() - t0;
    assert_true(added < 0.5); /* never waits on the store */
    assert_int_equal(full, 50);
    bf_mstore_stats_t st;
    t0 = now_s();
    bf_mstore_close(&mstore, &st);
    double closing = now_s() - t0;
    assert_true(closing < 0.3 + 5.5); /* flush_wait + at most one request's timeout */
    assert_int_equal(st.queued, 100);
    assert_int_equal(st.dropped_full, 50);
    assert_int_equal(st.dropped_unsent, 100);
    assert_int_equal(st.indexed, 0);
    assert_int_equal(bf_mstore_dropped(&st), 150);
    assert_non_null(strstr(st.last_error, "127.0.0.1"));
}

/* A store that refuses the credentials: every document dropped as refused at once (not sent
 * again), and the error names the store's auth key, never the target's; the right
 * credentials index everything. */
static void test_auth_refused_names_the_store(void **state)
{
    (void)state;
    server s;
    start(&s, AUTH_BASIC);
    bf_target_t t;
    char url[64], *hosts[1];
    target_at(&t, url, sizeof url, hosts, s.port);
    t.names = &bf_conn_names_store;
    t.auth = BF_AUTH_BASIC;
    t.username = "bf";
    t.password = "wrong";
    double t0 = now_s();
    bf_mstore_t *mstore = bf_mstore_new(&t, 0, 10000);
    add_docs(mstore, 6, NULL);
    bf_mstore_stats_t st;
    bf_mstore_close(&mstore, &st);
    assert_true(now_s() - t0 < 3.0); /* refused for good: no back-off until flush_wait */
    assert_int_equal(st.indexed, 0);
    assert_int_equal(st.dropped_refused, 6);
    assert_int_equal(s.items_received, 0);
    assert_non_null(strstr(st.last_error, "HTTP 401"));
    assert_non_null(strstr(st.last_error, "refused the credentials: set metrics_store.auth"));
    assert_null(strstr(st.last_error, "target."));
    /* --metrics-store URL: the option's way of giving credentials is named too */
    t.names = &bf_conn_names_store_url;
    mstore = bf_mstore_new(&t, 0, 10000);
    add_docs(mstore, 2, NULL);
    bf_mstore_close(&mstore, &st);
    assert_non_null(strstr(st.last_error, "user:password@ in the --metrics-store URL"));
    t.password = "secret";
    mstore = bf_mstore_new(&t, 0, 10000);
    add_docs(mstore, 6, NULL);
    bf_mstore_close(&mstore, &st);
    assert_int_equal(st.indexed, 6);
    assert_int_equal(bf_mstore_dropped(&st), 0);
    stop(&s);
}

/* A store nobody listens on: the transport error's hint names where its hosts were given
 * (metrics_store.hosts, --metrics-store URL), not target.hosts. */
static void test_down_names_the_store(void **state)
{
    (void)state;
    uint16_t port = dead_port();
    static const struct {
        const bf_conn_names_t *names;
        const char *want;
    } cases[] = {
        {&bf_conn_names_store, "is the metrics store running and is metrics_store.hosts right?"},
        {&bf_conn_names_store_url, "is the metrics store running and is --metrics-store URL "
                                   "right?"},
        {&bf_conn_names_publish, "is the metrics store running and is --metrics-store URL "
                                 "right?"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        bf_target_t t;
        char url[64], *hosts[1];
        target_at(&t, url, sizeof url, hosts, port);
        t.names = cases[i].names;
        bf_mstore_t *mstore = bf_mstore_new(&t, 0, 200);
        add_docs(mstore, 3, NULL);
        bf_mstore_stats_t st;
        bf_mstore_close(&mstore, &st);
        assert_int_equal(st.dropped_unsent, 3);
        if (strstr(st.last_error, cases[i].want) == NULL)
            fail_msg("case %zu: '%s' lacks '%s'", i, st.last_error, cases[i].want);
        assert_null(strstr(st.last_error, "target.hosts"));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rejected_items_sent_again),
        cmocka_unit_test(test_unavailable_then_ok),
        cmocka_unit_test(test_refused_items_dropped),
        cmocka_unit_test(test_full_buffer_and_close_deadline),
        cmocka_unit_test(test_auth_refused_names_the_store),
        cmocka_unit_test(test_down_names_the_store),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
