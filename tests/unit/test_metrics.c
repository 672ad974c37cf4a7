/* SPDX-License-Identifier: MIT */
/* test_metrics.c — live metrics: the Prometheus text (bf_promtext), statsd lines, addresses,
 * the latency window and GET /metrics from the real libmicrohttpd server on 127.0.0.1. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "bf_buf.h"
#include "bf_error.h"
#include "bf_hist.h"
#include "bf_metrics.h"
#include "bf_promtext.h"
#include "bf_sample.h"

#include <arpa/inet.h>
#include <math.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static const bf_axis_value_t axes[] = {
    {"batch_size", "500"}, {"settings.refresh_interval", "1s"}, {"tag", "a\"b\\c\nd"}};

static bf_cell_t test_cell(void)
{
    bf_cell_t c;
    memset(&c, 0, sizeof c);
    c.id = "i1-s1-r0-b500-c4";
    c.axes = axes;
    c.naxes = 3;
    return c;
}

static void test_label_name_and_escape(void **state)
{
    (void)state;
    char ln[64];
    bf_promtext_label_name("settings.refresh_interval", ln, sizeof ln);
    assert_string_equal(ln, "axis_settings_refresh_interval");
    bf_promtext_label_name("a-b/c", ln, sizeof ln);
    assert_string_equal(ln, "axis_a_b_c");
    bf_promtext_label_name("shards", ln, 8); /* truncated, still valid */
    assert_string_equal(ln, "axis_sh");
    bf_buf_t b;
    bf_buf_init(&b, 0);
    assert_int_equal(bf_promtext_escape(&b, "a\"b\\c\nd"), 0);
    assert_string_equal(b.data, "a\\\"b\\\\c\\nd");
    bf_buf_cleanup(&b);
}

static void test_format_text(void **state)
{
    (void)state;
    bf_cell_t cell = test_cell();
    bf_live_t l;
    memset(&l, 0, sizeof l);
    l.campaign = "camp-1";
    l.scenario = "sc";
    l.cells_total = 4;
    l.cells_done = 1;
    l.cell = &cell;
    l.phase = "measure";
    l.second = 4;
    l.load_s = 10;
    l.docs_per_s = 1234;
    l.rejected_per_s = 7;
    l.docs_ok_total = 99;
    l.doc_errors_total[BF_LD_REJECTED] = 11;
    l.req_errors_total[BF_LR_HTTP_429] = 2;
    l.window_s = 10;
    for (int i = 0; i < BF_LIVE_NQ; i++) {
        l.latency_s[i] = 0.25 * (i + 1);
        l.service_time_s[i] = NAN;
    }
    l.cell_requests = 40;
    l.cell_latency_sum_s = 3.5;
    l.agents_connected = 3;
    l.agents_lost_cell = 1;
    l.agents_lost_total = 2;
    bf_buf_t b;
    bf_buf_init(&b, 0);
    assert_int_equal(bf_promtext_format(&l, &b), 0);
    const char *t = b.data;
    const char *cl = "{campaign=\"camp-1\",cell=\"i1-s1-r0-b500-c4\",axis_batch_size=\"500\","
                     "axis_settings_refresh_interval=\"1s\",axis_tag=\"a\\\"b\\\\c\\nd\"";
    char want[1024];
    snprintf(want, sizeof want, "\nbulkfleet_docs_per_second%s} 1234\n", cl);
    assert_non_null(strstr(t, want));
    snprintf(want, sizeof want, "\nbulkfleet_cell_info%s,phase=\"measure\"} 1\n", cl);
    assert_non_null(strstr(t, want));
    snprintf(want, sizeof want, "\nbulkfleet_latency_seconds%s,quantile=\"0.99\"} 0.75\n", cl);
    assert_non_null(strstr(t, want));
    snprintf(want, sizeof want, "\nbulkfleet_latency_seconds_count%s} 40\n", cl);
    assert_non_null(strstr(t, want));
    snprintf(want, sizeof want, "\nbulkfleet_service_time_seconds%s,quantile=\"1\"} NaN\n", cl);
    assert_non_null(strstr(t, want));
    assert_non_null(strstr(t, "\n# TYPE bulkfleet_latency_seconds summary\n"));
    assert_non_null(strstr(t, "\n# TYPE bulkfleet_docs_ok_total counter\n"
                              "bulkfleet_docs_ok_total{campaign=\"camp-1\"} 99\n"));
    assert_non_null(
        strstr(t, "\nbulkfleet_doc_errors_total{campaign=\"camp-1\",class=\"rejected\"} 11\n"));
    assert_non_null(
        strstr(t, "\nbulkfleet_request_errors_total{campaign=\"camp-1\",class=\"http_429\"} 2\n"));
    /* 1 cell done + 5 of 10 seconds of the second, over 4 cells */
    assert_non_null(strstr(t, "\nbulkfleet_campaign_progress_ratio{campaign=\"camp-1\"} 0.375\n"));
    assert_non_null(strstr(t, "\nbulkfleet_agents_lost_total{campaign=\"camp-1\"} 2\n"));
    assert_true(t[b.len - 1] == '\n');
    /* every family once: HELP and TYPE lines equal in number */
    size_t help = 0, type = 0;
    for (const char *p = t; (p = strstr(p, "# HELP ")) != NULL; p++)
        help++;
    for (const char *p = t; (p = strstr(p, "# TYPE ")) != NULL; p++)
        type++;
    assert_int_equal(help, type);
    assert_true(help >= 18);
    /* between cells: no cell families */
    bf_buf_reset(&b);
    l.cell = NULL;
    assert_int_equal(bf_promtext_format(&l, &b), 0);
    assert_null(strstr(b.data, "bulkfleet_cell_info"));
    assert_null(strstr(b.data, "bulkfleet_docs_per_second"));
    assert_non_null(
        strstr(b.data, "bulkfleet_campaign_progress_ratio{campaign=\"camp-1\"} 0.25\n"));
    bf_buf_cleanup(&b);
    /* a cap too small fails cleanly */
    bf_buf_init(&b, 64);
    assert_int_not_equal(bf_promtext_format(&l, &b), 0);
    bf_buf_cleanup(&b);
}

static void test_statsd_lines(void **state)
{
    (void)state;
    bf_cell_t cell = test_cell();
    bf_live_t a, b;
    memset(&a, 0, sizeof a);
    for (int i = 0; i < BF_LIVE_NQ; i++)
        a.latency_s[i] = a.service_time_s[i] = NAN;
    a.cell = &cell;
    a.docs_per_s = 500;
    a.docs_ok_total = 1000;
    a.doc_errors_total[BF_LD_REJECTED] = 5;
    b = a;
    b.docs_ok_total = 1600;
    b.doc_errors_total[BF_LD_REJECTED] = 5;
    b.latency_s[2] = 0.0125;
    bf_buf_t o;
    bf_buf_init(&o, 0);
    assert_int_equal(bf_metrics_statsd_format(&a, NULL, &o), 0);
    assert_non_null(strstr(o.data, "bulkfleet.docs_per_second:500|g\n"));
    assert_non_null(strstr(o.data, "bulkfleet.docs_ok:1000|c\n"));
    assert_null(strstr(o.data, "latency_ms")); /* NaN is not sent */
    bf_buf_reset(&o);
    assert_int_equal(bf_metrics_statsd_format(&b, &a, &o), 0);
    assert_non_null(strstr(o.data, "bulkfleet.docs_ok:600|c\n")); /* the increase */
    assert_non_null(strstr(o.data, "bulkfleet.doc_errors.rejected:0|c\n"));
    assert_non_null(strstr(o.data, "bulkfleet.latency_ms.p99:12.500|g\n"));
    bf_buf_cleanup(&o);
}

static void test_parse_addr(void **state)
{
    (void)state;
    char host[64];
    uint16_t port;
    bf_diag_t d = {0};
    assert_int_equal(bf_metrics_parse_addr("--metrics-listen", "127.0.0.1:9464", 0, host,
                                           sizeof host, &port, &d),
                     0);
    assert_string_equal(host, "127.0.0.1");
    assert_int_equal(port, 9464);
    assert_int_equal(
        bf_metrics_parse_addr("--statsd", "localhost:8125", 0, host, sizeof host, &port, &d), 0);
    assert_string_equal(host, "127.0.0.1");
    const char *bad[] = {"9464",        ":9464",    "127.0.0.1:",    "127.0.0.1:70000",
                         "127.0.0.1:0", "nohost:1", "127.0.0.1:12x", NULL};
    for (int i = 0; bad[i]; i++) {
        bf_diag_t e = {0};
        assert_int_equal(bf_metrics_parse_addr("--statsd", bad[i], 0, host, sizeof host, &port, &e),
                         BF_E_INVAL);
        assert_non_null(strstr(e.msg, "--statsd"));
        assert_non_null(strstr(e.msg, "127.0.0.1:8125")); /* what to write instead */
    }
    bf_diag_t e = {0};
    assert_null(bf_metrics_new("127.0.0.1", NULL, &e));
    assert_int_equal(e.code, BF_E_INVAL);
}

/* a sample of one second with n requests of latency lat_us, service time svc_us */
static void feed(bf_metrics_t *m, int32_t second, uint64_t n, uint64_t lat_us, uint64_t svc_us)
{
    bf_counters_t c;
    memset(&c, 0, sizeof c);
    c.docs_sent = c.docs_ok = n * 10;
    bf_hist_t *lat = bf_hist_new(), *svc = bf_hist_new();
    bf_hist_record_n(lat, lat_us, n);
    bf_hist_record_n(svc, svc_us, n);
    Bf__Sample s;
    Bf__Hist hs, hl;
    bf_sample_pack(&s, &hs, &hl, "cell", (uint64_t)second + 1, second, &c, svc, lat);
    bf_metrics_sample(m, &s);
    bf_sample_pack_cleanup(&s);
    bf_hist_destroy(&lat);
    bf_hist_destroy(&svc);
}

static char *http_get(uint16_t port, const char *path)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sin;
    memset(&sin, 0, sizeof sin);
    sin.sin_family = AF_INET;
    sin.sin_port = htons(port);
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    struct timeval tv = {5, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    assert_int_equal(connect(fd, (struct sockaddr *)&sin, sizeof sin), 0);
    char req[256];
    int n = snprintf(req, sizeof req, "GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n", path);
    assert_int_equal(write(fd, req, (size_t)n), n);
    bf_buf_t b;
    bf_buf_init(&b, 0);
    char chunk[4096];
    ssize_t r;
    while ((r = read(fd, chunk, sizeof chunk)) > 0)
        bf_buf_append(&b, chunk, (size_t)r);
    close(fd);
    return bf_buf_steal(&b);
}

static void test_window_and_server(void **state)
{
    (void)state;
    bf_diag_t d = {0};
    bf_metrics_t *m = bf_metrics_new("127.0.0.1:0", NULL, &d);
    assert_non_null(m);
    uint16_t port = bf_metrics_port(m);
    assert_true(port > 0);
    /* a port in use is refused with a clear error */
    char spec[32];
    snprintf(spec, sizeof spec, "127.0.0.1:%u", port);
    bf_diag_t e = {0};
    assert_null(bf_metrics_new(spec, NULL, &e));
    assert_int_equal(e.code, BF_E_IO);
    assert_non_null(strstr(e.msg, "cannot listen"));

    bf_cell_t cell = test_cell();
    bf_metrics_cell_start(m);
    /* seconds 0..4 slow (100 ms), 5..14 fast (2 ms): after second 14 the 10 s window holds
     * only the fast ones; the cell's count holds all */
    for (int32_t s = 0; s < 15; s++)
        feed(m, s, 10, s < 5 ? 100000 : 2000, s < 5 ? 90000 : 1500);
    bf_metrics_agent_lost(m);
    bf_live_t l;
    memset(&l, 0, sizeof l);
    l.campaign = "c";
    l.cell = &cell;
    l.cells_total = 1;
    assert_int_equal(bf_metrics_publish(m, &l), 0);
    assert_int_equal(l.docs_ok_total, 1500);
    assert_int_equal(l.window_count, 100);
    assert_int_equal(l.cell_requests, 150);
    assert_true(l.latency_s[3] < 0.0025 && l.latency_s[3] >= 0.002);
    assert_true(l.service_time_s[0] < 0.002);
    assert_true(fabs(l.cell_latency_sum_s - (50 * 0.1 + 100 * 0.002)) < 0.05);
    assert_int_equal(l.agents_lost_total, 1);

    char *resp = http_get(port, "/metrics");
    assert_non_null(strstr(resp, "HTTP/1.0 200") ? resp : strstr(resp, "HTTP/1.1 200"));
    assert_non_null(strstr(resp, "text/plain; version=0.0.4"));
    assert_non_null(strstr(resp, "\nbulkfleet_docs_ok_total{campaign=\"c\"} 1500\n"));
    free(resp);
    resp = http_get(port, "/other");
    assert_non_null(strstr(resp, " 404 "));
    free(resp);
    /* a new cell forgets the window */
    bf_metrics_cell_start(m);
    assert_int_equal(bf_metrics_publish(m, &l), 0);
    assert_int_equal(l.window_count, 0);
    assert_true(isnan(l.latency_s[0]));
    assert_int_equal(l.docs_ok_total, 1500); /* counters stay */
    bf_metrics_destroy(&m);
    assert_null(m);
    bf_metrics_destroy(&m); /* NULL-safe */
}

static void test_statsd_udp(void **state)
{
    (void)state;
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in sin;
    memset(&sin, 0, sizeof sin);
    sin.sin_family = AF_INET;
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(fd, (struct sockaddr *)&sin, sizeof sin), 0);
    socklen_t sl = sizeof sin;
    getsockname(fd, (struct sockaddr *)&sin, &sl);
    struct timeval tv = {5, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    char spec[32];
    snprintf(spec, sizeof spec, "127.0.0.1:%u", ntohs(sin.sin_port));
    bf_diag_t d = {0};
    bf_metrics_t *m = bf_metrics_new(NULL, spec, &d);
    assert_non_null(m);
    assert_int_equal(bf_metrics_port(m), 0);
    feed(m, 0, 3, 1000, 900);
    bf_live_t l;
    memset(&l, 0, sizeof l);
    assert_int_equal(bf_metrics_publish(m, &l), 0);
    char buf[2048];
    ssize_t n = recv(fd, buf, sizeof buf - 1, 0);
    assert_true(n > 0 && n <= BF_STATSD_MAX_DATAGRAM);
    buf[n] = '\0';
    assert_non_null(strstr(buf, "bulkfleet.docs_ok:30|c\n"));
    feed(m, 1, 2, 1000, 900);
    assert_int_equal(bf_metrics_publish(m, &l), 0);
    n = recv(fd, buf, sizeof buf - 1, 0);
    assert_true(n > 0);
    buf[n] = '\0';
    assert_non_null(strstr(buf, "bulkfleet.docs_ok:20|c\n")); /* only the increase */
    assert_int_equal(bf_metrics_statsd_dropped(m), 0);
    bf_metrics_destroy(&m);
    close(fd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_label_name_and_escape), cmocka_unit_test(test_format_text),
        cmocka_unit_test(test_statsd_lines),          cmocka_unit_test(test_parse_addr),
        cmocka_unit_test(test_window_and_server),     cmocka_unit_test(test_statsd_udp),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
