/* SPDX-License-Identifier: MIT */
/* test_telemetry.c — unit tests for bf_telemetry: product detection, _nodes/stats parsing,
 * the window summary (queue max, rejected delta, hot-spot ratio, cluster docs/s) and the
 * telemetry ndjson, from recorded answers fed through bf__telemetry_ingest. */
#include "bf_buf.h"
#include "bf_error.h"
#include "bf_mem.h"
#include "bf_telemetry.h"

#include <jansson.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* ---- GET / ------------------------------------------------------------------------------- */

static void check_product(const char *body, const char *dist, const char *version, int major,
                          int compat)
{
    bf_product_t p;
    assert_int_equal(bf_telemetry_parse_product(body, &p), BF_OK);
    assert_string_equal(p.distribution, dist);
    assert_string_equal(p.version, version);
    assert_int_equal(p.major, major);
    assert_int_equal(p.compat_mode, compat);
}

static void test_product_elasticsearch_7_8_9(void **state)
{
    (void)state;
    check_product("{\"name\":\"n1\",\"cluster_name\":\"c\",\"version\":{\"number\":\"7.7.1\","
                  "\"build_flavor\":\"default\",\"build_type\":\"tar\"},\"tagline\":\"You Know, for Search\"}",
                  "elasticsearch", "7.7.1", 7, 0);
    check_product("{\"version\":{\"number\":\"8.12.2\",\"build_flavor\":\"default\"},"
                  "\"tagline\":\"You Know, for Search\"}", "elasticsearch", "8.12.2", 8, 0);
    check_product("{\"version\":{\"number\":\"9.1.0-SNAPSHOT\",\"build_flavor\":\"default\"},"
                  "\"tagline\":\"You Know, for Search\"}", "elasticsearch", "9.1.0-SNAPSHOT", 9, 0);
    /* 7.x OSS build: flavor oss, still Elasticsearch */
    check_product("{\"version\":{\"number\":\"7.10.2\",\"build_flavor\":\"oss\"},"
                  "\"tagline\":\"You Know, for Search\"}", "elasticsearch", "7.10.2", 7, 0);
}

static void test_product_opensearch_1_2_3(void **state)
{
    (void)state;
    check_product("{\"version\":{\"distribution\":\"opensearch\",\"number\":\"1.3.19\"},"
                  "\"tagline\":\"The OpenSearch Project: https://opensearch.org/\"}",
                  "opensearch", "1.3.19", 1, 0);
    check_product("{\"version\":{\"distribution\":\"opensearch\",\"number\":\"2.19.6\"},"
                  "\"tagline\":\"The OpenSearch Project: https://opensearch.org/\"}",
                  "opensearch", "2.19.6", 2, 0);
    check_product("{\"version\":{\"distribution\":\"opensearch\",\"number\":\"3.2.0\"},"
                  "\"tagline\":\"The OpenSearch Project: https://opensearch.org/\"}",
                  "opensearch", "3.2.0", 3, 0);
}

static void test_product_opensearch_compat_mode(void **state)
{
    (void)state;
    /* compatibility.override_main_response_version: 7.10.2, no distribution */
    check_product("{\"version\":{\"number\":\"7.10.2\",\"build_type\":\"tar\"},"
                  "\"tagline\":\"The OpenSearch Project: https://opensearch.org/\"}",
                  "opensearch", "7.10.2", 7, 1);
    /* even with another tagline, 7.10.2 without build_flavor is OpenSearch */
    check_product("{\"version\":{\"number\":\"7.10.2\"},\"tagline\":\"You Know, for Search\"}",
                  "opensearch", "7.10.2", 7, 1);
}

static void test_product_garbage(void **state)
{
    (void)state;
    bf_product_t p;
    assert_int_equal(bf_telemetry_parse_product("not json", &p), BF_E_PARSE);
    assert_int_equal(bf_telemetry_parse_product("{\"version\":{}}", &p), BF_E_PARSE);
    assert_int_equal(bf_telemetry_parse_product(NULL, &p), BF_E_PARSE);
}

/* ---- _nodes/stats ------------------------------------------------------------------------ */

/* A _nodes/stats answer (filter_path form) for three nodes with the given counters. */
static char *nodes_body(const int64_t *queue, const int64_t *rejected, const int64_t *index_total)
{
    return bf_asprintf(
        "{\"nodes\":{"
        "\"idB\":{\"name\":\"node-2\",\"timestamp\":1,\"roles\":[\"data\",\"ingest\"],"
        "\"indices\":{\"indexing\":{\"index_total\":%lld,\"index_time_in_millis\":10}},"
        "\"thread_pool\":{\"write\":{\"threads\":2,\"queue\":%lld,\"active\":2,\"rejected\":%lld}}},"
        "\"idA\":{\"name\":\"node-1\",\"timestamp\":1,\"roles\":[\"data\",\"cluster_manager\"],"
        "\"indices\":{\"indexing\":{\"index_total\":%lld,\"index_time_in_millis\":20}},"
        "\"thread_pool\":{\"write\":{\"threads\":2,\"queue\":%lld,\"active\":1,\"rejected\":%lld}}},"
        "\"idC\":{\"name\":\"node-3\",\"timestamp\":1,\"roles\":[\"data_hot\"],"
        "\"indices\":{\"indexing\":{\"index_total\":%lld,\"index_time_in_millis\":30}},"
        "\"thread_pool\":{\"write\":{\"threads\":2,\"queue\":%lld,\"active\":0,\"rejected\":%lld}}}}}",
        (long long)index_total[1], (long long)queue[1], (long long)rejected[1],
        (long long)index_total[0], (long long)queue[0], (long long)rejected[0],
        (long long)index_total[2], (long long)queue[2], (long long)rejected[2]);
}

static void test_parse_nodes_sorted_with_roles(void **state)
{
    (void)state;
    int64_t q[3] = {5, 6, 7}, r[3] = {1, 2, 3}, it[3] = {100, 200, 300};
    char *body = nodes_body(q, r, it);
    bf_node_stats_t *n = NULL;
    size_t nn = 0;
    assert_int_equal(bf_telemetry_parse_nodes(body, &n, &nn), BF_OK);
    assert_int_equal(nn, 3);
    assert_string_equal(n[0].name, "node-1");
    assert_string_equal(n[0].id, "idA");
    assert_int_equal(n[0].queue, 5);
    assert_int_equal(n[0].active, 1);
    assert_int_equal(n[0].rejected, 1);
    assert_int_equal(n[0].index_total, 100);
    assert_int_equal(n[0].index_time_ms, 20);
    assert_int_equal(n[0].data, 1);
    assert_string_equal(n[2].name, "node-3");
    assert_int_equal(n[2].data, 1); /* data_hot is a data role */
    assert_int_equal(n[0].wc_queue, -1);
    free(n);
    free(body);
}

static void test_parse_nodes_old_bulk_pool_and_write_coordination(void **state)
{
    (void)state;
    bf_node_stats_t *n = NULL;
    size_t nn = 0;
    /* ES <= 6.2: the pool is called bulk; a dedicated master has no data role */
    assert_int_equal(bf_telemetry_parse_nodes(
                         "{\"nodes\":{\"x\":{\"name\":\"old\",\"roles\":[\"master\"],"
                         "\"thread_pool\":{\"bulk\":{\"queue\":50,\"active\":4,\"rejected\":9}}}}}",
                         &n, &nn), BF_OK);
    assert_int_equal(nn, 1);
    assert_int_equal(n[0].queue, 50);
    assert_int_equal(n[0].rejected, 9);
    assert_int_equal(n[0].data, 0);
    assert_int_equal(n[0].index_total, -1);
    free(n);
    /* ES >= 9.1: write_coordination beside write; no roles reported = data */
    assert_int_equal(bf_telemetry_parse_nodes(
                         "{\"nodes\":{\"y\":{\"name\":\"new\",\"thread_pool\":{\"write\":{\"queue\":1,"
                         "\"active\":1,\"rejected\":0},\"write_coordination\":{\"queue\":3,"
                         "\"rejected\":4}}}}}", &n, &nn), BF_OK);
    assert_int_equal(n[0].wc_queue, 3);
    assert_int_equal(n[0].wc_rejected, 4);
    assert_int_equal(n[0].data, 1);
    free(n);
    assert_int_equal(bf_telemetry_parse_nodes("{\"_nodes\":{}}", &n, &nn), BF_E_PARSE);
    assert_int_equal(bf_telemetry_parse_nodes("[", &n, &nn), BF_E_PARSE);
}

/* ---- the window summary ------------------------------------------------------------------ */

static char *primaries(int64_t total)
{
    return bf_asprintf("{\"_all\":{\"primaries\":{\"indexing\":{\"index_total\":%lld}}}}",
                       (long long)total);
}

/* start at t0; warmup 2 s, duration 4 s: window between the ticks at t=2 and t=6.
 * node-1 indexes 300/s, node-2 100/s, node-3 200/s; primaries grow 250/s (replicas double). */
static bf_telemetry_t *feed_cell(bf_buf_t *nd, bf_telemetry_summary_t *sum, int fail_tick)
{
    bf_telemetry_t *t = bf_telemetry_new(NULL);
    bf_product_t p;
    bf_telemetry_parse_product("{\"version\":{\"distribution\":\"opensearch\",\"number\":\"2.19.6\"}}", &p);
    bf__telemetry_set_product(t, &p);
    const uint64_t t0 = 1000000000ull;
    bf__telemetry_begin(t, "bench-1,bench-2", t0, 2, 4);
    for (int s = -1; s <= 8; s++) {
        uint64_t at = t0 + (uint64_t)((int64_t)s * 1000000 + 20000); /* 20 ms after the second */
        if (s == fail_tick) {
            assert_int_equal(bf__telemetry_ingest(t, at, NULL, NULL, "timeout after 3000 ms"), BF_OK);
            continue;
        }
        int64_t k = s + 1;
        int64_t q[3] = {s == 4 ? 40 : 1, s == 5 ? 90 : 2, s == 7 ? 500 : 0}; /* 500 is after the window */
        int64_t r[3] = {10 + (s >= 3 ? 5 : 0), 0, 7};  /* node-1 rejects 5 inside the window */
        int64_t it[3] = {1000 + 300 * k, 1000 + 100 * k, 1000 + 200 * k};
        char *nb = nodes_body(q, r, it);
        char *pb = primaries(5000 + 250 * k);
        assert_int_equal(bf__telemetry_ingest(t, at, nb, pb, NULL), BF_OK);
        free(nb);
        free(pb);
    }
    bf_telemetry_stop(t, sum, nd);
    return t;
}

static void test_summary_window(void **state)
{
    (void)state;
    bf_buf_t nd;
    bf_buf_init(&nd, 0);
    bf_telemetry_summary_t sum;
    bf_telemetry_t *t = feed_cell(&nd, &sum, 99);
    assert_int_equal(sum.ticks, 10);
    assert_int_equal(sum.ticks_failed, 0);
    assert_int_equal(sum.write_queue_max, 90);   /* t=5 on node-2; the 500 at t=7 is outside */
    assert_int_equal(sum.write_rejected, 5);
    /* rates 300, 100, 200: busiest / mean = 300 / 200 */
    assert_true(fabs(sum.hot_spot_ratio - 1.5) < 1e-9);
    assert_true(fabs(sum.cluster_docs_per_s - 250.0) < 1e-6);
    bf_telemetry_destroy(&t);
    assert_null(t);
    bf_buf_cleanup(&nd);
}

/* notes2/i14.md: an interrupted cell's cluster figures spanned the planned window. Interrupted
 * during second 4 of W 2 + D 4: the cluster indexed 250/s until then and nothing after, and a
 * queue of 90 came at t=5, after the stop. The summary covers [2, 4), as the row does. */
static void test_interrupted_window(void **state)
{
    (void)state;
    for (int stopped = 0; stopped <= 2; stopped++) {
        bf_telemetry_t *t = bf_telemetry_new(NULL);
        const uint64_t t0 = 1000000000ull;
        bf__telemetry_begin(t, "bench-1", t0, 2, 4);
        for (int s = -1; s <= 8; s++) {
            uint64_t at = t0 + (uint64_t)((int64_t)s * 1000000 + 20000);
            int64_t k = (s < 4 ? s : 4) + 1; /* no indexing after second 4 */
            int64_t q[3] = {s == 3 ? 40 : 1, s == 5 ? 90 : 2, 0};
            int64_t r[3] = {0, 0, 0};
            int64_t it[3] = {1000 + 300 * k, 1000 + 100 * k, 1000 + 100 * k};
            char *nb = nodes_body(q, r, it);
            char *pb = primaries(5000 + 250 * k);
            assert_int_equal(bf__telemetry_ingest(t, at, nb, pb, NULL), BF_OK);
            free(nb);
            free(pb);
        }
        if (stopped == 1)
            bf_telemetry_stop_at(t, 4);
        if (stopped == 2)
            bf_telemetry_stop_at(t, 1); /* in warmup: no window */
        bf_buf_t nd;
        bf_buf_init(&nd, 0);
        bf_telemetry_summary_t sum;
        bf_telemetry_stop(t, &sum, &nd);
        if (stopped == 0) { /* the planned window: the idle seconds after the stop dilute it */
            assert_true(fabs(sum.cluster_docs_per_s - 125.0) < 1e-6);
            assert_int_equal(sum.write_queue_max, 90);
            assert_non_null(strstr(nd.data, "\"duration_s\":4,\"planned_duration_s\":4"));
        } else if (stopped == 1) {
            assert_true(fabs(sum.cluster_docs_per_s - 250.0) < 1e-6);
            assert_int_equal(sum.write_queue_max, 40);
            assert_non_null(strstr(nd.data, "\"duration_s\":2,\"planned_duration_s\":4"));
            assert_non_null(strstr(nd.data, "\"window_from_ms\":2020,\"window_to_ms\":4020"));
        } else {
            assert_true(isnan(sum.cluster_docs_per_s));
            assert_int_equal(sum.write_queue_max, -1);
            assert_non_null(strstr(nd.data, "\"duration_s\":0,\"planned_duration_s\":4"));
        }
        bf_buf_cleanup(&nd);
        bf_telemetry_destroy(&t);
    }
}

static void test_failed_tick_counted_and_written(void **state)
{
    (void)state;
    bf_buf_t nd;
    bf_buf_init(&nd, 0);
    bf_telemetry_summary_t sum;
    /* the tick at W fails: the window starts at the nearest answered tick (t=1 or 3) */
    bf_telemetry_t *t = feed_cell(&nd, &sum, 2);
    assert_int_equal(sum.ticks, 10);
    assert_int_equal(sum.ticks_failed, 1);
    assert_true(fabs(sum.cluster_docs_per_s - 250.0) < 1e-6);
    assert_non_null(strstr(nd.data, "\"error\":\"timeout after 3000 ms\""));
    bf_telemetry_destroy(&t);
    bf_buf_cleanup(&nd);
}

static void test_ndjson_lines(void **state)
{
    (void)state;
    bf_buf_t nd;
    bf_buf_init(&nd, 0);
    bf_telemetry_summary_t sum;
    bf_telemetry_t *t = feed_cell(&nd, &sum, 99);
    size_t info = 0, ticks = 0, nodes = 0, summary = 0;
    for (char *line = nd.data, *nl; line && *line; line = nl ? nl + 1 : NULL) {
        nl = strchr(line, '\n');
        json_t *o = json_loadb(line, nl ? (size_t)(nl - line) : strlen(line), 0, NULL);
        assert_non_null(o);
        const char *type = json_string_value(json_object_get(o, "type"));
        assert_non_null(type);
        if (strcmp(type, "info") == 0) {
            info++;
            assert_string_equal(json_string_value(json_object_get(o, "distribution")), "opensearch");
            assert_string_equal(json_string_value(json_object_get(o, "indices")), "bench-1,bench-2");
            assert_int_equal(json_integer_value(json_object_get(o, "warmup_s")), 2);
        } else if (strcmp(type, "tick") == 0) {
            json_t *arr = json_object_get(o, "nodes");
            assert_int_equal(json_array_size(arr), 3);
            json_t *n1 = json_array_get(arr, 0);
            assert_string_equal(json_string_value(json_object_get(n1, "name")), "node-1");
            if (ticks == 0) { /* no previous tick: no deltas */
                assert_true(json_is_null(json_object_get(n1, "rejected_delta")));
                assert_int_equal(json_integer_value(json_object_get(o, "second")), -1);
                assert_int_equal(json_integer_value(json_object_get(o, "t_ms")), -980);
            } else {
                assert_true(fabs(json_number_value(json_object_get(n1, "index_docs_per_s")) - 300.0) < 1e-6);
            }
            if (ticks == 4) /* second 3: node-1's five rejections */
                assert_int_equal(json_integer_value(json_object_get(n1, "rejected_delta")), 5);
            ticks++;
        } else if (strcmp(type, "node") == 0) {
            nodes++;
        } else if (strcmp(type, "summary") == 0) {
            summary++;
            assert_int_equal(json_integer_value(json_object_get(o, "write_queue_max")), 90);
            assert_int_equal(json_integer_value(json_object_get(o, "write_rejected")), 5);
            assert_int_equal(json_integer_value(json_object_get(o, "window_from_ms")), 2020);
            assert_int_equal(json_integer_value(json_object_get(o, "window_to_ms")), 6020);
        }
        json_decref(o);
    }
    assert_int_equal(info, 1);
    assert_int_equal(ticks, 10);
    assert_int_equal(nodes, 3);
    assert_int_equal(summary, 1);
    bf_telemetry_destroy(&t);
    bf_buf_cleanup(&nd);
}

static void test_counter_reset_means_restart(void **state)
{
    (void)state;
    bf_telemetry_t *t = bf_telemetry_new(NULL);
    bf__telemetry_begin(t, "x", 0, 0, 2);
    int64_t q[3] = {0, 0, 0};
    int64_t r0[3] = {100, 0, 0}, r1[3] = {3, 0, 0}; /* node-1 restarted: rejected went down */
    int64_t i0[3] = {1000, 1000, 1000}, i1[3] = {10, 1100, 1100};
    char *a = nodes_body(q, r0, i0), *b = nodes_body(q, r1, i1);
    bf__telemetry_ingest(t, 0, a, NULL, NULL);
    bf__telemetry_ingest(t, 2000000, b, NULL, NULL);
    bf_telemetry_summary_t sum;
    bf_telemetry_stop(t, &sum, NULL);
    assert_int_equal(sum.write_rejected, 0);              /* node-1 unknown, others 0 */
    assert_true(fabs(sum.hot_spot_ratio - 1.0) < 1e-9);  /* node-1's rate unknown: 50 and 50 */
    assert_true(isnan(sum.cluster_docs_per_s));          /* no primaries answers */
    free(a);
    free(b);
    bf_telemetry_destroy(&t);
}

/* transport rx/tx and write-pool completions: deltas over the window, per node and summed;
 * a node without transport counters makes the sum unknown (a partial sum would understate) */
static void test_transport_and_completed_deltas(void **state)
{
    (void)state;
#define TR_FMT                                                                                     \
    "{\"nodes\":{\"A\":{\"name\":\"node-0\",\"timestamp\":1,"                                      \
    "\"thread_pool\":{\"write\":{\"queue\":0,\"rejected\":0,\"completed\":%d}},"                   \
    "\"transport\":{\"rx_size_in_bytes\":%d,\"tx_size_in_bytes\":%d}},"                            \
    "\"B\":{\"name\":\"node-1\",\"timestamp\":1,"                                                  \
    "\"thread_pool\":{\"write\":{\"queue\":0,\"rejected\":0,\"completed\":%d}}%s}}}"
    char a[1024], b[1024];
    const char *trB0 = ",\"transport\":{\"rx_size_in_bytes\":10,\"tx_size_in_bytes\":20}";
    const char *trB1 = ",\"transport\":{\"rx_size_in_bytes\":510,\"tx_size_in_bytes\":70}";
    snprintf(a, sizeof a, TR_FMT, 5, 1000, 2000, 7, trB0);
    snprintf(b, sizeof b, TR_FMT, 9, 1300, 2100, 17, trB1);
    bf_telemetry_t *t = bf_telemetry_new(NULL);
    bf__telemetry_begin(t, "x", 0, 0, 2);
    assert_int_equal(bf__telemetry_ingest(t, 0, a, NULL, NULL), BF_OK);
    assert_int_equal(bf__telemetry_ingest(t, 2000000, b, NULL, NULL), BF_OK);
    bf_telemetry_summary_t sum;
    bf_buf_t nd;
    bf_buf_init(&nd, 0);
    bf_telemetry_stop(t, &sum, &nd);
    assert_int_equal(sum.transport_rx_bytes, 300 + 500);
    assert_int_equal(sum.transport_tx_bytes, 100 + 50);
    assert_non_null(strstr(nd.data, "\"write_completed\":4,\"transport_rx_bytes\":300,"
                                    "\"transport_tx_bytes\":100"));
    assert_non_null(strstr(nd.data, "\"write_completed\":10,\"transport_rx_bytes\":500"));
    bf_buf_cleanup(&nd);
    /* node-1 without transport counters: the sum is unknown */
    snprintf(a, sizeof a, TR_FMT, 5, 1000, 2000, 7, "");
    snprintf(b, sizeof b, TR_FMT, 9, 1300, 2100, 17, "");
    bf__telemetry_begin(t, "x", 0, 0, 2);
    bf__telemetry_ingest(t, 0, a, NULL, NULL);
    bf__telemetry_ingest(t, 2000000, b, NULL, NULL);
    bf_telemetry_stop(t, &sum, NULL);
    assert_int_equal(sum.transport_rx_bytes, -1);
    assert_int_equal(sum.transport_tx_bytes, -1);
    bf_telemetry_destroy(&t);
#undef TR_FMT
}

static void test_stop_without_start_is_unknown(void **state)
{
    (void)state;
    bf_telemetry_t *t = bf_telemetry_new(NULL);
    bf_telemetry_summary_t sum;
    bf_buf_t nd;
    bf_buf_init(&nd, 0);
    bf_telemetry_stop(t, &sum, &nd);
    assert_int_equal(sum.write_queue_max, -1);
    assert_int_equal(sum.write_rejected, -1);
    assert_true(isnan(sum.hot_spot_ratio));
    assert_true(isnan(sum.cluster_docs_per_s));
    assert_int_equal(nd.len, 0);
    /* no target: start is refused, the cell runs without telemetry */
    bf_cell_t cell;
    memset(&cell, 0, sizeof cell);
    assert_int_equal(bf_telemetry_start(t, &cell, 0, 1, 1), BF_E_STATE);
    bf_telemetry_destroy(&t);
    bf_telemetry_destroy(&t); /* NULL-safe */
    bf_buf_cleanup(&nd);
}

static void test_single_tick_gives_no_rates(void **state)
{
    (void)state;
    bf_telemetry_t *t = bf_telemetry_new(NULL);
    bf__telemetry_begin(t, "x", 0, 1, 1);
    int64_t q[3] = {3, 0, 0}, r[3] = {0, 0, 0}, it[3] = {1, 1, 1};
    char *a = nodes_body(q, r, it);
    bf__telemetry_ingest(t, 500000, a, NULL, NULL);
    bf_telemetry_summary_t sum;
    bf_telemetry_stop(t, &sum, NULL);
    assert_int_equal(sum.ticks, 1);
    assert_int_equal(sum.write_queue_max, -1);
    assert_true(isnan(sum.hot_spot_ratio));
    free(a);
    bf_telemetry_destroy(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_product_elasticsearch_7_8_9),
        cmocka_unit_test(test_product_opensearch_1_2_3),
        cmocka_unit_test(test_product_opensearch_compat_mode),
        cmocka_unit_test(test_product_garbage),
        cmocka_unit_test(test_parse_nodes_sorted_with_roles),
        cmocka_unit_test(test_parse_nodes_old_bulk_pool_and_write_coordination),
        cmocka_unit_test(test_summary_window),
        cmocka_unit_test(test_interrupted_window),
        cmocka_unit_test(test_failed_tick_counted_and_written),
        cmocka_unit_test(test_ndjson_lines),
        cmocka_unit_test(test_counter_reset_means_restart),
        cmocka_unit_test(test_transport_and_completed_deltas),
        cmocka_unit_test(test_stop_without_start_is_unknown),
        cmocka_unit_test(test_single_tick_gives_no_rates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
