/* SPDX-License-Identifier: MIT */
/* test_finish.c — the end of a cell shared by the campaign and standalone mode (bf_finish):
 * repetitions folded to the median row, the row of a failed repetition, the cluster's side. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "bf_finish.h"

#include <math.h>
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

/* nu3 F4.5: a cell that failed before its load started (the cluster was unreachable while it
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fold_takes_the_median_repetition),
        cmocka_unit_test(test_failed_repetition_row),
        cmocka_unit_test(test_row_is_clean),
        cmocka_unit_test(test_never_started_cell_is_not_stalled),
        cmocka_unit_test(test_resume_decide_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
