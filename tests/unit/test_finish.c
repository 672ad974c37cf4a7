/* SPDX-License-Identifier: MIT */
/* test_finish.c — the end of a cell shared by the campaign and standalone mode (bf_finish):
 * repetitions folded to the median row, the row of a failed repetition, the cluster's side. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "bf_finish.h"
#include "bf_hist.h"
#include "bf_sample.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* run.repeat 3: the matrix row is the median repetition, with repeat 3 (the standalone copy
 * of this used to take one repetition whatever run.repeat said) */
static void test_fold_takes_the_median_repetition(void **state)
{
    (void)state;
    bf_cell_t cell = test_cell();
    bf_row_t reps[3], rows[2];
    memset(reps, 0, sizeof reps);
    memset(rows, 0, sizeof rows);
    double v[3] = {100, 300, 200};
    for (int i = 0; i < 3; i++) {
        reps[i].cell = &cell;
        reps[i].repetition = (uint32_t)i + 1;
        reps[i].docs_per_s = v[i];
        reps[i].verified = 1;
    }
    size_t nrows = 0;
    int io = -99;
    const bf_row_t *r = bf_finish_fold(NULL, NULL, reps, 3, rows, &nrows, &io);
    assert_ptr_equal(r, &rows[0]);
    assert_int_equal(nrows, 1);
    assert_int_equal(io, 0);
    assert_true(r->docs_per_s == 200);
    assert_int_equal(r->repeat, 3);
    /* one repetition: repeat 1; none: nothing appended */
    r = bf_finish_fold(NULL, NULL, reps, 1, rows, &nrows, NULL);
    assert_ptr_equal(r, &rows[1]);
    assert_int_equal(r->repeat, 1);
    assert_int_equal(nrows, 2);
    assert_null(bf_finish_fold(NULL, NULL, reps, 0, rows, &nrows, NULL));
    assert_int_equal(nrows, 2);
}

/* a repetition that failed (e.g. the index could not be created) is failed with its reason,
 * not counted (no cluster call) and not verified; the cluster's side is copied when given */
static void test_failed_repetition_row(void **state)
{
    (void)state;
    bf_cell_t cell = test_cell();
    uint32_t cores = 2;
    bf_cellagg_t *agg = bf_cellagg_new(&cell, 1, 1, &cores, 0, 2);
    /* the load started (one empty sample: nothing answered), then the cell failed */
    Bf__Sample s = BF__SAMPLE__INIT;
    s.second = 0;
    assert_int_equal(bf_cellagg_add(agg, 0, &s), 0);
    bf_cluster_side_t side = {.write_queue_max = 7, .write_rejected = 3, .hot_spot_ratio = 1.5,
                              .cluster_docs_per_s = 1234};
    bf_cell_end_t end = {.yellow = 1, .failure = "cell s1-b100-c2: cannot create index",
                         .mismatch = "index has 2 shards", .cluster = &side};
    bf_row_t row;
    memset(&row, 0, sizeof row);
    const char *ids[] = {"a1"};
    assert_int_equal(bf_finish_cell(NULL, NULL, &cell, "s1-b100-c2", agg, ids, 1, &end, &row), 0);
    assert_true(row.failed);
    assert_true(row.yellow);
    assert_false(row.aborted);
    assert_false(row.verified);
    assert_int_equal(row.docs_counted, -1);
    assert_true(row.index_mismatch);
    /* the failure first; the clauses of the row's other flags are kept after it (the failure
     * used to overwrite them: a stalled flag without its reason) */
    assert_memory_equal(row.reason, "cell s1-b100-c2: cannot create index",
                        strlen("cell s1-b100-c2: cannot create index"));
    assert_true(row.stalled);
    assert_non_null(strstr(row.reason, "; stalled: no bulk request was answered"));
    assert_non_null(strstr(row.reason, "index has 2 shards"));
    assert_int_equal(row.write_queue_max, 7);
    assert_int_equal(row.write_rejected, 3);
    assert_true(row.hot_spot_ratio == 1.5);
    assert_true(row.cluster_docs_per_s == 1234);
    assert_false(bf_row_is_clean(&row));
    bf_cellagg_destroy(&agg);
}

/* a cell that failed before its load started (the cluster was unreachable while it
 * was prepared) has no sample: it is FAILED with its reason, never "stalled" nor
 * "few-requests" (it showed "FAILED stalled" with zeros) */
static void test_never_started_cell_is_not_stalled(void **state)
{
    (void)state;
    bf_cell_t cell = test_cell();
    uint32_t cores = 2;
    bf_cellagg_t *agg = bf_cellagg_new(&cell, 1, 1, &cores, 0, 2);
    bf_cell_end_t end = {.failure = "cluster unreachable (unreachable for 15 s; the campaign "
                                    "stops)"};
    bf_row_t row;
    memset(&row, 0, sizeof row);
    const char *ids[] = {"a1"};
    assert_int_equal(bf_finish_cell(NULL, NULL, &cell, "s1-b100-c2", agg, ids, 1, &end, &row), 0);
    assert_true(row.failed);
    assert_false(row.stalled);
    assert_false(row.few_requests);
    assert_null(strstr(row.reason, "stalled"));
    assert_string_equal(row.reason, end.failure);
    bf_cellagg_destroy(&agg);
}

/* one second's counters as the coordinator receives them: packed, through the wire format,
 * unpacked; with nsvc service times of 2 ms (requests that completed) */
static void add_counters(bf_cellagg_t *agg, int32_t second, const bf_counters_t *c, int nsvc,
                         const char *fatal)
{
    bf_hist_t *h = bf_hist_new();
    for (int i = 0; i < nsvc; i++)
        bf_hist_record(h, 2000);
    Bf__Sample s;
    Bf__Hist hs, hl;
    bf_sample_pack(&s, &hs, &hl, "cell", (uint64_t)second + 1, second, c, h, h);
    s.fatal = (char *)(fatal ? fatal : "");
    size_t n = bf__sample__get_packed_size(&s);
    uint8_t *buf = malloc(n);
    bf__sample__pack(&s, buf);
    bf_sample_pack_cleanup(&s);
    Bf__Sample *u = bf__sample__unpack(NULL, n, buf);
    assert_non_null(u);
    assert_int_equal(bf_cellagg_add(agg, 0, u), 0);
    bf__sample__free_unpacked(u, NULL);
    free(buf);
    bf_hist_destroy(&h);
}

/* a cell whose every document fails stops after a request or two. Failed in
 * warmup it read doc errors 0.00, "FAILED stalled" and "lengthen run.duration"; it reports
 * its errors over what it sent (the *_all outcome), is never stalled and never few-requests.
 * Each of 400 on every item, 406, 413 (with requests abandoned in flight when the agent
 * stopped) and 401, failed in warmup (warmup 5 s) and in the window (warmup 0 s). */
static void test_failed_early_reports_errors(void **state)
{
    (void)state;
    static const struct {
        const char *what;
        uint32_t status;          /* whole-request status, 0 = a 200 with every item failed */
        uint64_t reqs, abandoned; /* requests answered; abandoned in flight at the stop */
    } cases[] = {
        {"400 mapper_parsing_exception on every item", 0, 2, 0},
        {"HTTP 406", 406, 2, 0},
        {"HTTP 413", 413, 1, 3},
        {"HTTP 401", 401, 2, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        for (uint32_t warmup = 0; warmup <= 5; warmup += 5) {
            bf_cell_t cell = test_cell();
            uint32_t cores = 2;
            bf_cellagg_t *agg = bf_cellagg_new(&cell, 1, 1, &cores, warmup, 3);
            bf_counters_t c;
            memset(&c, 0, sizeof c);
            c.sends = cases[i].reqs + cases[i].abandoned;
            c.docs_sent = 100 * (cases[i].reqs + cases[i].abandoned);
            if (cases[i].status) {
                c.http_status[cases[i].status] = cases[i].reqs;
                c.docs_failed_4xx = 100 * cases[i].reqs;
            } else {
                c.req_partial = cases[i].reqs;
                c.docs_mapping = 100 * cases[i].reqs;
            }
            c.req_abandoned = cases[i].abandoned;
            c.docs_unknown = c.docs_unknown_abandoned = 100 * cases[i].abandoned;
            add_counters(agg, 0, &c, (int)cases[i].reqs, NULL);
            memset(&c, 0, sizeof c); /* the final marker carries the agent's fatal reason */
            bf_cell_end_t end = {.failure = "cell s1-b100-c2: every document failed"};
            bf_row_t row;
            memset(&row, 0, sizeof row);
            const char *ids[] = {"a1"};
            assert_int_equal(
                bf_finish_cell(NULL, NULL, &cell, "s1-b100-c2", agg, ids, 1, &end, &row), 0);
            print_message("%s, warmup %u s: %s\n", cases[i].what, warmup, row.reason);
            assert_true(row.failed);
            assert_false(row.stalled);
            assert_false(row.few_requests);
            assert_true(row.doc_error_rate == 1.0);
            /* a 200 whose items failed is an answered request: no request error */
            assert_true(row.request_error_rate == (cases[i].status ? 1.0 : 0.0));
            assert_null(strstr(row.reason, "agent-seconds missing"));
            assert_null(strstr(row.reason, "stalled"));
            assert_null(strstr(row.reason, "lengthen run.duration"));
            assert_null(strstr(row.reason, "few-requests"));
            assert_non_null(strstr(row.reason, "every document failed"));
            char want[200];
            snprintf(want, sizeof want, "%llu of %llu documents failed, rejected or unknown",
                     (unsigned long long)(100 * (cases[i].reqs + cases[i].abandoned)),
                     (unsigned long long)(100 * (cases[i].reqs + cases[i].abandoned)));
            if (warmup)
                assert_non_null(strstr(row.reason, want));
            else /* in the window: the window's own figures, no clause needed */
                assert_null(strstr(row.reason, "failed before its measurement window"));
            if (cases[i].abandoned)
                assert_non_null(strstr(row.reason, "cut off when the cell failed"));
            bf_cellagg_destroy(&agg);
        }
    }
}

/* the agent's fatal reason in a sample marks the aggregate failed by itself (the coordinator
 * and a standalone agent both pass the failure to bf_finish_cell too) */
static void test_fatal_sample_marks_failed(void **state)
{
    (void)state;
    bf_cell_t cell = test_cell();
    bf_cellagg_t *agg = bf_cellagg_new(&cell, 1, 1, NULL, 2, 3);
    bf_counters_t c;
    memset(&c, 0, sizeof c);
    c.sends = 2;
    c.docs_sent = 200;
    c.http_status[406] = 2;
    c.docs_failed_4xx = 200;
    add_counters(agg, 0, &c, 2, NULL);
    memset(&c, 0, sizeof c);
    add_counters(agg, -1, &c, 0, "cell s1-b100-c2: HTTP 406 from _bulk");
    bf_row_t row;
    bf_cellagg_row(agg, &row);
    assert_false(row.stalled);
    assert_true(row.doc_error_rate == 1.0);
    bf_cellagg_destroy(&agg);
}

/* --resume's policy, every case: what runs again and what is kept */
static void test_resume_decide_table(void **state)
{
    (void)state;
    static const struct {
        int failed, verified;
        int64_t counted;
        int keep_failed, asked;
        bf_resume_t want;
    } t[] = {
        {0, 1, 100, 0, 0, BF_RESUME_KEEP},           /* a verified measurement */
        {0, 0, 120, 0, 0, BF_RESUME_KEEP},           /* counted, did not match: a result */
        {0, 0, -1, 0, 0, BF_RESUME_RERUN_UNCOUNTED}, /* the cluster went away: no count */
        {0, 0, -1, 1, 0, BF_RESUME_KEEP},            /* --keep-failed keeps it */
        {1, 0, -1, 0, 0, BF_RESUME_RERUN_FAILED},    /* failed */
        {1, 0, -1, 1, 0, BF_RESUME_KEEP},            /* failed, --keep-failed */
        {0, 1, 100, 0, 1, BF_RESUME_RERUN_ASKED},    /* --rerun names a good one */
        {0, 1, 100, 1, 1, BF_RESUME_RERUN_ASKED},    /* --rerun wins over --keep-failed */
        {1, 0, -1, 1, 1, BF_RESUME_RERUN_ASKED},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        bf_row_t row;
        memset(&row, 0, sizeof row);
        row.failed = t[i].failed;
        row.verified = t[i].verified;
        row.docs_counted = t[i].counted;
        bf_resume_t got = bf_resume_decide(&row, t[i].keep_failed, t[i].asked);
        if (got != t[i].want)
            fail_msg("case %zu: got %d, want %d", i, (int)got, (int)t[i].want);
    }
}

static void test_row_is_clean(void **state)
{
    (void)state;
    bf_row_t row;
    memset(&row, 0, sizeof row);
    row.verified = 1;
    assert_true(bf_row_is_clean(&row));
    row.degraded = 1;
    assert_false(bf_row_is_clean(&row));
    row.degraded = 0;
    row.verified = 0;
    assert_false(bf_row_is_clean(&row));
    row.verified = 1;
    row.docs_failed = 1;
    assert_false(bf_row_is_clean(&row));
}

/* a stopped target, 1200 timed-out documents, _count 0 = 0 acknowledged
 * and the row verified; the target then indexed 800 of them. A count that matches while
 * documents are of unknown outcome cannot verify the row. */
static void test_unknown_outcome_is_not_verified(void **state)
{
    (void)state;
    static const struct {
        int verified;
        uint64_t timeout, reset, bad, http, abandoned;
        int want_verified, want_rc;
        const char *want;
    } t[] = {
        {1, 1200, 0, 0, 0, 0, 0, 1, "1200 more are of unknown outcome (1200 timed out, 0 reset"},
        {1, 0, 100, 0, 0, 0, 0, 1, "(0 timed out, 100 reset, 0 bad answers"},
        {1, 0, 0, 300, 0, 0, 0, 1, "300 bad answers"},
        {1, 0, 0, 0, 500, 0, 0, 1, "500 by HTTP status"},
        {1, 0, 0, 0, 0, 7, 0, 1, "7 abandoned in flight"},
        {1, 0, 0, 0, 0, 0, 1, 0, NULL},    /* nothing unknown: the count vouches for the row */
        {0, 1200, 0, 0, 0, 0, 0, 0, NULL}, /* not verified already: left as it is */
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        bf_row_t row;
        memset(&row, 0, sizeof row);
        row.verified = t[i].verified;
        row.docs_counted = 0;
        row.docs_unknown_timeout = t[i].timeout;
        row.docs_unknown_reset = t[i].reset;
        row.docs_unknown_bad_response = t[i].bad;
        row.docs_unknown_http = t[i].http;
        row.docs_unknown_abandoned = t[i].abandoned;
        row.docs_unknown_all = t[i].timeout + t[i].reset + t[i].bad + t[i].http + t[i].abandoned;
        int rc = bf_row_unknown_unverified(&row, "s1-b100-c2");
        if (rc != t[i].want_rc || row.verified != t[i].want_verified)
            fail_msg("case %zu: rc %d verified %d, want %d / %d", i, rc, row.verified, t[i].want_rc,
                     t[i].want_verified);
        if (t[i].want && strstr(row.reason, t[i].want) == NULL)
            fail_msg("case %zu: reason '%s' lacks '%s'", i, row.reason, t[i].want);
        if (!t[i].want && row.reason[0])
            fail_msg("case %zu: reason '%s' added", i, row.reason);
        if (t[i].want && strstr(row.reason, "cannot verify this row") == NULL)
            fail_msg("case %zu: reason '%s'", i, row.reason);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fold_takes_the_median_repetition),
        cmocka_unit_test(test_failed_repetition_row),
        cmocka_unit_test(test_row_is_clean),
        cmocka_unit_test(test_unknown_outcome_is_not_verified),
        cmocka_unit_test(test_never_started_cell_is_not_stalled),
        cmocka_unit_test(test_failed_early_reports_errors),
        cmocka_unit_test(test_fatal_sample_marks_failed),
        cmocka_unit_test(test_resume_decide_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
