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
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* a rate measured at replicas m is scaled by the copies the sized cluster
 * writes, (r + 1), against the copies per document the measured nodes wrote, min(m + 1,
 * measured data nodes). 12000 docs/s per node measured, a peak of 120000 docs/s: the table
 * lists every pair of replicas 0/1/2 on either side, on a 3-node and on a 1-node measured
 * cluster (where a replica is never allocated: one copy was written whatever m was). */
static void test_replicas_table(void **state)
{
    (void)state;
    static const struct {
        int32_t measured;
        uint32_t measured_nodes, sized;
        double factor;
        uint32_t nodes;
    } t[] = {
        /* 3 measured data nodes: every copy allocated */
        {0, 3, 0, 1.0, 10},
        {0, 3, 1, 2.0, 20},
        {0, 3, 2, 3.0, 30},
        {1, 3, 0, 0.5, 5},
        {1, 3, 1, 1.0, 10},
        {1, 3, 2, 1.5, 15},
        {2, 3, 0, 1.0 / 3, 4},
        {2, 3, 1, 2.0 / 3, 7},
        {2, 3, 2, 1.0, 10},
        /* 1 measured data node (the case: 15 nodes said, about 30 needed) */
        {0, 1, 0, 1.0, 10},
        {0, 1, 1, 2.0, 20},
        {0, 1, 2, 3.0, 30},
        {1, 1, 1, 2.0, 20},
        {2, 1, 2, 3.0, 30},
        {2, 1, 0, 1.0, 10},
        /* 2 measured nodes at replicas 2: two copies were written */
        {2, 2, 1, 1.0, 10},
        {2, 2, 2, 1.5, 15},
        /* measured nodes not known: every copy taken as written */
        {1, 0, 2, 1.5, 15},
    };
    for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
        bf_size_in_t in;
        bf_size_defaults(&in);
        in.daily_gb = 1;
        in.hot.days = 1;
        in.ram_gb = 64;
        in.peak_docs_s = 120000;
        in.docs_s_per_node = 12000;
        in.replicas = t[i].sized;
        in.measured_replicas = t[i].measured;
        in.measured_data_nodes = t[i].measured_nodes;
        bf_size_out_t out;
        assert_int_equal(bf_size_compute(&in, &out, NULL), BF_OK);
        if (fabs(out.copies_factor - t[i].factor) > 1e-9 || out.ingest_nodes != t[i].nodes)
            fail_msg("case %zu (measured replicas %d on %u nodes, sized %u): factor %g nodes %u, "
                     "want %g and %u",
                     i, t[i].measured, t[i].measured_nodes, t[i].sized, out.copies_factor,
                     out.ingest_nodes, t[i].factor, t[i].nodes);
        /* the factor is in the printed formula line */
        char buf[4096] = {0};
        FILE *f = fmemopen(buf, sizeof buf - 1, "w");
        assert_non_null(f);
        bf_size_print(f, &in, &out);
        fclose(f);
        char want[64];
        snprintf(want, sizeof want, "x %.2f copies factor", t[i].factor);
        if (strstr(buf, want) == NULL || strstr(buf, "copies factor         = (") == NULL)
            fail_msg("case %zu: the formula does not show '%s':\n%s", i, want, buf);
    }
    /* not known: unscaled, and the line says at which replicas the rate is taken */
    bf_size_in_t in;
    bf_size_defaults(&in);
    in.daily_gb = 1, in.hot.days = 1, in.ram_gb = 64, in.peak_docs_s = 120000;
    in.docs_s_per_node = 12000;
    bf_size_out_t out;
    assert_int_equal(bf_size_compute(&in, &out, NULL), BF_OK);
    assert_int_equal(out.ingest_nodes, 10);
    NEAR(out.copies_factor, 1.0);
}

/* a find-max directory on disk: findmax.json (and matrix.json for an older one) */
static char *fm_dir(const char *findmax, const char *matrix)
{
    static char dir[512];
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/test_sizing_XXXXXX", tmp ? tmp : "/tmp");
    assert_non_null(mkdtemp(dir));
    char p[600];
    snprintf(p, sizeof p, "%s/findmax.json", dir);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(findmax, f);
    fclose(f);
    if (matrix != NULL) {
        snprintf(p, sizeof p, "%s/matrix.json", dir);
        f = fopen(p, "w");
        assert_non_null(f);
        fputs(matrix, f);
        fclose(f);
    }
    return dir;
}

static void rm_dir(const char *dir)
{
    char p[600];
    snprintf(p, sizeof p, "%s/findmax.json", dir);
    unlink(p);
    snprintf(p, sizeof p, "%s/matrix.json", dir);
    unlink(p);
    rmdir(dir);
}

#define COMBO(label, rep, dps)                                                                     \
    "{\"combination\": \"" label "\", \"found\": true, \"replicas\": " #rep                        \
    ", \"max_sustainable_docs_per_s\": " #dps "}"

/* the replicas come from findmax.json; several counts are reconciled with --replicas or
 * --measured-replicas, or refused with what to change; an older file falls back to the held
 * step's row */
static void test_read_findmax(void **state)
{
    (void)state;
    bf_size_measured_t m;
    bf_diag_t d = {0};
    /* one node at replicas 0 (the run): read, so size scales by 2 for replicas 1 */
    char *dir = fm_dir("{\"data_nodes\": 1, \"combinations\": [" COMBO("all", 0, 13333) "]}", NULL);
    assert_int_equal(bf_size_read_findmax(dir, -1, 1, &m, &d), BF_OK);
    assert_int_equal(m.replicas, 0);
    assert_int_equal(m.data_nodes, 1);
    NEAR(m.docs_s, 13333);
    /* --measured-replicas that contradicts the file: refused, naming what to drop */
    memset(&d, 0, sizeof d);
    assert_int_equal(bf_size_read_findmax(dir, 1, 1, &m, &d), BF_E_INVAL);
    assert_non_null(strstr(d.msg, "measured at replicas 0, not 1: drop --measured-replicas"));
    rm_dir(dir);

    /* replicas 0 and 2 measured: --replicas 2 takes the replicas-2 one (no scaling needed) */
    dir = fm_dir("{\"data_nodes\": 3, \"combinations\": [" COMBO("replicas=0", 0, 30000) ", " COMBO(
                     "replicas=2", 2, 12000) "]}",
                 NULL);
    assert_int_equal(bf_size_read_findmax(dir, -1, 2, &m, &d), BF_OK);
    assert_int_equal(m.replicas, 2);
    NEAR(m.docs_s, 12000);
    /* --replicas 1, measured at 0 and 2: which to scale from is the user's choice */
    memset(&d, 0, sizeof d);
    assert_int_equal(bf_size_read_findmax(dir, -1, 1, &m, &d), BF_E_INVAL);
    assert_non_null(strstr(d.msg, "measured at replicas 0 and 2, none at --replicas 1"));
    assert_non_null(strstr(d.msg, "--measured-replicas"));
    assert_int_equal(bf_size_read_findmax(dir, 0, 1, &m, &d), BF_OK);
    assert_int_equal(m.replicas, 0);
    NEAR(m.docs_s, 30000);
    rm_dir(dir);

    /* an older findmax.json (no "replicas"): the held step's row says 1 */
    dir = fm_dir("{\"data_nodes\": 1, \"combinations\": [{\"combination\": \"all\", "
                 "\"max_sustainable_docs_per_s\": 5000, \"steps\": [{\"cell\": \"fm1-01\", "
                 "\"verdict\": \"knee\"}, {\"cell\": \"fm1-02\", \"verdict\": \"held\"}]}]}",
                 "{\"rows\": [{\"cell\": \"fm1-01\", \"shards\": 1, \"replicas\": 0, "
                 "\"batch_size\": 100, \"concurrency\": 1}, {\"cell\": \"fm1-02\", \"shards\": "
                 "1, \"replicas\": 1, \"batch_size\": 100, \"concurrency\": 2}]}");
    assert_int_equal(bf_size_read_findmax(dir, -1, 1, &m, &d), BF_OK);
    assert_int_equal(m.replicas, 1);
    rm_dir(dir);
    /* the held step's row gives the interval (scaled to the sustained rate) and the rows the
     * bytes per document (median of 450, 451 -> 450.5) */
    dir = fm_dir("{\"data_nodes\": 2, \"combinations\": [{\"combination\": \"all\", "
                 "\"replicas\": 0, \"max_sustainable_docs_per_s\": 10000, \"steps\": "
                 "[{\"cell\": \"fm1-01\", \"verdict\": \"knee\"}, {\"cell\": \"fm1-02\", "
                 "\"verdict\": \"held\"}]}]}",
                 "{\"rows\": [{\"cell\": \"fm1-01\", \"docs_per_s\": 15000, "
                 "\"docs_per_s_ci_low\": 1000, \"docs_per_s_ci_high\": 20000, "
                 "\"bytes_payload_ok_all\": 4500, \"docs_ok_all\": 10}, {\"cell\": "
                 "\"fm1-02\", \"docs_per_s\": 9800, \"docs_per_s_ci_low\": 9310, "
                 "\"docs_per_s_ci_high\": 10290, \"bytes_payload_ok_all\": 4510, "
                 "\"docs_ok_all\": 10}]}");
    assert_int_equal(bf_size_read_findmax(dir, -1, 0, &m, &d), BF_OK);
    assert_string_equal(m.held_cell, "fm1-02");
    NEAR(m.ci_low, 9500);
    NEAR(m.ci_high, 10500);
    NEAR(m.bytes_per_doc, 450.5);
    assert_int_equal(m.bytes_rows, 2);
    rm_dir(dir);
    /* ... and without the row: refused, naming --measured-replicas; given, it is taken */
    dir = fm_dir("{\"data_nodes\": 1, \"combinations\": [{\"combination\": \"all\", "
                 "\"max_sustainable_docs_per_s\": 5000}]}",
                 NULL);
    memset(&d, 0, sizeof d);
    assert_int_equal(bf_size_read_findmax(dir, -1, 1, &m, &d), BF_E_INVAL);
    assert_non_null(strstr(d.msg, "give --measured-replicas N"));
    assert_int_equal(bf_size_read_findmax(dir, 0, 1, &m, &d), BF_OK);
    assert_int_equal(m.replicas, 0);
    rm_dir(dir);
}

/* the case: find-max measured 450-byte documents at 13200 docs/s on one node (replicas
 * 0), sized for 1024-byte documents at 300000 docs/s and replicas 0: each sized document costs
 * 1024 / 450 = 2.276 measured ones, ROUNDUP(300000 x 2.276 / 13200) = ROUNDUP(51.72) = 52 nodes,
 * not the 23 (22.73) of documents taken as alike; 4x either way is the bound */
static void test_bytes_scale(void **state)
{
    (void)state;
    bf_size_in_t in;
    bf_size_defaults(&in);
    in.daily_gb = 1, in.hot.days = 1, in.ram_gb = 64;
    in.replicas = 0;
    in.peak_docs_s = 300000;
    in.docs_s_per_node = 13200;
    in.measured_doc_bytes = 450;
    bf_size_out_t out;
    bf_diag_t d = {0};
    assert_int_equal(bf_size_compute(&in, &out, &d), BF_OK);
    NEAR(out.bytes_factor, 1.0); /* no --doc-bytes: as measured */
    assert_int_equal(out.ingest_nodes, 23);
    in.doc_bytes = 1024;
    assert_int_equal(bf_size_compute(&in, &out, &d), BF_OK);
    NEAR(out.bytes_factor, 1024.0 / 450);
    NEAR(out.ingest_exact, 300000 * (1024.0 / 450) / 13200);
    assert_int_equal(out.ingest_nodes, 52);
    char buf[4096] = {0};
    FILE *f = fmemopen(buf, sizeof buf - 1, "w");
    assert_non_null(f);
    bf_size_print(f, &in, &out);
    fclose(f);
    assert_non_null(strstr(buf, "= 1024 bytes per document sized / 450 bytes measured = 2.28"));
    assert_non_null(strstr(buf, "x 2.28 bytes factor / 13200 docs/s per data node"));
    assert_non_null(strstr(buf, "in proportion to a document's bytes"));
    /* smaller documents scale the other way: 225 bytes -> 0.5, ROUNDUP(11.36) = 12 */
    in.doc_bytes = 225;
    assert_int_equal(bf_size_compute(&in, &out, &d), BF_OK);
    assert_int_equal(out.ingest_nodes, 12);
    /* the bound: exactly 4x either way scales, beyond is refused with both sizes and the bound */
    in.doc_bytes = 1800;
    assert_int_equal(bf_size_compute(&in, &out, &d), BF_OK);
    NEAR(out.bytes_factor, 4.0);
    in.doc_bytes = 112.5;
    assert_int_equal(bf_size_compute(&in, &out, &d), BF_OK);
    in.doc_bytes = 2000;
    memset(&d, 0, sizeof d);
    assert_int_equal(bf_size_compute(&in, &out, &d), BF_E_INVAL);
    assert_non_null(strstr(d.msg, "--doc-bytes 2000: documents 4.44x larger than the 450 bytes"));
    assert_non_null(strstr(d.msg, "refused beyond 4x either way"));
    in.doc_bytes = 100;
    memset(&d, 0, sizeof d);
    assert_int_equal(bf_size_compute(&in, &out, &d), BF_E_INVAL);
    assert_non_null(strstr(d.msg, "4.50x smaller"));
    /* sized bytes without the measured ones: refused, naming the flag */
    in.doc_bytes = 1024;
    in.measured_doc_bytes = 0;
    memset(&d, 0, sizeof d);
    assert_int_equal(bf_size_compute(&in, &out, &d), BF_E_INVAL);
    assert_non_null(strstr(d.msg, "give --measured-doc-bytes N"));
}

/* the range: 12000 docs/s per node within 11000-13000 and a peak of 120000 -> ingest
 * ROUNDUP(9.23) = 10 to ROUNDUP(10.91) = 11 around 10; the raw-to-disk factor 1.5 within
 * 1.2-1.8 on the seed's small cluster (1 GB x 270 days x 2 x f x 1.25 / 8 / 30) -> storage
 * ROUNDUP(3.375) = 4 to ROUNDUP(5.06) = 6 around 5 */
static void test_range(void **state)
{
    (void)state;
    bf_size_in_t in;
    bf_size_defaults(&in);
    in.daily_gb = 1, in.hot.days = 270, in.ram_gb = 8;
    in.raw_to_disk = 1.5, in.raw_to_disk_lo = 1.2, in.raw_to_disk_hi = 1.8;
    bf_size_out_t out;
    assert_int_equal(bf_size_compute(&in, &out, NULL), BF_OK);
    assert_int_equal(out.hot.nodes, 5);
    assert_int_equal(out.storage_nodes_lo, 4);
    assert_int_equal(out.storage_nodes_hi, 6);
    assert_int_equal(out.hot_nodes_lo, 4);
    assert_int_equal(out.hot_nodes_hi, 6);
    in.peak_docs_s = 120000;
    in.docs_s_per_node = 12000, in.docs_s_per_node_lo = 11000, in.docs_s_per_node_hi = 13000;
    assert_int_equal(bf_size_compute(&in, &out, NULL), BF_OK);
    assert_int_equal(out.ingest_nodes, 10);
    assert_int_equal(out.ingest_nodes_lo, 10);
    assert_int_equal(out.ingest_nodes_hi, 11);
    assert_int_equal(out.hot_nodes, 10);
    assert_int_equal(out.hot_nodes_lo, 10);
    assert_int_equal(out.hot_nodes_hi, 11);
    char buf[4096] = {0};
    FILE *f = fmemopen(buf, sizeof buf - 1, "w");
    assert_non_null(f);
    bf_size_print(f, &in, &out);
    fclose(f);
    assert_non_null(strstr(buf, "data nodes range: 10 to 11 (ingest 10 to 11 at 13000 to 11000 "
                                "docs/s per data node"));
    assert_non_null(strstr(buf, "storage 4 to 6 at raw-to-disk 1.200 to 1.800"));
    /* an interval that does not hold its figure is refused */
    in.docs_s_per_node_lo = 12500;
    assert_int_equal(bf_size_compute(&in, &out, NULL), BF_E_INVAL);
}

/* the shard plan: 100 GB a day at raw-to-disk 1.12 is 112 GB of primaries a day; at 50 GB per
 * shard ROUNDUP(2.24) = 3 primaries rolling over every 3 x 50 / 112 = 1.34 days, 150 GB of
 * primaries and 300 GB with one replica; 30 days hot hold ROUNDUP(30 / 1.34) + 1 = 24 indices
 * x 3 x 2 = 144 shards. 1 GB a day at 30 GB shards: one primary, rolled over every 30 days;
 * with 10 days hot the plan says an index outlives them. 100-byte documents put 500 million in
 * a 50 GB shard: more than 200 million */
static void test_shard_plan(void **state)
{
    (void)state;
    bf_size_in_t in;
    bf_size_defaults(&in);
    in.daily_gb = 100, in.hot.days = 30, in.ram_gb = 64, in.raw_to_disk = 1.12;
    bf_size_out_t out;
    assert_int_equal(bf_size_compute(&in, &out, NULL), BF_OK);
    NEAR(out.primary_gb_day, 112);
    assert_int_equal(out.primaries, 3);
    NEAR(out.rollover_days, 150.0 / 112);
    NEAR(out.index_gb, 300);
    assert_int_equal(out.hot_shards, 144);
    NEAR(out.shard_docs, 0);
    char buf[4096] = {0};
    FILE *f = fmemopen(buf, sizeof buf - 1, "w");
    assert_non_null(f);
    bf_size_print(f, &in, &out);
    fclose(f);
    assert_non_null(strstr(buf, "primaries per index   = MAX(1, ROUNDUP(112.0 GB / 50 GB)) = 3"));
    assert_non_null(strstr(buf, "max_primary_shard_size 50gb: every 1.3 days, each index 3 x 50 "
                                "GB = 150 GB of primaries, 300 GB with 1 replica"));
    assert_null(strstr(buf, "outside"));
    in.daily_gb = 1, in.hot.days = 10, in.raw_to_disk = 1, in.shard_gb = 30;
    assert_int_equal(bf_size_compute(&in, &out, NULL), BF_OK);
    assert_int_equal(out.primaries, 1);
    NEAR(out.rollover_days, 30);
    memset(buf, 0, sizeof buf);
    f = fmemopen(buf, sizeof buf - 1, "w");
    bf_size_print(f, &in, &out);
    fclose(f);
    assert_non_null(strstr(buf, "an index holds more days than the 10 days kept hot"));
    in.shard_gb = 50, in.doc_bytes = 100;
    assert_int_equal(bf_size_compute(&in, &out, NULL), BF_OK);
    NEAR(out.shard_docs, 500e6);
    memset(buf, 0, sizeof buf);
    f = fmemopen(buf, sizeof buf - 1, "w");
    bf_size_print(f, &in, &out);
    fclose(f);
    assert_non_null(strstr(buf, "about 500 million documents, more than the 200 million"));
    in.shard_gb = 0;
    assert_int_equal(bf_size_compute(&in, &out, NULL), BF_E_INVAL);
    in.shard_gb = 80;
    assert_int_equal(bf_size_compute(&in, &out, NULL), BF_OK);
    memset(buf, 0, sizeof buf);
    f = fmemopen(buf, sizeof buf - 1, "w");
    bf_size_print(f, &in, &out);
    fclose(f);
    assert_non_null(strstr(buf, "Elastic advises 10 to 50 GB, which this is outside"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seed_small),    cmocka_unit_test(test_seed_large),
        cmocka_unit_test(test_raw_to_disk),   cmocka_unit_test(test_ingest_decides),
        cmocka_unit_test(test_roundup_exact), cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_print),         cmocka_unit_test(test_replicas_table),
        cmocka_unit_test(test_read_findmax),  cmocka_unit_test(test_bytes_scale),
        cmocka_unit_test(test_range),         cmocka_unit_test(test_shard_plan),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
