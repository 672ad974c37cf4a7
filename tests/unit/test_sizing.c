/* SPDX-License-Identifier: MIT */
/* test_sizing.c — unit tests for bf_sizing: seed 004's two worked examples, figure by figure,
 * the raw-to-disk factor, ingest sizing and which of the two decides, and bad input. */
#include "bf_sizing.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#define NEAR(a, b) assert_true(fabs((a) - (b)) < 1e-6)

/* seed 004, small cluster: 1 GB a day, 9 months (9 x 30 days), one replica, 8 GB RAM nodes,
 * RAM:data 1:30 -> 540 GB data, 675 GB storage, 3 nodes */
static void test_seed_small(void **state)
{
    (void)state;
    bf_size_in_t in;
    bf_size_defaults(&in);
    in.daily_gb = 1;
    in.hot.days = 9 * 30;
    in.ram_gb = 8;
    bf_size_out_t out;
    bf_diag_t d = {0};
    assert_int_equal(bf_size_compute(&in, &out, &d), BF_OK);
    NEAR(out.hot.data_gb, 540);
    NEAR(out.hot.storage_gb, 675);
    assert_int_equal(out.hot.nodes, 3);
    assert_int_equal(out.hot_nodes, 3);
    assert_int_equal(out.warm.nodes, 0);
    assert_string_equal(out.decides, "storage");
}

/* seed 004, large deployment: 100 GB a day, 30 days hot and 365 warm, 64 GB nodes, 1:30 hot
 * and 1:160 warm, + 1 node for failover -> hot 6000 / 7500 GB / 5 nodes, warm 73000 / 91250 GB
 * / 10 nodes */
static void test_seed_large(void **state)
{
    (void)state;
    bf_size_in_t in;
    bf_size_defaults(&in);
    in.daily_gb = 100;
    in.hot.days = 30;
    in.warm.days = 365;
    in.ram_gb = 64;
    in.failover = 1;
    bf_size_out_t out;
    bf_diag_t d = {0};
    assert_int_equal(bf_size_compute(&in, &out, &d), BF_OK);
    NEAR(out.hot.data_gb, 6000);
    NEAR(out.hot.storage_gb, 7500);
    NEAR(out.hot.nodes_exact, 7500.0 / 64 / 30);
    assert_int_equal(out.hot.nodes, 5);
    NEAR(out.warm.data_gb, 73000);
    NEAR(out.warm.storage_gb, 91250);
    assert_int_equal(out.warm.nodes, 10);
    assert_int_equal(out.hot_nodes, 5);
}

/* a measured factor multiplies the data; 1.5 turns the small example's 675 GB into 1012.5 GB
 * and 4.22 -> 5 nodes */
static void test_raw_to_disk(void **state)
{
    (void)state;
    bf_size_in_t in;
    bf_size_defaults(&in);
    in.daily_gb = 1;
    in.hot.days = 270;
    in.ram_gb = 8;
    in.raw_to_disk = 1.5;
    bf_size_out_t out;
    assert_int_equal(bf_size_compute(&in, &out, NULL), BF_OK);
    NEAR(out.hot.storage_gb, 1012.5);
    assert_int_equal(out.hot.nodes, 5);
}

/* ingest: 62000 docs/s on 3 nodes (seed 004's benchmark) is 20667 per node; a peak of 100000
 * needs ROUNDUP(4.84) = 5 nodes, more than storage's 3, so ingest decides; a peak of 50000
 * needs 3: alike; 30000 needs 2: storage decides */
static void test_ingest_decides(void **state)
{
    (void)state;
    bf_size_in_t in;
    bf_size_defaults(&in);
    in.daily_gb = 1;
    in.hot.days = 270;
    in.ram_gb = 8;
    in.docs_s_per_node = 62000.0 / 3;
    in.peak_docs_s = 100000;
    bf_size_out_t out;
    assert_int_equal(bf_size_compute(&in, &out, NULL), BF_OK);
    assert_int_equal(out.ingest_nodes, 5);
    assert_int_equal(out.hot_nodes, 5);
    assert_string_equal(out.decides, "ingest");
    in.peak_docs_s = 50000;
    assert_int_equal(bf_size_compute(&in, &out, NULL), BF_OK);
    assert_int_equal(out.ingest_nodes, 3);
    assert_string_equal(out.decides, "storage and ingest alike");
    in.peak_docs_s = 30000;
    assert_int_equal(bf_size_compute(&in, &out, NULL), BF_OK);
    assert_int_equal(out.ingest_nodes, 2);
    assert_int_equal(out.hot_nodes, 3);
    assert_string_equal(out.decides, "storage");
    in.failover = 1;
    in.peak_docs_s = 100000;
    assert_int_equal(bf_size_compute(&in, &out, NULL), BF_OK);
    assert_int_equal(out.ingest_nodes, 6);
}

/* an exact quotient stays: 720 GB storage / 8 / 30 = 3 nodes, not 4 */
static void test_roundup_exact(void **state)
{
    (void)state;
    bf_size_in_t in;
    bf_size_defaults(&in);
    in.daily_gb = 576.0 / 270 / 2; /* 576 GB data -> 720 GB storage */
    in.hot.days = 270;
    in.ram_gb = 8;
    bf_size_out_t out;
    assert_int_equal(bf_size_compute(&in, &out, NULL), BF_OK);
    NEAR(out.hot.storage_gb, 720);
    assert_int_equal(out.hot.nodes, 3);
}

static void test_bad_input(void **state)
{
    (void)state;
    bf_size_in_t base;
    bf_size_defaults(&base);
    base.daily_gb = 1;
    base.hot.days = 270;
    base.ram_gb = 8;
    struct {
        const char *what;
        bf_size_in_t in;
        const char *msg;
    } cases[6];
    for (int i = 0; i < 6; i++)
        cases[i].in = base;
    cases[0].in.daily_gb = 0, cases[0].msg = "--daily-gb";
    cases[1].in.hot.days = 0, cases[1].msg = "--days";
    cases[2].in.ram_gb = 0, cases[2].msg = "--ram-gb";
    cases[3].in.hot.ram_data_ratio = 0, cases[3].msg = "--ratio";
    cases[4].in.peak_docs_s = 1000, cases[4].msg = "--docs-per-node";
    cases[5].in.raw_to_disk = 0, cases[5].msg = "raw-to-disk";
    for (int i = 0; i < 6; i++) {
        bf_size_out_t out;
        bf_diag_t d = {0};
        assert_int_equal(bf_size_compute(&cases[i].in, &out, &d), BF_E_INVAL);
        if (strstr(d.msg, cases[i].msg) == NULL)
            fail_msg("case %d: '%s' does not name %s", i, d.msg, cases[i].msg);
    }
}

/* the printed calculation carries the seed's figures */
static void test_print(void **state)
{
    (void)state;
    bf_size_in_t in;
    bf_size_defaults(&in);
    in.daily_gb = 100;
    in.hot.days = 30;
    in.warm.days = 365;
    in.ram_gb = 64;
    in.failover = 1;
    bf_size_out_t out;
    assert_int_equal(bf_size_compute(&in, &out, NULL), BF_OK);
    char buf[4096] = {0};
    FILE *f = fmemopen(buf, sizeof buf - 1, "w");
    assert_non_null(f);
    bf_size_print(f, &in, &out);
    fclose(f);
    assert_non_null(strstr(buf, "= 7500.0 GB"));
    assert_non_null(strstr(buf, "= 91250.0 GB"));
    assert_non_null(strstr(buf, "hot data nodes: 5"));
    assert_non_null(strstr(buf, "warm data nodes: 10"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seed_small),    cmocka_unit_test(test_seed_large),
        cmocka_unit_test(test_raw_to_disk),   cmocka_unit_test(test_ingest_decides),
        cmocka_unit_test(test_roundup_exact), cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_print),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
