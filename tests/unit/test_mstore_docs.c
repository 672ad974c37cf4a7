/* SPDX-License-Identifier: MIT */
/* test_mstore_docs.c — unit tests for bf_mstore_docs: the metrics store's templates, ids, month
 * index and the documents of the fixture results directories (golden: an axis with a dot;
 * shard-study-base: cells with telemetry). */
#include "bf_error.h"
#include "bf_mem.h"
#include "bf_mstore_docs.h"
#include "bf_sample.h"

#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#define FIX BF_SOURCE_DIR "/tests/fixtures/results"

static void test_templates(void **state)
{
    (void)state;
    for (int results = 0; results < 2; results++) {
        char *t = bf_mstore_docs_template(results);
        json_t *j = json_loads(t, 0, NULL);
        assert_non_null(j);
        const char *pat =
            json_string_value(json_array_get(json_object_get(j, "index_patterns"), 0));
        assert_string_equal(pat, results ? "bulkfleet-results" : "bulkfleet-samples-*");
        json_t *m = json_object_get(json_object_get(j, "template"), "mappings");
        json_t *p = json_object_get(m, "properties");
        assert_string_equal(
            json_string_value(json_object_get(json_object_get(p, "@timestamp"), "type")), "date");
        static const char *kw[] = {"campaign", "scenario", "cell", "cell_name", "kind"};
        for (size_t i = 0; i < 5; i++)
            assert_string_equal(
                json_string_value(json_object_get(json_object_get(p, kw[i]), "type")), "keyword");
        if (!results) {
            /* every sample counter, from the one counter table */
            for (size_t i = 0; i < bf_counter_nfields; i++) {
                json_t *f = json_object_get(p, bf_counter_fields[i].name);
                assert_non_null(f);
                assert_string_equal(json_string_value(json_object_get(f, "type")), "long");
            }
        } else {
            assert_string_equal(
                json_string_value(json_object_get(json_object_get(p, "service_p99_ms"), "type")),
                "double");
        }
        /* the axes template matches string leaves only (dotted axis names are objects) */
        json_t *dt = json_object_get(json_array_get(json_object_get(m, "dynamic_templates"), 0),
                                     "axes_as_keywords");
        assert_string_equal(json_string_value(json_object_get(dt, "path_match")), "axes.*");
        assert_string_equal(json_string_value(json_object_get(dt, "match_mapping_type")), "string");
        json_decref(j);
        free(t);
    }
}

static void test_names(void **state)
{
    (void)state;
    char b[600];
    bf_mstore_docs_campaign("results/shard-study-20261201T205245Z/", b, sizeof b);
    assert_string_equal(b, "shard-study-20261201T205245Z");
    bf_mstore_docs_campaign("x", b, sizeof b);
    assert_string_equal(b, "x");
    bf_mstore_docs_samples_index("shard-study-20261201T205245Z", 0, b, sizeof b);
    assert_string_equal(b, "bulkfleet-samples-2026.12");
    /* no stamp: the fallback time's month (2021-03-04 UTC) */
    bf_mstore_docs_samples_index("golden", 1614816000, b, sizeof b);
    assert_string_equal(b, "bulkfleet-samples-2021.03");
    bf_mstore_docs_id(b, sizeof b, "c", "cell", "second", "7");
    assert_string_equal(b, "c/cell/second/7");
    bf_mstore_docs_id(b, sizeof b, "c", "cell", "row", "");
    assert_string_equal(b, "c/cell/row");
    char longc[600];
    memset(longc, 'a', sizeof longc - 1);
    longc[sizeof longc - 1] = '\0';
    bf_mstore_docs_id(b, sizeof b, longc, "cell", "row", "");
    assert_int_equal(strlen(b), 64); /* sha256 hex: over the 512-byte id limit */
}

typedef struct seen {
    json_t *docs; /* array of {"index","id","source"} */
} seen;

static int collect(void *ctx, const char *index, const char *id, const char *source)
{
    seen *s = ctx;
    json_t *o = json_object();
    json_object_set_new(o, "index", json_string(index));
    json_object_set_new(o, "id", json_string(id));
    json_t *src = json_loads(source, 0, NULL);
    assert_non_null(src);
    json_object_set_new(o, "source", src);
    json_array_append_new(s->docs, o);
    return 0;
}

static void test_golden_cell(void **state)
{
    (void)state;
    seen s = {json_array()};
    bf_mstore_docs_counts_t n;
    memset(&n, 0, sizeof n);
    bf_diag_t d = {0};
    const char *name = "i1-s1-r0-b100-c4-refresh_interval_1s";
    assert_int_equal(bf_mstore_docs_cell(FIX "/golden", "golden-20261201T000000Z", "golden", name,
                                         collect, &s, &n, &d),
                     BF_OK);
    assert_int_equal(n.rows, 1);
    assert_int_equal(n.seconds, 8);
    assert_int_equal(n.agent_seconds, 16);
    assert_int_equal(n.nodes, 0); /* the fixture has no telemetry for this cell */
    assert_int_equal(json_array_size(s.docs), 25);
    json_t *row = json_array_get(s.docs, 0);
    assert_string_equal(json_string_value(json_object_get(row, "index")), "bulkfleet-results");
    assert_string_equal(json_string_value(json_object_get(row, "id")),
                        "golden-20261201T000000Z/i1-s1-r0-b100-c4-refresh_interval_1s/row");
    json_t *rs = json_object_get(row, "source");
    assert_string_equal(json_string_value(json_object_get(rs, "kind")), "row");
    assert_null(json_object_get(rs, "type"));
    assert_string_equal(json_string_value(json_object_get(json_object_get(rs, "axes"),
                                                          "settings.refresh_interval")),
                        "1s");
    /* the seconds: ids by second, docs_per_s = docs_ok, phases from warmup_s/duration_s,
     * timestamps one second apart */
    int64_t warm = json_integer_value(json_object_get(rs, "warmup_s"));
    int64_t dur = json_integer_value(json_object_get(rs, "duration_s"));
    assert_true(warm == 2 && dur == 5); /* 8 seconds in the file: the last is tail */
    const char *prev_ts = NULL;
    int nsec = 0;
    size_t i;
    json_t *doc;
    json_array_foreach(s.docs, i, doc)
    {
        json_t *src = json_object_get(doc, "source");
        const char *kind = json_string_value(json_object_get(src, "kind"));
        if (strcmp(kind, "second") != 0)
            continue;
        assert_string_equal(json_string_value(json_object_get(doc, "index")),
                            "bulkfleet-samples-2026.12");
        int64_t sec = json_integer_value(json_object_get(src, "second"));
        char want[256];
        snprintf(want, sizeof want, "golden-20261201T000000Z/%s/second/%lld", name, (long long)sec);
        assert_string_equal(json_string_value(json_object_get(doc, "id")), want);
        assert_true(json_real_value(json_object_get(src, "docs_per_s")) ==
                    (double)json_integer_value(json_object_get(src, "docs_ok")));
        assert_string_equal(json_string_value(json_object_get(src, "phase")), sec < warm ? "warmup"
                                                                              : sec < warm + dur
                                                                                  ? "measure"
                                                                                  : "tail");
        assert_string_equal(json_string_value(json_object_get(src, "cell")), name);
        const char *ts = json_string_value(json_object_get(src, "@timestamp"));
        assert_non_null(ts);
        assert_int_equal(strlen(ts), 24); /* 2026-12-01T20:52:45.123Z */
        if (prev_ts)
            assert_true(strcmp(prev_ts, ts) < 0);
        prev_ts = ts;
        nsec++;
    }
    assert_int_equal(nsec, 8);
    json_decref(s.docs);
}

static void test_telemetry_nodes(void **state)
{
    (void)state;
    seen s = {json_array()};
    bf_mstore_docs_counts_t n;
    memset(&n, 0, sizeof n);
    bf_diag_t d = {0};
    assert_int_equal(bf_mstore_docs_cell(FIX "/shard-study-base", "base", "shard-study",
                                         "i1-s50-r1-b50-c100", collect, &s, &n, &d),
                     BF_OK);
    assert_true(n.nodes > 0);
    size_t i, nodes = 0;
    json_t *doc;
    json_array_foreach(s.docs, i, doc)
    {
        json_t *src = json_object_get(doc, "source");
        if (strcmp(json_string_value(json_object_get(src, "kind")), "node") != 0)
            continue;
        nodes++;
        assert_non_null(json_string_value(json_object_get(src, "node_id")));
        assert_true(json_is_integer(json_object_get(src, "queue")));
        assert_true(json_is_integer(json_object_get(src, "t_ms")));
        assert_null(json_object_get(src, "id"));
    }
    assert_int_equal(nodes, n.nodes);
    json_decref(s.docs);
}

static void test_matrix_rows(void **state)
{
    (void)state;
    seen s = {json_array()};
    uint64_t n = 0;
    bf_diag_t d = {0};
    assert_int_equal(bf_mstore_docs_matrix(FIX "/shard-study-contender", "cont", "shard-study",
                                           collect, &s, &n, &d),
                     BF_OK);
    assert_int_equal(n, 4); /* the contender's matrix has 4 cells (repeat 3, folded) */
    json_t *doc = json_array_get(s.docs, 0), *src = json_object_get(doc, "source");
    assert_string_equal(json_string_value(json_object_get(doc, "index")), "bulkfleet-results");
    char want[300];
    snprintf(want, sizeof want, "cont/%s/matrix_row",
             json_string_value(json_object_get(src, "cell")));
    assert_string_equal(json_string_value(json_object_get(doc, "id")), want);
    assert_string_equal(json_string_value(json_object_get(src, "kind")), "matrix_row");
    assert_string_equal(json_string_value(json_object_get(src, "cluster_distribution")),
                        "opensearch");
    assert_int_equal(json_integer_value(json_object_get(src, "repeat")), 3);
    assert_true(json_is_number(json_object_get(src, "docs_per_s")));
    json_decref(s.docs);
    memset(&d, 0, sizeof d);
    assert_int_equal(bf_mstore_docs_matrix(FIX "/no-such", "x", "x", collect, &s, NULL, &d),
                     BF_E_NOTFOUND);
    assert_non_null(strstr(d.msg, "no-such/matrix.json"));
}

static int stop_at_two(void *ctx, const char *index, const char *id, const char *source)
{
    (void)index;
    (void)id;
    (void)source;
    int *k = ctx;
    return ++*k == 2 ? 7 : 0;
}

static void test_errors(void **state)
{
    (void)state;
    bf_diag_t d = {0};
    int k = 0;
    assert_int_equal(
        bf_mstore_docs_cell(FIX "/golden", "g", "g", "no-such-cell", stop_at_two, &k, NULL, &d),
        BF_E_NOTFOUND);
    assert_non_null(strstr(d.msg, "no-such-cell.ndjson"));
    /* an emit's non-zero stops the walk and is returned */
    memset(&d, 0, sizeof d);
    assert_int_equal(bf_mstore_docs_cell(FIX "/golden", "g", "g",
                                         "i1-s1-r0-b100-c4-refresh_interval_1s", stop_at_two, &k,
                                         NULL, &d),
                     7);
    /* a file whose first line is not a row */
    const char *tmp = getenv("TMPDIR");
    char *base = bf_asprintf("%s/mstore-docs-XXXXXX", tmp ? tmp : "/tmp");
    assert_non_null(mkdtemp(base));
    char *cells = bf_asprintf("%s/cells", base);
    assert_int_equal(mkdir(cells, 0755), 0);
    char *f = bf_asprintf("%s/x.ndjson", cells);
    FILE *fp = fopen(f, "w");
    fputs("{\"type\":\"second\"}\n", fp);
    fclose(fp);
    memset(&d, 0, sizeof d);
    assert_int_equal(bf_mstore_docs_cell(base, "g", "g", "x", stop_at_two, &k, NULL, &d),
                     BF_E_PARSE);
    assert_non_null(strstr(d.msg, "not a cell's results file"));
    remove(f);
    rmdir(cells);
    rmdir(base);
    free(f);
    free(cells);
    free(base);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_templates),   cmocka_unit_test(test_names),
        cmocka_unit_test(test_golden_cell), cmocka_unit_test(test_telemetry_nodes),
        cmocka_unit_test(test_errors),      cmocka_unit_test(test_matrix_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
