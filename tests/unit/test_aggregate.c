/* SPDX-License-Identifier: MIT */
/* test_aggregate.c — merging samples from several agents into a cell's row
 * (docs/internals/measurement.md). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "bf_aggregate.h"
#include "bf_hist.h"
#include "bf_sample.h"
#include "bf_split.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* a packed-and-unpacked sample, as the coordinator receives it */
/* uncompressed payload bytes of each document sent in add_sample's seconds */
static uint64_t payload_bytes_per_doc = 0;

static void add_sample(bf_cellagg_t *agg, uint32_t agent, int32_t second, uint64_t ok,
                       uint64_t sent, uint64_t rejected, const uint64_t *svc_us, size_t nsvc)
{
    bf_counters_t c;
    memset(&c, 0, sizeof c);
    c.docs_ok = ok;
    c.docs_sent = sent;
    c.docs_rejected = rejected;
    c.bytes_payload = sent * payload_bytes_per_doc;
    c.req_ok = 1;
    c.cpu_user_ms = 100;
    bf_hist_t *h = bf_hist_new();
    for (size_t i = 0; i < nsvc; i++)
        bf_hist_record(h, svc_us[i]);
    Bf__Sample s;
    Bf__Hist hs, hl;
    bf_sample_pack(&s, &hs, &hl, "cell", (uint64_t)second + 1, second, &c, h, h);
    /* through the wire format, as in production */
    size_t n = bf__sample__get_packed_size(&s);
    uint8_t *buf = malloc(n);
    bf__sample__pack(&s, buf);
    bf_sample_pack_cleanup(&s);
    Bf__Sample *u = bf__sample__unpack(NULL, n, buf);
    assert_non_null(u);
    assert_int_equal(bf_cellagg_add(agg, agent, u), 0);
    bf__sample__free_unpacked(u, NULL);
    free(buf);
    bf_hist_destroy(&h);
}

static bf_cell_t test_cell(void)
{
    bf_cell_t c;
    memset(&c, 0, sizeof c);
    c.id = "s1-b100-c2";
    c.indices = 1;
    c.shards = 1;
    c.batch_size = 100;
    c.concurrency = 2;
    return c;
}

/* one second's counters, packed and unpacked as the coordinator receives them (no histograms:
 * a second in which no request completed) */
static void add_counters(bf_cellagg_t *agg, uint32_t agent, int32_t second, const bf_counters_t *c)
{
    bf_hist_t *h = bf_hist_new();
    Bf__Sample s;
    Bf__Hist hs, hl;
    bf_sample_pack(&s, &hs, &hl, "cell", (uint64_t)second + 1, second, c, h, h);
    size_t n = bf__sample__get_packed_size(&s);
    uint8_t *buf = malloc(n);
    bf__sample__pack(&s, buf);
    bf_sample_pack_cleanup(&s);
    Bf__Sample *u = bf__sample__unpack(NULL, n, buf);
    assert_non_null(u);
    assert_int_equal(bf_cellagg_add(agg, agent, u), 0);
    bf__sample__free_unpacked(u, NULL);
    free(buf);
    bf_hist_destroy(&h);
}

/* new user (notes2/newuser2.md problem 2): c 200 x 5000, W 1 + D 2, every request in flight
 * longer than the window. The window holds pro-rata documents (ok and unknown) but no request
 * completion; the reason must say that, not "the cluster did not answer (see the timeouts and
 * resets)" with every timeout and reset at 0, and doc errors % must be explained by the row */
static void test_stalled_reason_matches_counters(void **state)
{
    (void)state;
    bf_cell_t cell = test_cell();
    bf_cellagg_t *agg = bf_cellagg_new(&cell, 1, 1, NULL, 1, 2);
    bf_counters_t c;
    memset(&c, 0, sizeof c);
    c.docs_sent = 19000; /* seconds 1, 2: documents of requests still in flight */
    c.docs_ok = 18000;
    c.docs_unknown = 1000;
    add_counters(agg, 0, 1, &c);
    add_counters(agg, 0, 2, &c);
    memset(&c, 0, sizeof c); /* tail: those requests complete, 4 ok, 1 timed out */
    c.docs_sent = c.docs_ok = 100;
    c.req_ok = 4;
    c.req_timeout = 1;
    add_counters(agg, 0, 3, &c);
    bf_row_t row;
    bf_cellagg_row(agg, &row);
    assert_true(row.stalled);
    assert_int_equal(row.req_total, 0);
    assert_int_equal(row.req_transport_error, 0);
    assert_int_equal(row.req_abandoned, 0);
    assert_true(fabs(row.docs_per_s - 18000.0) < 1e-9); /* a true pro-rata figure: kept */
    assert_null(strstr(row.reason, "did not answer"));
    assert_non_null(strstr(row.reason, "no bulk request completed in the 2 s window"));
    assert_non_null(strstr(row.reason, "the 4 answered completed in warmup or after"));
    /* doc errors % = (failed + rejected + unknown) / sent, all in the row; the reason says
     * the unknown part, which has no error type and is not in doc_errors */
    assert_int_equal(row.doc_errors.n, 0);
    assert_true(fabs(row.doc_error_rate - 2000.0 / 38000.0) < 1e-12);
    assert_true(
        fabs(row.doc_error_rate - (double)(row.docs_failed + row.docs_rejected + row.docs_unknown) /
                                      (double)row.docs_sent) < 1e-12);
    assert_non_null(strstr(row.reason, "doc errors % includes 2000 documents of unknown "
                                       "outcome (no error type, not in doc_errors) of the "
                                       "38000 sent"));
    bf_cellagg_destroy(&agg);
    /* the window's timeouts are named when there are some */
    agg = bf_cellagg_new(&cell, 1, 1, NULL, 1, 2);
    memset(&c, 0, sizeof c);
    c.docs_sent = c.docs_unknown = 100;
    c.req_timeout = 1;
    add_counters(agg, 0, 1, &c);
    memset(&c, 0, sizeof c);
    add_counters(agg, 0, 2, &c);
    bf_cellagg_row(agg, &row);
    assert_true(row.stalled);
    assert_non_null(strstr(row.reason, "1 got no answer in it (connect error, timeout, reset"));
    bf_cellagg_destroy(&agg);
    /* nothing answered at all, anywhere */
    agg = bf_cellagg_new(&cell, 1, 1, NULL, 1, 2);
    memset(&c, 0, sizeof c);
    add_counters(agg, 0, 1, &c);
    add_counters(agg, 0, 2, &c);
    bf_cellagg_row(agg, &row);
    assert_true(row.stalled);
    assert_non_null(strstr(row.reason, "no bulk request was answered in the whole cell"));
    assert_null(strstr(row.reason, "doc errors %"));
    bf_cellagg_destroy(&agg);
}

/* notes2/fa.md: a c200 x 5000 cell, W 1 + D 2, 140000 documents unknown over the cell while
 * req_abandoned was 0 and the window showed no transport error: the 28 requests had timed out
 * 60 s later, in the tail (request.timeout). The row keeps every document and request in one
 * outcome over the whole cell and says where the unknown ones came from; a cut-off cell
 * (interrupted with requests in flight) names the abandoned ones. */
static void test_counts_at_the_stop(void **state)
{
    (void)state;
    bf_cell_t cell = test_cell();
    cell.batch_size = 5000;
    cell.concurrency = 200;
    bf_cellagg_t *agg = bf_cellagg_new(&cell, 1, 1, NULL, 1, 2);
    bf_counters_t c;
    memset(&c, 0, sizeof c);
    c.sends = 200; /* second 0: every request sent */
    add_counters(agg, 0, 0, &c);
    memset(&c, 0, sizeof c);
    c.docs_sent = 500000; /* seconds 1, 2: pro-rata shares of the documents in flight */
    c.docs_ok = 430000;
    c.docs_unknown = 70000;
    add_counters(agg, 0, 1, &c);
    add_counters(agg, 0, 2, &c);
    memset(&c, 0, sizeof c);
    c.req_ok = 172; /* tail, second 5: 172 answered */
    add_counters(agg, 0, 5, &c);
    memset(&c, 0, sizeof c);
    c.req_timeout = 28; /* tail, second 61: 28 timed out (books their causes) */
    c.docs_unknown_timeout = 140000;
    add_counters(agg, 0, 61, &c);
    bf_row_t row;
    bf_cellagg_row(agg, &row);
    assert_int_equal(row.req_transport_error, 0); /* the window's */
    assert_int_equal(row.req_abandoned, 0);
    assert_int_equal(row.docs_sent_all, 1000000);
    assert_int_equal(row.docs_ok_all + row.docs_failed_all + row.docs_rejected_all +
                         row.docs_unknown_all,
                     row.docs_sent_all);
    assert_int_equal(row.docs_unknown_all, 140000);
    assert_int_equal(row.docs_unknown_timeout, 140000);
    assert_int_equal(row.req_sent_all, 200);
    assert_int_equal(row.req_total_all, 200);
    assert_int_equal(row.req_timeout_all, 28);
    assert_true(row.counts_ok);
    assert_non_null(strstr(row.reason, "unknown outcome over the whole cell: 140000 documents, "
                                       "140000 timed out (request.timeout; 28 requests, 28 of "
                                       "them after the window)"));
    assert_null(strstr(row.reason, "abandoned"));
    assert_null(strstr(row.reason, "counts do not add up"));
    bf_cellagg_destroy(&agg);

    /* cut off: interrupted during second 2 with 4 requests of 100 in flight (Ctrl-C, Stop):
     * abandoned in the second the stop came, outside the shortened window */
    cell = test_cell();
    agg = bf_cellagg_new(&cell, 1, 1, NULL, 1, 10);
    memset(&c, 0, sizeof c);
    c.sends = 10;
    c.req_ok = 6;
    c.docs_sent = c.docs_ok = 600;
    add_counters(agg, 0, 0, &c);
    add_counters(agg, 0, 1, &c);
    bf_cellagg_stop_at(agg, 2);
    memset(&c, 0, sizeof c);
    c.req_ok = 4;
    c.docs_sent = 1000; /* 600 answered, 400 cut off */
    c.docs_ok = 600;
    c.docs_unknown = 400;
    c.req_abandoned = 4;
    c.docs_unknown_abandoned = 400;
    add_counters(agg, 0, 2, &c);
    bf_cellagg_row(agg, &row);
    assert_false(row.stalled); /* the interruption's, not a stall */
    assert_int_equal(row.req_abandoned, 4);
    assert_int_equal(row.docs_unknown_abandoned, 400);
    assert_int_equal(row.req_sent_all, 20);
    assert_int_equal(row.req_total_all, 20);
    assert_true(row.counts_ok);
    assert_non_null(strstr(row.reason, "unknown outcome over the whole cell: 400 documents, "
                                       "400 abandoned in flight when the load stopped (4 "
                                       "requests, cut off by the interruption)"));
    bf_cellagg_destroy(&agg);

    /* a booking that loses an outcome shows in the row instead of passing silently */
    agg = bf_cellagg_new(&cell, 1, 1, NULL, 0, 2);
    memset(&c, 0, sizeof c);
    c.sends = 3;
    c.req_ok = 2;
    c.docs_sent = 300;
    c.docs_ok = 200;
    add_counters(agg, 0, 0, &c);
    memset(&c, 0, sizeof c);
    add_counters(agg, 0, 1, &c);
    bf_cellagg_row(agg, &row);
    assert_false(row.counts_ok);
    assert_non_null(strstr(row.reason, "counts do not add up over the cell: 300 documents "
                                       "sent, 200 with an outcome"));
    assert_non_null(strstr(row.reason, "3 bulk requests sent, 2 with an outcome"));
    bf_cellagg_destroy(&agg);
}

/* notes2/fa.md: a stalled row's reason overwrote the client-bound one (and the degraded,
 * missing-seconds and failure texts overwrote each other): every clause that applies stays */
static void test_reason_keeps_every_clause(void **state)
{
    (void)state;
    bf_cell_t cell = test_cell();
    bf_cellagg_t *agg = bf_cellagg_new(&cell, 1, 2, NULL, 1, 2);
    bf_counters_t c;
    memset(&c, 0, sizeof c);
    c.busy_us_max = 990000; /* the busiest thread never waited for the network */
    c.docs_sent = 100;
    c.docs_unknown = 100;
    c.cpu_user_ms = 1000;
    for (int32_t s = 0; s < 3; s++)
        add_counters(agg, 0, s, &c);
    bf_cellagg_mark_lost(agg, 1, "agent-b", 1);
    bf_row_t row;
    bf_cellagg_row(agg, &row);
    assert_true(row.stalled);
    assert_true(row.client_bound);
    assert_true(row.degraded);
    const char *lost = strstr(row.reason, "agent agent-b lost from second 1");
    const char *stalled = strstr(row.reason, "stalled: ");
    const char *client = strstr(row.reason, "client-bound: the load generator limited");
    const char *unknown = strstr(row.reason, "doc errors % includes 200 documents");
    assert_non_null(lost);
    assert_non_null(stalled);
    assert_non_null(client);
    assert_non_null(unknown);
    assert_true(lost < stalled && stalled < client && client < unknown);
    bf_cellagg_destroy(&agg);
}

/* docs/s is Σ docs_ok over [W, W+D) / D; warmup and tail are excluded; an empty second is 0 */
static void test_docs_per_s_window(void **state)
{
    (void)state;
    bf_cell_t cell = test_cell();
    uint32_t cores[2] = {2, 2};
    bf_cellagg_t *agg = bf_cellagg_new(&cell, 1, 2, cores, 2, 4);
    uint64_t svc[] = {1000};
    add_sample(agg, 0, 0, 999, 999, 0, svc, 1);    /* warmup */
    add_sample(agg, 0, 1, 999, 999, 0, svc, 1);    /* warmup */
    add_sample(agg, 0, 2, 100, 100, 0, svc, 1);
    add_sample(agg, 1, 2, 300, 300, 0, svc, 1);
    add_sample(agg, 0, 3, 200, 200, 0, svc, 1);
    /* second 4: nothing at all from anyone (an empty second counts as 0) */
    add_sample(agg, 1, 5, 400, 500, 100, svc, 1);
    add_sample(agg, 0, 6, 7777, 7777, 0, svc, 1);  /* tail: after W + D */
    bf_row_t row;
    bf_cellagg_row(agg, &row);
    assert_int_equal(row.docs_ok, 100 + 300 + 200 + 400);
    assert_true(fabs(row.docs_per_s - 1000.0 / 4) < 1e-9);
    assert_true(row.docs_per_s_min == 0);          /* second 4 */
    assert_true(row.docs_per_s_max == 400);
    assert_int_equal(row.docs_rejected, 100);
    assert_int_equal(row.docs_ok_all, 999 + 999 + 1000 + 7777);
    assert_true(fabs(row.doc_error_rate - 100.0 / 1100.0) < 1e-9);
    assert_int_equal(row.late_seconds, 4); /* agent 1 silent in 3 and 4, agent 0 in 4 and 5 */
    bf_cellagg_destroy(&agg);
}

/* Ctrl-C at second 5 of W 1 + D 30: the window is seconds 1..4, docs/s over those 4 seconds,
 * later seconds count only for verification; abandoned requests then do not flag a stall */
static void test_stop_at_partial_window(void **state)
{
    (void)state;
    bf_cell_t cell = test_cell();
    bf_cellagg_t *agg = bf_cellagg_new(&cell, 1, 1, NULL, 1, 30);
    uint64_t svc[] = {1000};
    add_sample(agg, 0, 0, 50, 50, 0, svc, 1); /* warmup */
    for (int32_t s = 1; s <= 4; s++)
        add_sample(agg, 0, s, 100, 100, 0, svc, 1);
    bf_cellagg_stop_at(agg, 5);
    add_sample(agg, 0, 5, 30, 60, 0, svc, 1); /* the interrupted second: outside the window */
    bf_row_t row;
    bf_cellagg_row(agg, &row);
    assert_int_equal(row.duration_s, 4);
    assert_int_equal(row.docs_ok, 400);
    assert_true(fabs(row.docs_per_s - 100.0) < 1e-9);
    assert_int_equal(row.docs_ok_all, 50 + 400 + 30);
    assert_int_equal(row.docs_sent_all, 50 + 400 + 60);
    assert_false(row.stalled);
    bf_cellagg_destroy(&agg);
    /* interrupted during warmup: an empty window (stalled: no answer in it) */
    agg = bf_cellagg_new(&cell, 1, 1, NULL, 3, 10);
    add_sample(agg, 0, 0, 50, 50, 0, svc, 1);
    bf_cellagg_stop_at(agg, 1);
    add_sample(agg, 0, 3, 50, 50, 0, svc, 1); /* drained after the stop: not in any window */
    bf_cellagg_row(agg, &row);
    assert_int_equal(row.duration_s, 0);
    assert_int_equal(row.docs_ok, 0);
    assert_true(row.docs_per_s == 0);
    bf_cellagg_destroy(&agg);
    /* a stop after the window changes nothing */
    agg = bf_cellagg_new(&cell, 1, 1, NULL, 1, 2);
    bf_cellagg_stop_at(agg, 7);
    bf_cellagg_row(agg, &row);
    assert_int_equal(row.duration_s, 2);
    bf_cellagg_destroy(&agg);
}

/* what a progress line says about a second: within its phase, 1-based */
static void test_phase(void **state)
{
    (void)state;
    static const struct {
        int32_t second;
        uint32_t w, d;
        const char *want;
    } cases[] = {
        {0, 5, 10, "warmup 1/5s"},     {4, 5, 10, "warmup 5/5s"}, {5, 5, 10, "measure 1/10s"},
        {14, 5, 10, "measure 10/10s"}, {15, 5, 10, "tail +1s"},   {0, 0, 3, "measure 1/3s"},
        {3, 0, 3, "tail +1s"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[48];
        assert_string_equal(
            bf_cellagg_phase(cases[i].second, cases[i].w, cases[i].d, buf, sizeof buf),
            cases[i].want);
    }
}

/* why a count differs from the acknowledged documents: every case of the table */
static void test_count_why(void **state)
{
    (void)state;
    static const struct {
        int64_t counted;
        uint64_t ok, sent, unknown;
        const char *want; /* a phrase of the reason; NULL: empty */
        int degraded;
    } cases[] = {
        {-1, 10, 10, 0, NULL, 0},
        /* one document is said in the singular */
        {10001, 10000, 10000, 0, "grew by 1 more document than this run sent (10000)", 0},
        {10001, 10000, 10001, 1, "the 1 extra document is among the 1 whose outcome", 0},
        {9999, 10000, 10000, 0, "; 1 acknowledged document is not in the count", 0},
        {13000, 10000, 10000, 0,
         "another writer: the indices grew by 3000 more documents than "
         "this run sent (10000)",
         0},
        {10500, 10000, 11000, 1000,
         "the 500 extra documents are among the 1000 whose outcome "
         "is unknown",
         0},
        {10500, 10000, 11000, 200,
         "500 more than acknowledged, and more than the 200 of "
         "unknown outcome: another writer may",
         0},
        {9000, 10000, 10000, 0,
         "1000 acknowledged documents are not in the count: an id sent "
         "twice",
         0},
        /* seen on OpenSearch 2.19 (integration_routing_stale, promote): a cancelled primary
         * acknowledged documents its promoted replica never got */
        {9000, 10000, 10000, 0,
         "or the cluster lost acknowledged writes (a primary failed or "
         "was cancelled under load",
         0},
        /* kill -9 of an agent mid-cell (h2's operator run: 347500 counted, 335627 reported):
         * the excess is the lost agent's, not another writer's */
        {347500, 335627, 335627, 0,
         "11873 more documents than the samples report: an agent was lost (degraded), and "
         "what it sent after its last sample is in no sample",
         1},
        {13000, 10000, 11000, 1000, "an agent was lost (degraded)", 1},
        /* Ctrl-C mid-cell (degraded 2 marks it aborted here): 7450 documents in
         * flight are of unknown outcome by design, not another writer nor a loss */
        {17450, 10000, 20000, 0,
         "the cell was interrupted: the 7450 documents beyond the acknowledged ones were in "
         "requests in flight when the load stopped, so their outcome is unknown by design",
         2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        bf_row_t row;
        memset(&row, 0, sizeof row);
        row.docs_counted = cases[i].counted;
        row.docs_ok_all = cases[i].ok;
        row.docs_sent_all = cases[i].sent;
        row.docs_unknown_all = cases[i].unknown;
        row.degraded = cases[i].degraded == 1;
        row.aborted = cases[i].degraded == 2;
        char buf[600];
        bf_row_count_why(&row, buf, sizeof buf);
        if (cases[i].want == NULL)
            assert_string_equal(buf, "");
        else if (strstr(buf, cases[i].want) == NULL)
            fail_msg("case %zu: '%s' lacks '%s'", i, buf, cases[i].want);
    }
}

/* disk cost: payload of acknowledged documents over every second (warmup and tail too, as the
 * store holds them all), each second's bytes scaled by ok / sent; only a clean row is costed */
static void test_store_cost(void **state)
{
    (void)state;
    bf_cell_t cell = test_cell();
    bf_cellagg_t *agg = bf_cellagg_new(&cell, 1, 1, NULL, 1, 2);
    uint64_t svc[] = {1000};
    payload_bytes_per_doc = 200;
    add_sample(agg, 0, 0, 100, 100, 0, svc, 1);  /* warmup: 20000 bytes */
    add_sample(agg, 0, 1, 150, 200, 50, svc, 1); /* 40000 sent, 3/4 ok: 30000 */
    add_sample(agg, 0, 3, 10, 10, 0, svc, 1);    /* tail: 2000 */
    payload_bytes_per_doc = 0;
    bf_row_t row;
    bf_cellagg_row(agg, &row);
    assert_int_equal(row.bytes_payload_ok_all, 20000 + 30000 + 2000);
    assert_int_equal(row.store_bytes, -1);
    assert_true(isnan(row.store_bytes_per_payload_byte));
    row.verified = 1;
    bf_row_store_cost(&row, 78000, 0);
    assert_int_equal(row.store_bytes, 78000);
    assert_true(fabs(row.store_bytes_per_payload_byte - 1.5) < 1e-12);
    /* not measured: unknown store, documents there before the cell, unverified, failed */
    bf_row_store_cost(&row, -1, 0);
    assert_true(isnan(row.store_bytes_per_payload_byte));
    bf_row_store_cost(&row, 78000, 5);
    assert_true(isnan(row.store_bytes_per_payload_byte));
    row.verified = 0;
    bf_row_store_cost(&row, 78000, 0);
    assert_int_equal(row.store_bytes, -1);
    row.verified = 1;
    row.failed = 1;
    bf_row_store_cost(&row, 78000, 0);
    assert_true(isnan(row.store_bytes_per_payload_byte));
    bf_cellagg_destroy(&agg);
}

/* the per-second p99 series of a tracked cell: the highest of the agents' p99 per second; a
 * latency doubling across the window is growth ~1; a flat one ~0; untracked rows say NAN */
static void test_p99_growth(void **state)
{
    (void)state;
    bf_cell_t cell = test_cell();
    bf_cellagg_t *agg = bf_cellagg_new(&cell, 1, 2, NULL, 1, 5);
    bf_cellagg_track_p99(agg);
    uint64_t warm[] = {900000};
    add_sample(agg, 0, 0, 10, 10, 0, warm, 1); /* warmup: not in the series */
    for (int s = 1; s <= 5; s++) {
        uint64_t lat[100], low[100];
        for (int i = 0; i < 100; i++) {
            lat[i] = (uint64_t)(10000 + 2500 * (s - 1)); /* 10, 12.5, .. 20 ms */
            low[i] = 1000;
        }
        add_sample(agg, 0, s, 10, 10, 0, lat, 100);
        add_sample(agg, 1, s, 10, 10, 0, low, 100); /* lower: the max is taken */
    }
    bf_row_t row;
    bf_cellagg_row(agg, &row);
    /* +10 ms over the window, median 15 ms */
    assert_true(fabs(row.latency_p99_growth - 10.0 / 15.0) < 0.01);
    bf_cellagg_destroy(&agg);

    agg = bf_cellagg_new(&cell, 1, 1, NULL, 0, 3);
    uint64_t flat[] = {5000};
    for (int s = 0; s < 3; s++)
        add_sample(agg, 0, s, 10, 10, 0, flat, 1);
    bf_cellagg_row(agg, &row);
    assert_true(isnan(row.latency_p99_growth)); /* not tracked */
    bf_cellagg_destroy(&agg);
}

/* percentiles come from histograms merged by adding counts, never averaged */
static void test_merged_percentiles(void **state)
{
    (void)state;
    bf_cell_t cell = test_cell();
    bf_cellagg_t *agg = bf_cellagg_new(&cell, 1, 2, NULL, 0, 1);
    uint64_t fast[1000], slow[10];
    for (size_t i = 0; i < 1000; i++)
        fast[i] = 1000; /* 1 ms */
    for (size_t i = 0; i < 10; i++)
        slow[i] = 2000000; /* 2 s */
    add_sample(agg, 0, 0, 10, 10, 0, fast, 1000);
    add_sample(agg, 1, 0, 10, 10, 0, slow, 10);
    bf_row_t row;
    bf_cellagg_row(agg, &row);
    assert_int_equal(row.service.count, 1010);
    /* exact: 1010 values, p50 and p99 are 1 ms (rank 505 and 1000), max is 2 s */
    assert_true(fabs(row.service.p50_ms - 1.0) < 0.001);
    assert_true(fabs(row.service.p99_ms - 1.0) < 0.001);
    assert_true(fabs(row.service.max_ms - 2000.0) / 2000.0 < 0.001);
    /* p99.9 needs >= 1000 samples: present here, and it falls in the slow mode */
    assert_true(fabs(row.service.p999_ms - 2000.0) / 2000.0 < 0.001);
    bf_cellagg_destroy(&agg);
}

static void test_percentile_needs_samples(void **state)
{
    (void)state;
    bf_cell_t cell = test_cell();
    bf_cellagg_t *agg = bf_cellagg_new(&cell, 1, 1, NULL, 0, 1);
    uint64_t v[50];
    for (size_t i = 0; i < 50; i++)
        v[i] = 1000 * (i + 1);
    add_sample(agg, 0, 0, 1, 1, 0, v, 50);
    bf_row_t row;
    bf_cellagg_row(agg, &row);
    assert_false(isnan(row.service.p90_ms));
    assert_true(isnan(row.service.p99_ms));  /* < 100 samples */
    assert_true(isnan(row.service.p999_ms)); /* < 1000 samples */
    bf_cellagg_destroy(&agg);
}

static void test_lost_agent_degrades(void **state)
{
    (void)state;
    bf_cell_t cell = test_cell();
    bf_cellagg_t *agg = bf_cellagg_new(&cell, 1, 2, NULL, 0, 2);
    uint64_t svc[] = {1000};
    add_sample(agg, 0, 0, 10, 10, 0, svc, 1);
    add_sample(agg, 1, 0, 10, 10, 0, svc, 1);
    add_sample(agg, 0, 1, 10, 10, 0, svc, 1);
    bf_cellagg_mark_lost(agg, 1, "agent-b", 1);
    bf_row_t row;
    bf_cellagg_row(agg, &row);
    assert_true(row.degraded);
    assert_non_null(strstr(row.reason, "agent-b lost from second 1"));
    assert_int_equal(row.late_seconds, 0); /* a lost agent's silence is not "late" */
    bf_cellagg_destroy(&agg);
}

/* an agent lost and back (link cut, then reconnected and resent) says both in the reason */
static void test_lost_agent_back(void **state)
{
    (void)state;
    bf_cell_t cell = test_cell();
    bf_cellagg_t *agg = bf_cellagg_new(&cell, 1, 2, NULL, 0, 4);
    uint64_t svc[] = {1000};
    add_sample(agg, 1, 0, 10, 10, 0, svc, 1);
    bf_cellagg_mark_lost(agg, 1, "agent-b", 1);
    add_sample(agg, 1, 3, 10, 10, 0, svc, 1);
    bf_row_t row;
    bf_cellagg_row(agg, &row);
    assert_true(row.degraded);
    /* every clause that applies, the degraded one first (agent-a never reported: its 4
     * seconds are missing, and 2 responses are few) */
    assert_string_equal(row.reason, "agent agent-b lost from second 1, reporting again from "
                                    "second 3; 4 agent-seconds missing in the window; "
                                    "few-requests: only 2 bulk responses in the 4 s window, "
                                    "too few to rank this cell's docs/s; lengthen run.duration");
    bf_cellagg_destroy(&agg);
}

static void test_out_of_range_second_refused(void **state)
{
    (void)state;
    bf_cell_t cell = test_cell();
    bf_cellagg_t *agg = bf_cellagg_new(&cell, 1, 1, NULL, 0, 1);
    Bf__Sample s = BF__SAMPLE__INIT;
    s.second = BF_MAX_CELL_SECONDS;
    assert_int_equal(bf_cellagg_add(agg, 0, &s), BF_E_RANGE);
    s.second = 0;
    assert_int_equal(bf_cellagg_add(agg, 7, &s), 0); /* unknown agent index: ignored */
    bf_cellagg_destroy(&agg);
}

static void test_repetitions_median_cv(void **state)
{
    (void)state;
    bf_cell_t cell = test_cell();
    bf_row_t reps[3];
    memset(reps, 0, sizeof reps);
    double v[3] = {100, 300, 200};
    for (int i = 0; i < 3; i++) {
        reps[i].cell = &cell;
        reps[i].docs_per_s = v[i];
        reps[i].verified = 1;
    }
    bf_row_t out;
    bf_rows_median(reps, 3, &out);
    assert_true(out.docs_per_s == 200);
    assert_int_equal(out.repeat, 3);
    assert_true(fabs(out.cv - 100.0 / 200.0) < 1e-9); /* stddev 100 (n-1), mean 200 */
    /* an even count: docs/s is the median the interval is about (the mean of the middle two,
     * 250), not the lower-middle run's 200; the other figures are that run's */
    bf_row_t r4[4];
    memset(r4, 0, sizeof r4);
    double v4[4] = {100, 300, 200, 400};
    for (int i = 0; i < 4; i++) {
        r4[i].cell = &cell;
        r4[i].docs_per_s = v4[i];
        r4[i].service.p50_ms = v4[i] / 10; /* tells which run the row's other figures are */
        r4[i].verified = 1;
    }
    bf_rows_median(r4, 4, &out);
    assert_true(out.docs_per_s == 250);
    assert_true(out.service.p50_ms == 20);
    assert_true(out.docs_per_s_ci_low <= out.docs_per_s &&
                out.docs_per_s <= out.docs_per_s_ci_high);
}

/* largest remainder: shares add up exactly and follow the weights */
static void test_split(void **state)
{
    (void)state;
    uint32_t w[3] = {2, 2, 4};
    uint64_t s[3];
    bf_split_largest_remainder(10, w, 3, s);
    assert_int_equal(s[0] + s[1] + s[2], 10);
    assert_int_equal(s[2], 5);
    assert_true(s[0] == 3 || s[1] == 3);
    uint32_t one[1] = {0};
    bf_split_largest_remainder(7, one, 1, s);
    assert_int_equal(s[0], 7);
    uint32_t eq[4] = {1, 1, 1, 1};
    uint64_t s4[4];
    bf_split_largest_remainder(3, eq, 4, s4);
    assert_int_equal(s4[0] + s4[1] + s4[2] + s4[3], 3);
    assert_int_equal(s4[3], 0); /* ties go to the lower index */
    for (uint64_t total = 0; total < 200; total++) {
        uint32_t ww[5] = {1, 3, 7, 2, 16};
        uint64_t ss[5];
        bf_split_largest_remainder(total, ww, 5, ss);
        assert_int_equal(ss[0] + ss[1] + ss[2] + ss[3] + ss[4], total);
    }
}

/* the fleet's connections spread over target.hosts as one agent's do. Each agent
 * started at hosts[0] (or at its first thread's number, which with 2 threads an agent is even),
 * so 2 agents of one connection each against 2 hosts loaded only the first. For 1..3 agents
 * (equal cores, the coordinator's split of concurrency) and 2..3 hosts, each host gets
 * floor or ceil of concurrency / hosts connections. */
static void test_split_bases_spread_hosts(void **state)
{
    (void)state;
    for (uint32_t nagents = 1; nagents <= 3; nagents++)
        for (uint32_t nhosts = 2; nhosts <= 3; nhosts++)
            for (uint64_t conc = nagents; conc <= 12; conc++) {
                uint32_t cores[3] = {2, 2, 2};
                uint64_t share[3] = {0};
                uint32_t base[3] = {99, 99, 99};
                /* as bf_cell_protocol.c: one each, the rest by cores */
                bf_split_largest_remainder(conc - nagents, cores, nagents, share);
                for (uint32_t i = 0; i < nagents; i++)
                    share[i]++;
                bf_split_bases(share, nagents, base);
                assert_int_equal(base[0], 0);
                uint64_t per_host[3] = {0};
                for (uint32_t i = 0; i < nagents; i++)
                    for (uint64_t k = 0; k < share[i]; k++) /* as bf_worker: (base + k) % hosts */
                        per_host[(base[i] + k) % nhosts]++;
                for (uint32_t h = 0; h < nhosts; h++) {
                    assert_true(per_host[h] >= conc / nhosts);
                    assert_true(per_host[h] <= (conc + nhosts - 1) / nhosts);
                }
            }
    /* the case the issue measured: concurrency 2, 2 agents: bases 0 and 1 */
    uint64_t two[2] = {1, 1};
    uint32_t b[2];
    bf_split_bases(two, 2, b);
    assert_int_equal(b[0], 0);
    assert_int_equal(b[1], 1);
}

/* bf_split_cell_init, the cell's load over its agents (bf__cell_protocol_run's split):
 * one request in flight and one search client each when there are enough, the rest by cores;
 * the target rate in milli-docs/s by cores; the search rate by search clients; connection
 * bases in agent order */
static void test_split_cell(void **state)
{
    (void)state;
    static const struct {
        uint32_t n, cores[3], conc, sclients;
        double rate, srate;
        uint64_t want_conc[3], want_rate[3], want_sc[3], want_srate[3];
        uint32_t want_cbase[3], want_sbase[3];
    } cases[] = {
        /* 10 over cores 2,2,4: one each, the 7 left as 1.75/1.75/3.5 -> 2,2,3 (+1 each) */
        {3,
         {2, 2, 4},
         10,
         0,
         1000.5,
         0,
         {3, 3, 4},
         {250125, 250125, 500250},
         {0, 0, 0},
         {0, 0, 0},
         {0, 3, 6},
         {0, 0, 0}},
        /* fewer requests than agents: by cores alone, an agent may get 0 */
        {3,
         {1, 1, 1},
         2,
         0,
         0,
         0,
         {1, 1, 0},
         {0, 0, 0},
         {0, 0, 0},
         {0, 0, 0},
         {0, 1, 2},
         {0, 0, 0}},
        /* search: clients one each + by cores, the rate by clients */
        /* 4 over cores 1,3: one each, 2 left as 0.5/1.5, the tie to the lower index */
        {2, {1, 3}, 4, 6, 0, 40, {2, 2}, {0, 0}, {2, 4}, {13333, 26667}, {0, 2}, {0, 2}},
        /* a search-only cell with fewer clients than agents: one gets none, weighs 1 */
        {2, {4, 4}, 0, 1, 0, 10, {0, 0}, {0, 0}, {1, 0}, {5000, 5000}, {0, 0}, {0, 1}},
        /* one agent takes everything */
        {1, {8}, 7, 2, 12.3456, 1.5, {7}, {12346}, {2}, {1500}, {0}, {0}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        bf_split_cell_t s;
        bf_split_cell_init(&s, cases[c].conc, cases[c].rate, cases[c].sclients, cases[c].srate,
                           cases[c].cores, cases[c].n);
        for (uint32_t i = 0; i < cases[c].n; i++) {
            if (s.conc[i] != cases[c].want_conc[i] || s.rate[i] != cases[c].want_rate[i] ||
                s.sclients[i] != cases[c].want_sc[i] || s.srate[i] != cases[c].want_srate[i] ||
                s.conn_base[i] != cases[c].want_cbase[i] ||
                s.search_base[i] != cases[c].want_sbase[i])
                fail_msg("case %zu agent %u: conc %llu rate %llu sclients %llu srate %llu "
                         "conn_base %u search_base %u",
                         c, i, (unsigned long long)s.conc[i], (unsigned long long)s.rate[i],
                         (unsigned long long)s.sclients[i], (unsigned long long)s.srate[i],
                         s.conn_base[i], s.search_base[i]);
        }
        bf_split_cell_cleanup(&s);
        assert_null(s.conc);
    }
}

/* Found by fuzz_sample: a sample whose latency histogram was refused still added its service
 * histogram. A sample's histograms are now taken together or not at all. */
static void test_bad_histogram_adds_nothing(void **state)
{
    (void)state;
    bf_counters_t c;
    memset(&c, 0, sizeof c);
    c.docs_ok = 10;
    bf_hist_t *s = bf_hist_new(), *l = bf_hist_new();
    bf_hist_record(s, 1500);
    bf_hist_record(l, 2500);
    Bf__Sample m;
    Bf__Hist hs, hl;
    bf_sample_pack(&m, &hs, &hl, "c", 1, 0, &c, s, l);
    uint32_t bad = (uint32_t)bf_hist_counts_len(); /* one past the layout */
    uint32_t *keep = hl.index;
    hl.index = &bad;
    hl.n_index = hl.n_count = 1;
    bf_counters_t got;
    memset(&got, 0, sizeof got);
    bf_hist_t *svc = bf_hist_new(), *lat = bf_hist_new();
    assert_int_equal(bf_sample_unpack_add(&m, &got, svc, lat), BF_E_RANGE);
    assert_int_equal(bf_hist_count(svc), 0);
    assert_int_equal(bf_hist_count(lat), 0);
    assert_int_equal(got.docs_ok, 10); /* the counters are still counted */
    hl.index = keep;
    bf_sample_pack_cleanup(&m);
    bf_hist_destroy(&svc);
    bf_hist_destroy(&lat);
    bf_hist_destroy(&s);
    bf_hist_destroy(&l);
}

/* the cluster's query phases against the clients' answered searches x shards */
static void test_search_verify(void **state)
{
    (void)state;
    bf_cell_t cell = {.id = "c", .shards = 3, .indices = 2};
    static const struct {
        uint64_t ok0, ok1, err;
        int skip;
        int64_t counted;
        int want;
        const char *reason;
    } cases[] = {
        {10, 5, 0, 0, 90, 1, ""},                    /* (10 + 5) x 3 x 2 */
        {10, 5, 0, 0, 89, 0, "SEARCHES UNVERIFIED"}, /* one missing */
        {10, 5, 0, 1, 60, -1, "paged or sorted"},    /* shards may be skipped */
        {10, 5, 2, 0, 90, -1, "queries failed"},     /* errors: not exact */
        {10, 5, 0, 0, -1, -1, "could not be read"},  /* no stats */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        bf_row_t row;
        memset(&row, 0, sizeof row);
        row.cell = &cell;
        row.nqueries = 2;
        row.queries[0].ops_ok_all = cases[i].ok0;
        row.queries[1].ops_ok_all = cases[i].ok1;
        row.queries[1].ops_error = cases[i].err;
        row.queries[1].skip_may = cases[i].skip;
        bf_row_search_verify(&row, &cell, cases[i].counted);
        if (row.search_verified != cases[i].want || row.search_shard_queries_expected != 90 ||
            strstr(row.reason, cases[i].reason) == NULL)
            fail_msg("case %zu: verified %d expected %lld reason '%s'", i, row.search_verified,
                     (long long)row.search_shard_queries_expected, row.reason);
    }
}

/* search-rate-missed: the queries started against search_rate, a table of every case */
static void test_search_rate_missed(void **state)
{
    (void)state;
    static const struct {
        uint32_t clients;
        double rate, started;
        int want;
    } cases[] = {
        {2, 20, 20.0, 0},  /* kept */
        {2, 20, 19.7, 0},  /* within BF_TARGET_MISS (2 %) */
        {2, 20, 19.5, 1},  /* 2.5 % short */
        {2, 20, 0.0, 1},   /* nothing started */
        {2, 0, 3.0, 0},    /* closed loop: no target */
        {0, 20, 0.0, 0},   /* indexing alone: no search clients */
        {1, 500, 40.0, 1}, /* one client cannot keep 500/s */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        bf_cell_t cell = {
            .id = "c", .search_clients = cases[i].clients, .search_rate = cases[i].rate};
        if (bf_search_rate_missed(&cell, cases[i].started) != cases[i].want)
            fail_msg("case %zu: want %d", i, cases[i].want);
    }
}

/* A row with nothing acknowledged (an agent lost while it prepared, 0 docs/s)
 * said "verified: yes" since 0 counted = 0 acknowledged; a search-only cell stays verified */
static void test_nothing_acknowledged_is_not_verified(void **state)
{
    (void)state;
    bf_cell_t cell = test_cell();
    cell.concurrency = 2;
    bf_row_t row;
    memset(&row, 0, sizeof row);
    bf_row_verify_counted(&row, &cell, 0, 0);
    assert_int_equal(row.docs_counted, 0);
    assert_false(row.verified);
    assert_non_null(strstr(row.reason, "no document was acknowledged"));
    memset(&row, 0, sizeof row);
    row.docs_ok_all = row.docs_sent_all = 500;
    bf_row_verify_counted(&row, &cell, 700, 200);
    assert_true(row.verified);
    cell.concurrency = 0; /* search alone: nothing to index, 0 = 0 is the truth */
    memset(&row, 0, sizeof row);
    bf_row_verify_counted(&row, &cell, 0, 0);
    assert_true(row.verified);
}

/* Issue #10 item 9: client-bound from the agent's own measurements, not only CPU. */
static void test_client_bound_rule(void **state)
{
    (void)state;
    char why[320];
    assert_int_equal(bf_row_client_bound(50, 40, 0.2, 10, why, sizeof why), 0);
    assert_string_equal(why, "");
    assert_int_equal(bf_row_client_bound(95, 40, 0.2, 10, why, sizeof why), 1); /* CPU */
    assert_int_equal(bf_row_client_bound(30, 90, 0.2, 10, why, sizeof why), 1); /* busy */
    assert_non_null(strstr(why, "busiest worker thread busy 90 %"));
    assert_int_equal(bf_row_client_bound(30, 40, 3.0, 10, why, sizeof why), 1); /* lag */
    assert_non_null(strstr(why, "send lag 3.00 ms per request against a service time of 10.00"));
    assert_int_equal(bf_row_client_bound(30, 40, 2.0, 10, why, sizeof why), 0); /* < 25 % */
    assert_int_equal(bf_row_client_bound(30, 40, 0.5, 1, why, sizeof why), 0);  /* < 1 ms */
    assert_int_equal(bf_row_client_bound(30, 40, NAN, NAN, why, sizeof why), 0);
    /* idle agents (CPU 0 %, busiest thread 0-1 %) with a 1 ms send lag against a
     * 2-4 ms service time are not the limit: more agents or threads would not remove it */
    assert_int_equal(bf_row_client_bound(0, 1, 1.0, 4, why, sizeof why), 0);
    assert_int_equal(bf_row_client_bound(0, 0, 1.0, 2, why, sizeof why), 0);
    assert_int_equal(bf_row_client_bound(3, 12, 1.0, 4, why, sizeof why), 1); /* it works */
}

/* the cost named is one the client spent; none at 0 % ("judge" was named so) */
static void test_client_cost_names_no_idle_stage(void **state)
{
    (void)state;
    char why[320];
    assert_int_equal(bf_row_client_cost(0, 0, 0, 100, why, sizeof why), 0);
    assert_string_equal(why, "");
    assert_int_equal(bf_row_client_cost(0.4, 0.2, 0.3, 99, why, sizeof why), 0);
    assert_int_equal(bf_row_client_cost(NAN, NAN, NAN, NAN, why, sizeof why), 0);
    assert_int_equal(bf_row_client_cost(2, 30, 5, 63, why, sizeof why), 1);
    assert_string_equal(why, "; the cost is compressing them (gzip): worker threads' time render "
                             "2 %, compress 30 %, judge 5 %, send/wait 63 %");
    assert_int_equal(bf_row_client_cost(0, 0, 3, 97, why, sizeof why), 1);
    assert_non_null(strstr(why, "reading the answers (judge)"));
}

/* The busiest thread is a maximum over threads and agents, and the row takes the median
 * second of the window; send lag is a mean over the requests sent. */
static void test_busy_and_lag_merge(void **state)
{
    (void)state;
    bf_counters_t a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    a.busy_us_max = 300000;
    b.busy_us_max = 900000;
    a.sends = 10;
    b.sends = 30;
    bf_counters_add(&a, &b);
    assert_int_equal(a.busy_us_max, 900000);
    assert_int_equal(a.sends, 40);
    bf_cell_t cell = test_cell();
    bf_cellagg_t *agg = bf_cellagg_new(&cell, 1, 2, NULL, 0, 3);
    const uint64_t busy[2][3] = {{950000, 100000, 960000}, {200000, 970000, 100000}};
    for (uint32_t ag = 0; ag < 2; ag++) {
        for (int32_t s = 0; s < 3; s++) {
            bf_counters_t c;
            memset(&c, 0, sizeof c);
            c.docs_ok = c.docs_sent = 100;
            c.req_ok = 1;
            c.busy_us_max = busy[ag][s];
            c.sends = 2;
            c.send_lag_us = 3000;
            Bf__Sample smp;
            Bf__Hist hs, hl;
            bf_sample_pack(&smp, &hs, &hl, "cell", (uint64_t)s + 1, s, &c, NULL, NULL);
            assert_int_equal(bf_cellagg_add(agg, ag, &smp), 0);
            bf_sample_pack_cleanup(&smp);
        }
    }
    bf_row_t row;
    memset(&row, 0, sizeof row);
    bf_cellagg_row(agg, &row);
    assert_true(fabs(row.client_busy_pct - 96.0) < 1e-9); /* seconds: 95, 97, 96 */
    assert_true(fabs(row.send_lag_ms - 1.5) < 1e-9);      /* 18 ms over 12 requests */
    assert_int_equal(row.client_bound, 1);
    assert_non_null(strstr(row.reason, "client-bound"));
    bf_cellagg_destroy(&agg);
}

/* Stage shares: summed over agents and window seconds through the wire
 * format, as % of the worker threads' time (threads x seconds); send/wait is the rest; a
 * client-bound row names the largest stage; an older agent's samples (worker_threads 0) give
 * no shares; stages that overrun the threads' time are scaled to 100 %. */
/* The agents' hosts' load average: each sample carries its host's 1-minute load x 1000 and 1
 * (the agents that read it), through the wire; the row's host_load_avg is their mean over the
 * window's seconds and agents, warmup and tail excluded. An older agent (0 and 0) counts in
 * neither sum; with no agent measuring, the row says NAN (not 0: an idle host reads 0.00). */
static void test_host_load(void **state)
{
    (void)state;
    bf_cell_t cell = test_cell();
    /* W 1 + D 2: seconds 1 and 2 are the window */
    bf_cellagg_t *agg = bf_cellagg_new(&cell, 1, 3, NULL, 1, 2);
    static const uint64_t load[2][4] = {{9000, 1500, 2500, 9000}, {9000, 3000, 5000, 9000}};
    for (uint32_t ag = 0; ag < 3; ag++) {
        for (int32_t s = 0; s < 4; s++) {
            bf_counters_t c;
            memset(&c, 0, sizeof c);
            c.docs_ok = c.docs_sent = 100;
            c.req_ok = 1;
            if (ag < 2) { /* agent 2 is older: no load average */
                c.host_load_milli = load[ag][s];
                c.host_load_agents = 1;
            }
            add_counters(agg, ag, s, &c);
        }
    }
    bf_row_t row;
    bf_cellagg_row(agg, &row);
    /* (1.5 + 2.5 + 3.0 + 5.0) / 4 = 3.0; the 9.0 of warmup and tail are not in it */
    assert_true(fabs(row.host_load_avg - 3.0) < 1e-9);
    bf_cellagg_destroy(&agg);

    agg = bf_cellagg_new(&cell, 1, 1, NULL, 1, 2);
    for (int32_t s = 0; s < 3; s++) {
        bf_counters_t c;
        memset(&c, 0, sizeof c);
        c.docs_ok = c.docs_sent = 100;
        c.req_ok = 1;
        add_counters(agg, 0, s, &c);
    }
    bf_cellagg_row(agg, &row);
    assert_true(isnan(row.host_load_avg));
    bf_cellagg_destroy(&agg);
}

static void test_stage_shares(void **state)
{
    (void)state;
    bf_cell_t cell = test_cell();
    /* W 1 + D 2; agent 0 runs 2 worker threads, agent 1 one; second 0 is warmup (not counted) */
    bf_cellagg_t *agg = bf_cellagg_new(&cell, 1, 2, NULL, 1, 2);
    for (uint32_t ag = 0; ag < 2; ag++) {
        for (int32_t s = 0; s < 3; s++) {
            bf_counters_t c;
            memset(&c, 0, sizeof c);
            c.docs_ok = c.docs_sent = 100;
            c.req_ok = 1;
            c.worker_threads = ag == 0 ? 2 : 1;
            c.render_us = s == 0 ? 999999 : (ag == 0 ? 1200000 : 300000);
            c.compress_us = ag == 0 ? 400000 : 150000;
            c.judge_us = 30000;
            c.busy_us_max = 990000; /* client-bound */
            add_counters(agg, ag, s, &c);
        }
    }
    bf_row_t row;
    bf_cellagg_row(agg, &row);
    /* window: 6 thread-seconds; render 2 x 1.5 s, compress 2 x 0.55 s, judge 4 x 0.03 s */
    assert_true(fabs(row.stage_render_pct - 50.0) < 1e-9);
    assert_true(fabs(row.stage_compress_pct - 1.1 / 6 * 100) < 1e-9);
    assert_true(fabs(row.stage_judge_pct - 2.0) < 1e-9);
    assert_true(fabs(row.stage_render_pct + row.stage_compress_pct + row.stage_judge_pct +
                     row.stage_send_wait_pct - 100.0) < 1e-9);
    assert_true(row.client_bound);
    assert_non_null(strstr(row.reason, "the cost is building the bodies (render): worker "
                                       "threads' time render 50 %, compress 18 %, judge 2 %, "
                                       "send/wait 30 %"));
    bf_cellagg_destroy(&agg);

    /* not measured: an older agent sends no worker_threads */
    bf_counters_t c;
    memset(&c, 0, sizeof c);
    double r, z, j, sw;
    bf_row_stage_shares(&c, &r, &z, &j, &sw);
    assert_true(isnan(r) && isnan(z) && isnan(j) && isnan(sw));
    /* overrun (booked whole in the second a stage ended): scaled to 100, send/wait 0 */
    c.worker_threads = 1;
    c.render_us = 900000;
    c.compress_us = 300000;
    bf_row_stage_shares(&c, &r, &z, &j, &sw);
    assert_true(fabs(r - 75.0) < 1e-9 && fabs(z - 25.0) < 1e-9 && j == 0 && sw == 0);
}

/* an agent's final marker (second -1) saying its corpus ended end_ms after the start (0 =
 * unknown, an older agent), through the wire format */
static void add_corpus_final(bf_cellagg_t *agg, uint32_t agent, uint32_t end_ms)
{
    Bf__Sample s = BF__SAMPLE__INIT;
    s.cell_id = "cell";
    s.seq = 99;
    s.second = -1;
    s.final = 1;
    s.corpus_done = 1;
    s.corpus_end_ms = end_ms;
    size_t n = bf__sample__get_packed_size(&s);
    uint8_t *buf = malloc(n);
    bf__sample__pack(&s, buf);
    Bf__Sample *u = bf__sample__unpack(NULL, n, buf);
    assert_non_null(u);
    assert_int_equal(bf_cellagg_add(agg, agent, u), 0);
    bf__sample__free_unpacked(u, NULL);
    free(buf);
}

/* new user (notes3/nu3.md F2.1): a Rally track without time-period imports as passes: 1 and
 * run.duration 3600s; its corpus was read in 3 s, and the row said docs/s 1 (documents /
 * 3600), few-requests "lengthen run.duration" and "7192 agent-seconds missing in the window".
 * The window of a cell that ends at the end of its corpus ends with its last agent's load
 * (docs/scenario.md, End of the corpus). */
static void test_corpus_end_window(void **state)
{
    (void)state;
    bf_cell_t cell = test_cell();
    uint64_t svc[] = {100000, 120000};
    /* two agents, W 1 s, D 3600 s: agent 0 ends at 2.5 s, agent 1 at 3.2 s */
    bf_cellagg_t *agg = bf_cellagg_new(&cell, 1, 2, NULL, 1, 3600);
    for (int32_t sec = 0; sec <= 2; sec++)
        add_sample(agg, 0, sec, 1000, 1000, 0, svc, 2);
    for (int32_t sec = 0; sec <= 3; sec++)
        add_sample(agg, 1, sec, 1000, 1000, 0, svc, 2);
    assert_int_equal(bf_cellagg_corpus_end_ms(agg), 0); /* nobody said so yet */
    add_corpus_final(agg, 0, 2500);
    assert_int_equal(bf_cellagg_corpus_end_ms(agg), 0); /* agent 1 is still loading */
    add_corpus_final(agg, 1, 3200);
    assert_int_equal(bf_cellagg_corpus_end_ms(agg), 3200);
    bf_row_t *row = malloc(sizeof *row);
    bf_cellagg_row(agg, row);
    assert_true(row->corpus_ended);
    assert_true(fabs(row->corpus_end_s - 3.2) < 1e-9);
    assert_int_equal(row->duration_s, 3); /* seconds 1, 2, 3 */
    /* 2000 (agent 0, seconds 1-2) + 3000 (agent 1, seconds 1-3) over 2.2 s */
    assert_int_equal(row->docs_ok, 5000);
    assert_true(fabs(row->docs_per_s - 5000 / 2.2) < 1e-6);
    assert_true(fabs(row->attempted_docs_per_s - 5000 / 2.2) < 1e-6);
    assert_int_equal(row->late_seconds, 0); /* agent 0 has nothing to say after 2.5 s */
    /* 10 responses: the whole corpus, but on so few that its time is a few round trips
     * */
    assert_true(row->few_requests);
    assert_non_null(strstr(row->reason, "few-requests: the corpus ended after only 10 bulk "
                                        "responses in the window (2.2 s)"));
    assert_false(row->degraded);
    assert_false(row->stalled);
    assert_non_null(strstr(row->reason, "ended at the end of the corpus"));
    assert_non_null(strstr(row->reason, "3.2 s after the start"));
    assert_non_null(strstr(row->reason, "over the 2.2 s"));
    assert_non_null(strstr(row->reason, "first of 2 agents ended at 2.5 s"));
    assert_null(strstr(row->reason, "missing"));
    assert_null(strstr(row->reason, "lengthen"));
    bf_cellagg_destroy(&agg);

    /* one agent ran to the end of the cell's time: the configured window holds */
    agg = bf_cellagg_new(&cell, 1, 2, NULL, 0, 10);
    for (int32_t sec = 0; sec < 10; sec++)
        add_sample(agg, 1, sec, 100, 100, 0, svc, 2);
    add_sample(agg, 0, 0, 500, 500, 0, svc, 2);
    add_corpus_final(agg, 0, 800);
    bf_cellagg_row(agg, row);
    assert_false(row->corpus_ended);
    assert_true(isnan(row->corpus_end_s));
    assert_int_equal(row->duration_s, 10);
    assert_true(fabs(row->docs_per_s - 1500 / 10.0) < 1e-9);
    assert_int_equal(row->late_seconds, 0); /* agent 0 ended at 0.8 s: not missing */
    assert_null(strstr(row->reason, "end of the corpus"));
    bf_cellagg_destroy(&agg);

    /* an agent lost at second 2, the other's corpus ended at 1.8 s: the window ends at 2 s,
     * degraded */
    agg = bf_cellagg_new(&cell, 1, 2, NULL, 0, 3600);
    add_sample(agg, 0, 0, 400, 400, 0, svc, 2);
    add_sample(agg, 0, 1, 400, 400, 0, svc, 2);
    add_corpus_final(agg, 0, 1800);
    add_sample(agg, 1, 0, 300, 300, 0, svc, 2);
    add_sample(agg, 1, 1, 300, 300, 0, svc, 2);
    bf_cellagg_mark_lost(agg, 1, "a2", 2);
    bf_cellagg_row(agg, row);
    assert_true(row->corpus_ended);
    assert_true(fabs(row->corpus_end_s - 2.0) < 1e-9);
    assert_true(fabs(row->docs_per_s - 1400 / 2.0) < 1e-9);
    assert_true(row->degraded);
    assert_int_equal(row->late_seconds, 0);
    bf_cellagg_destroy(&agg);

    /* read entirely within a 5 s warmup: an empty window, stalled, and said why */
    agg = bf_cellagg_new(&cell, 1, 1, NULL, 5, 3600);
    add_sample(agg, 0, 0, 400, 400, 0, svc, 2);
    add_sample(agg, 0, 1, 400, 400, 0, svc, 2);
    add_corpus_final(agg, 0, 1500);
    bf_cellagg_row(agg, row);
    assert_true(row->corpus_ended);
    assert_int_equal(row->duration_s, 0);
    assert_true(row->stalled);
    assert_true(row->docs_per_s == 0);
    assert_int_equal(row->late_seconds, 0);
    assert_non_null(strstr(row->reason, "within the 5 s warmup"));
    /* the stalled clause says why, and no longer "lengthen run.duration" (3600 s) */
    assert_non_null(strstr(row->reason, "stalled: the window holds no request because the "
                                        "corpus was read to its end within the 5 s warmup (2 "
                                        "bulk requests answered there)"));
    assert_null(strstr(row->reason, "lengthen"));
    bf_cellagg_destroy(&agg);

    /* the corpus ended 0.2 s into the window after 4 requests: few-requests, not a
     * docs/s to rank; with 20 responses in the window it is ranked (not flagged) */
    uint64_t svc4[] = {40000, 40000, 40000, 40000};
    agg = bf_cellagg_new(&cell, 1, 1, NULL, 1, 3600);
    add_sample(agg, 0, 0, 3000, 3000, 0, svc4, 4);
    add_sample(agg, 0, 1, 3077, 3077, 0, svc4, 4);
    add_corpus_final(agg, 0, 1200);
    bf_cellagg_row(agg, row);
    assert_true(row->corpus_ended);
    assert_true(row->few_requests);
    assert_false(row->stalled);
    assert_non_null(strstr(row->reason, "few-requests: the corpus ended after only 4 bulk "
                                        "responses in the window (0.2 s)"));
    bf_cellagg_destroy(&agg);
    uint64_t svc20[20];
    for (size_t i = 0; i < 20; i++)
        svc20[i] = 40000;
    agg = bf_cellagg_new(&cell, 1, 1, NULL, 1, 3600);
    add_sample(agg, 0, 0, 3000, 3000, 0, svc20, 20);
    add_sample(agg, 0, 1, 3000, 3000, 0, svc20, 20);
    add_corpus_final(agg, 0, 1900);
    bf_cellagg_row(agg, row);
    assert_true(row->corpus_ended);
    assert_false(row->few_requests);
    assert_null(strstr(row->reason, "few-requests"));
    bf_cellagg_destroy(&agg);

    /* an agent before Sample.corpus_end_ms: the end of its last reported second */
    agg = bf_cellagg_new(&cell, 1, 1, NULL, 0, 3600);
    for (int32_t sec = 0; sec <= 2; sec++)
        add_sample(agg, 0, sec, 100, 100, 0, svc, 2);
    add_corpus_final(agg, 0, 0);
    bf_cellagg_row(agg, row);
    assert_true(fabs(row->corpus_end_s - 3.0) < 1e-9);
    assert_true(fabs(row->docs_per_s - 100.0) < 1e-9);
    bf_cellagg_destroy(&agg);
    free(row);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_docs_per_s_window),
        cmocka_unit_test(test_stalled_reason_matches_counters),
        cmocka_unit_test(test_counts_at_the_stop),
        cmocka_unit_test(test_reason_keeps_every_clause),
        cmocka_unit_test(test_merged_percentiles),
        cmocka_unit_test(test_percentile_needs_samples),
        cmocka_unit_test(test_lost_agent_degrades),
        cmocka_unit_test(test_lost_agent_back),
        cmocka_unit_test(test_out_of_range_second_refused),
        cmocka_unit_test(test_bad_histogram_adds_nothing),
        cmocka_unit_test(test_repetitions_median_cv),
        cmocka_unit_test(test_split),
        cmocka_unit_test(test_split_bases_spread_hosts),
        cmocka_unit_test(test_split_cell),
        cmocka_unit_test(test_store_cost),
        cmocka_unit_test(test_stop_at_partial_window),
        cmocka_unit_test(test_phase),
        cmocka_unit_test(test_count_why),
        cmocka_unit_test(test_p99_growth),
        cmocka_unit_test(test_search_verify),
        cmocka_unit_test(test_client_bound_rule),
        cmocka_unit_test(test_nothing_acknowledged_is_not_verified),
        cmocka_unit_test(test_client_cost_names_no_idle_stage),
        cmocka_unit_test(test_busy_and_lag_merge),
        cmocka_unit_test(test_stage_shares),
        cmocka_unit_test(test_host_load),
        cmocka_unit_test(test_search_rate_missed),
        cmocka_unit_test(test_corpus_end_window),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
