/* SPDX-License-Identifier: MIT */
/* bf_metrics.c — live metrics: GET /metrics through libmicrohttpd, statsd over UDP.
 *
 * The main thread formats; the HTTP thread (MHD_USE_INTERNAL_POLLING_THREAD) only copies the
 * latest text under `lock`, so a slow or stuck scraper never blocks the campaign.
 */
#include "bf_metrics.h"

#include "bf_hist.h"
#include "bf_log.h"
#include "bf_mem.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define CONNECTION_LIMIT 16
#define CONNECTION_TIMEOUT_S 10

typedef struct slot {
    int32_t second; /* -1 = empty */
    bf_hist_t *svc, *lat;
} slot_t;

struct bf_metrics {
    struct MHD_Daemon *httpd;
    uint16_t port;
    pthread_mutex_t lock; /* guards text/text_len (read by the HTTP thread) */
    char *text;
    size_t text_len;
    int statsd_fd; /* -1 = none */
    uint64_t statsd_dropped;
    bf_live_t prev; /* what statsd counters were sent up to */
    int prev_set;
    bf_counters_t totals;
    uint64_t lost_total;
    slot_t win[BF_METRICS_WINDOW_S];
    int32_t latest;         /* latest second with a sample in the window, -1 none */
    bf_hist_t *msvc, *mlat; /* scratch for merging the window */
    bf_hist_t *ssvc, *slat; /* scratch: one sample's histograms */
    uint64_t cell_requests; /* the running cell's requests and their sums (summary) */
    double cell_lat_sum_s, cell_svc_sum_s;
};

int bf_metrics_parse_addr(const char *opt, const char *spec, int allow_zero, char *host, size_t cap,
                          uint16_t *port, bf_diag_t *diag)
{
    const char *colon = spec ? strrchr(spec, ':') : NULL;
    struct in_addr a;
    char h[64];
    if (colon == NULL || (size_t)(colon - spec) >= sizeof h || colon == spec)
        goto bad;
    memcpy(h, spec, (size_t)(colon - spec));
    h[colon - spec] = '\0';
    if (strcmp(h, "localhost") == 0)
        bf_strlcpy(h, "127.0.0.1", sizeof h);
    if (inet_pton(AF_INET, h, &a) != 1)
        goto bad;
    char *end = NULL;
    errno = 0;
    unsigned long p = strtoul(colon + 1, &end, 10);
    if (errno || end == colon + 1 || *end != '\0' || p > 65535 || (p == 0 && !allow_zero))
        goto bad;
    bf_strlcpy(host, h, cap);
    *port = (uint16_t)p;
    return BF_OK;
bad:
    return bf_diag_set(diag, BF_E_INVAL,
                       "%s %s: expected an IPv4 address and a port, like 127.0.0.1:%s", opt,
                       spec ? spec : "(none)", strcmp(opt, "--statsd") == 0 ? "8125" : "9464");
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **ctx)
{
    (void)version;
    (void)upload_data;
    (void)ctx;
    bf_metrics_t *m = cls;
    *upload_data_size = 0;
    struct MHD_Response *resp;
    unsigned status;
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) {
        static const char msg[] = "only GET /metrics\n";
        resp = MHD_create_response_from_buffer(sizeof msg - 1, (void *)msg, MHD_RESPMEM_PERSISTENT);
        status = MHD_HTTP_METHOD_NOT_ALLOWED;
    } else if (strcmp(url, "/metrics") != 0) {
        static const char msg[] = "not found: bulkfleet serves GET /metrics\n";
        resp = MHD_create_response_from_buffer(sizeof msg - 1, (void *)msg, MHD_RESPMEM_PERSISTENT);
        status = MHD_HTTP_NOT_FOUND;
    } else {
        pthread_mutex_lock(&m->lock);
        size_t n = m->text_len;
        char *copy = malloc(n + 1);
        if (copy)
            memcpy(copy, m->text ? m->text : "", n);
        pthread_mutex_unlock(&m->lock);
        if (copy == NULL)
            return MHD_NO;
        resp = MHD_create_response_from_buffer(n, copy, MHD_RESPMEM_MUST_FREE);
        if (resp)
            MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
                                    "text/plain; version=0.0.4; charset=utf-8");
        status = MHD_HTTP_OK;
    }
    if (resp == NULL)
        return MHD_NO;
    enum MHD_Result r = MHD_queue_response(conn, status, resp);
    MHD_destroy_response(resp);
    return r;
}

bf_metrics_t *bf_metrics_new(const char *listen, const char *statsd, bf_diag_t *diag)
{
    char host[64];
    uint16_t port = 0;
    bf_metrics_t *m = bf_calloc(1, sizeof *m);
    pthread_mutex_init(&m->lock, NULL);
    m->statsd_fd = -1;
    m->latest = -1;
    for (int i = 0; i < BF_METRICS_WINDOW_S; i++) {
        m->win[i].second = -1;
        m->win[i].svc = bf_hist_new();
        m->win[i].lat = bf_hist_new();
    }
    m->msvc = bf_hist_new();
    m->mlat = bf_hist_new();
    m->ssvc = bf_hist_new();
    m->slat = bf_hist_new();
    if (listen) {
        if (bf_metrics_parse_addr("--metrics-listen", listen, 1, host, sizeof host, &port, diag) !=
            BF_OK)
            goto error;
        struct sockaddr_in sin;
        memset(&sin, 0, sizeof sin);
        sin.sin_family = AF_INET;
        sin.sin_port = htons(port);
        inet_pton(AF_INET, host, &sin.sin_addr);
        m->httpd = MHD_start_daemon(
            MHD_USE_INTERNAL_POLLING_THREAD, port, NULL, NULL, on_request, m, MHD_OPTION_SOCK_ADDR,
            (struct sockaddr *)&sin, MHD_OPTION_CONNECTION_LIMIT, (unsigned)CONNECTION_LIMIT,
            MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)CONNECTION_TIMEOUT_S, MHD_OPTION_END);
        if (m->httpd == NULL) {
            bf_diag_set(diag, BF_E_IO,
                        "--metrics-listen %s: cannot listen there (%s); pick a free port or "
                        "stop what uses it",
                        listen, errno ? strerror(errno) : "libmicrohttpd refused");
            goto error;
        }
        const union MHD_DaemonInfo *info = MHD_get_daemon_info(m->httpd, MHD_DAEMON_INFO_BIND_PORT);
        m->port = info ? info->port : port;
    }
    if (statsd) {
        if (bf_metrics_parse_addr("--statsd", statsd, 0, host, sizeof host, &port, diag) != BF_OK)
            goto error;
        struct sockaddr_in sin;
        memset(&sin, 0, sizeof sin);
        sin.sin_family = AF_INET;
        sin.sin_port = htons(port);
        inet_pton(AF_INET, host, &sin.sin_addr);
        m->statsd_fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (m->statsd_fd < 0 || connect(m->statsd_fd, (struct sockaddr *)&sin, sizeof sin) != 0) {
            bf_diag_set(diag, BF_E_IO, "--statsd %s: cannot open a UDP socket to it: %s", statsd,
                        strerror(errno));
            goto error;
        }
    }
    return m;
error:
    bf_metrics_destroy(&m);
    return NULL;
}

void bf_metrics_destroy(bf_metrics_t **m_p)
{
    bf_metrics_t *m = m_p ? *m_p : NULL;
    if (m == NULL)
        return;
    if (m->httpd)
        MHD_stop_daemon(m->httpd);
    if (m->statsd_fd >= 0)
        close(m->statsd_fd);
    for (int i = 0; i < BF_METRICS_WINDOW_S; i++) {
        bf_hist_destroy(&m->win[i].svc);
        bf_hist_destroy(&m->win[i].lat);
    }
    bf_hist_destroy(&m->msvc);
    bf_hist_destroy(&m->mlat);
    bf_hist_destroy(&m->ssvc);
    bf_hist_destroy(&m->slat);
    pthread_mutex_destroy(&m->lock);
    free(m->text);
    free(m);
    *m_p = NULL;
}

uint16_t bf_metrics_port(const bf_metrics_t *m)
{
    return m ? m->port : 0;
}

void bf_metrics_cell_start(bf_metrics_t *m)
{
    if (m == NULL)
        return;
    for (int i = 0; i < BF_METRICS_WINDOW_S; i++) {
        m->win[i].second = -1;
        bf_hist_reset(m->win[i].svc);
        bf_hist_reset(m->win[i].lat);
    }
    m->latest = -1;
    m->cell_requests = 0;
    m->cell_lat_sum_s = m->cell_svc_sum_s = 0;
}

void bf_metrics_sample(bf_metrics_t *m, const Bf__Sample *s)
{
    if (m == NULL)
        return;
    bf_counters_t c;
    memset(&c, 0, sizeof c);
    if (s->second < 0) {
        bf_sample_unpack_add(s, &c, NULL, NULL);
        bf_counters_add(&m->totals, &c);
        return;
    }
    slot_t *sl = &m->win[s->second % BF_METRICS_WINDOW_S];
    if (sl->second != s->second) {
        if (sl->second > s->second) { /* older than the window: counters only */
            bf_sample_unpack_add(s, &c, NULL, NULL);
            bf_counters_add(&m->totals, &c);
            return;
        }
        sl->second = s->second;
        bf_hist_reset(sl->svc);
        bf_hist_reset(sl->lat);
    }
    bf_hist_reset(m->ssvc);
    bf_hist_reset(m->slat);
    if (bf_sample_unpack_add(s, &c, m->ssvc, m->slat) != BF_OK)
        bf_debug("metrics: a sample's histogram is invalid; its counters are counted");
    bf_counters_add(&m->totals, &c);
    bf_hist_add(sl->svc, m->ssvc);
    bf_hist_add(sl->lat, m->slat);
    /* sums from bucket midpoints (bf_hist_mean), as HdrHistogram's mean */
    uint64_t n = bf_hist_count(m->slat);
    m->cell_requests += n;
    m->cell_lat_sum_s += bf_hist_mean(m->slat) * (double)n / 1e6;
    m->cell_svc_sum_s += bf_hist_mean(m->ssvc) * (double)bf_hist_count(m->ssvc) / 1e6;
    if (s->second > m->latest)
        m->latest = s->second;
}

void bf_metrics_agent_lost(bf_metrics_t *m)
{
    if (m)
        m->lost_total++;
}

uint64_t bf_metrics_statsd_dropped(const bf_metrics_t *m)
{
    return m ? m->statsd_dropped : 0;
}

static void fill(bf_metrics_t *m, bf_live_t *s)
{
    const bf_counters_t *t = &m->totals;
    s->docs_sent_total = t->docs_sent;
    s->docs_ok_total = t->docs_ok;
    s->bytes_wire_total = t->bytes_wire;
    s->doc_errors_total[BF_LD_REJECTED] = t->docs_rejected;
    s->doc_errors_total[BF_LD_CONFLICT] = t->docs_conflict;
    s->doc_errors_total[BF_LD_MAPPING] = t->docs_mapping;
    s->doc_errors_total[BF_LD_CLIENT] = t->docs_failed_4xx;
    s->doc_errors_total[BF_LD_SERVER] = t->docs_failed_5xx;
    s->doc_errors_total[BF_LD_UNKNOWN] = t->docs_unknown;
    s->req_errors_total[BF_LR_HTTP_429] = t->http_status[429];
    s->req_errors_total[BF_LR_HTTP_OTHER] = bf_counters_http_errors(t) - t->http_status[429];
    s->req_errors_total[BF_LR_CONNECT] = t->req_connect_error;
    s->req_errors_total[BF_LR_TIMEOUT] = t->req_timeout;
    s->req_errors_total[BF_LR_RESET] = t->req_reset;
    s->req_errors_total[BF_LR_BAD_RESPONSE] = t->req_bad_response;
    s->agents_lost_total = m->lost_total;
    /* the window: the last BF_METRICS_WINDOW_S seconds up to the latest sampled one */
    bf_hist_reset(m->msvc);
    bf_hist_reset(m->mlat);
    for (int i = 0; i < BF_METRICS_WINDOW_S; i++) {
        const slot_t *sl = &m->win[i];
        if (sl->second >= 0 && m->latest - sl->second < BF_METRICS_WINDOW_S) {
            bf_hist_add(m->msvc, sl->svc);
            bf_hist_add(m->mlat, sl->lat);
        }
    }
    s->window_s = BF_METRICS_WINDOW_S;
    s->window_count = bf_hist_count(m->mlat);
    s->cell_requests = m->cell_requests;
    s->cell_latency_sum_s = m->cell_lat_sum_s;
    s->cell_service_time_sum_s = m->cell_svc_sum_s;
    static const double pct[BF_LIVE_NQ] = {50, 90, 99, 100};
    for (int i = 0; i < BF_LIVE_NQ; i++) {
        int none_l = bf_hist_count(m->mlat) == 0, none_s = bf_hist_count(m->msvc) == 0;
        uint64_t l = i == 3 ? bf_hist_max(m->mlat) : bf_hist_percentile(m->mlat, pct[i]);
        uint64_t v = i == 3 ? bf_hist_max(m->msvc) : bf_hist_percentile(m->msvc, pct[i]);
        s->latency_s[i] = none_l ? NAN : (double)l / 1e6;
        s->service_time_s[i] = none_s ? NAN : (double)v / 1e6;
    }
}

/* one line: name:value|type; counters as the increase since the last publish */
static int line(bf_buf_t *out, const char *name, uint64_t v, const char *type)
{
    return bf_buf_appendf(out, "bulkfleet.%s:%llu|%s\n", name, (unsigned long long)v, type);
}

int bf_metrics_statsd_format(const bf_live_t *s, const bf_live_t *prev, bf_buf_t *out)
{
    static const char *const dn[BF_LD_COUNT] = {"doc_errors.rejected", "doc_errors.conflict",
                                                "doc_errors.mapping",  "doc_errors.client",
                                                "doc_errors.server",   "doc_errors.unknown"};
    static const char *const rn[BF_LR_COUNT] = {
        "request_errors.http_429", "request_errors.http_other", "request_errors.connect",
        "request_errors.timeout",  "request_errors.reset",      "request_errors.bad_response"};
#define INC(f) (prev && s->f >= prev->f ? s->f - prev->f : s->f)
    int rc = line(out, "cells", s->cells_total, "g");
    rc = rc ? rc : line(out, "cells_done", s->cells_done, "g");
    rc = rc ? rc : line(out, "agents_connected", s->agents_connected, "g");
    rc = rc ? rc : line(out, "agents_lost", s->agents_lost_cell, "g");
    if (s->cell) {
        rc = rc ? rc : line(out, "docs_per_second", s->docs_per_s, "g");
        rc = rc ? rc : line(out, "doc_errors_per_second", s->errors_per_s, "g");
        rc = rc ? rc : line(out, "docs_rejected_per_second", s->rejected_per_s, "g");
        static const char *const qn[BF_LIVE_NQ] = {"p50", "p90", "p99", "max"};
        for (int i = 0; i < BF_LIVE_NQ && rc == BF_OK; i++) {
            char name[64];
            if (!isnan(s->latency_s[i])) {
                snprintf(name, sizeof name, "latency_ms.%s", qn[i]);
                rc = bf_buf_appendf(out, "bulkfleet.%s:%.3f|g\n", name, s->latency_s[i] * 1e3);
            }
            if (rc == BF_OK && !isnan(s->service_time_s[i])) {
                snprintf(name, sizeof name, "service_time_ms.%s", qn[i]);
                rc = bf_buf_appendf(out, "bulkfleet.%s:%.3f|g\n", name, s->service_time_s[i] * 1e3);
            }
        }
    }
    rc = rc ? rc : line(out, "docs_sent", INC(docs_sent_total), "c");
    rc = rc ? rc : line(out, "docs_ok", INC(docs_ok_total), "c");
    for (int i = 0; i < BF_LD_COUNT && rc == BF_OK; i++)
        rc = line(out, dn[i], INC(doc_errors_total[i]), "c");
    for (int i = 0; i < BF_LR_COUNT && rc == BF_OK; i++)
        rc = line(out, rn[i], INC(req_errors_total[i]), "c");
    rc = rc ? rc : line(out, "agents_lost_total", INC(agents_lost_total), "c");
#undef INC
    return rc;
}

/* send the lines in datagrams of at most BF_STATSD_MAX_DATAGRAM bytes, split at newlines */
static void statsd_send(bf_metrics_t *m, const bf_buf_t *b)
{
    size_t off = 0;
    while (off < b->len) {
        size_t end = off, last = off;
        while (end < b->len && end - off < BF_STATSD_MAX_DATAGRAM) {
            if (b->data[end] == '\n')
                last = end + 1;
            end++;
        }
        if (end == b->len)
            last = b->len;
        if (last == off) /* one line longer than a datagram: cannot happen with our names */
            break;
        if (send(m->statsd_fd, b->data + off, last - off, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
            m->statsd_dropped++;
        off = last;
    }
}

int bf_metrics_publish(bf_metrics_t *m, bf_live_t *snap)
{
    if (m == NULL)
        return BF_OK;
    fill(m, snap);
    if (m->httpd) {
        bf_buf_t b;
        bf_buf_init(&b, BF_METRICS_MAX_TEXT);
        int rc = bf_promtext_format(snap, &b);
        if (rc != BF_OK) {
            bf_buf_cleanup(&b);
            return rc;
        }
        size_t n = b.len;
        char *text = bf_buf_steal(&b);
        pthread_mutex_lock(&m->lock);
        char *old = m->text;
        m->text = text;
        m->text_len = n;
        pthread_mutex_unlock(&m->lock);
        free(old);
    }
    if (m->statsd_fd >= 0) {
        bf_buf_t b;
        bf_buf_init(&b, BF_METRICS_MAX_TEXT);
        if (bf_metrics_statsd_format(snap, m->prev_set ? &m->prev : NULL, &b) == BF_OK)
            statsd_send(m, &b);
        bf_buf_cleanup(&b);
        m->prev = *snap;
        m->prev_set = 1;
        m->prev.cell = NULL; /* borrowed pointers are not kept */
        m->prev.campaign = m->prev.scenario = m->prev.cell_name = m->prev.phase = NULL;
    }
    return BF_OK;
}
