/* SPDX-License-Identifier: MIT */
/* test_qfindings.c — the mutual-cost findings of a mixed matrix: indexing alone, searching
 * alone and both are matched on their axes; the sentences carry the computed differences;
 * failed cells and cells without a counterpart say nothing. The rows are read through the
 * results row codec (bf_row_rec_decode), so they carry what the writers always write (shards,
 * batch_size, concurrency). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "bf_qfindings.h"

#include <string.h>

static const char *ROWS =
    "["
    /* search alone */
    "{\"cell\":\"c0\",\"indices\":1,\"shards\":1,\"replicas\":0,\"batch_size\":10,\"concurrency\":"
    "0,"
    "\"search_clients\":2,\"docs_per_s\":0,\"axes\":{\"concurrency\":\"0\",\"search_clients\":"
    "\"2\"},"
    "\"queries\":[{\"query\":\"q1\",\"service_p90_ms\":10.0,\"ops_per_s\":100.0},"
    "{\"query\":\"q2\",\"service_p90_ms\":null,\"ops_per_s\":3.0}]},"
    /* both */
    "{\"cell\":\"c2q2\",\"indices\":1,\"shards\":1,\"replicas\":0,\"batch_size\":10,"
    "\"concurrency\":2,"
    "\"search_clients\":2,\"docs_per_s\":1500,\"axes\":{\"concurrency\":\"2\",\"search_clients\":"
    "\"2\"},"
    "\"queries\":[{\"query\":\"q1\",\"service_p90_ms\":25.0,\"ops_per_s\":60.0},"
    "{\"query\":\"q2\",\"service_p90_ms\":5.0,\"ops_per_s\":2.0}]},"
    /* indexing alone */
    "{\"cell\":\"c2q0\",\"indices\":1,\"shards\":1,\"replicas\":0,\"batch_size\":10,"
    "\"concurrency\":2,"
    "\"search_clients\":0,\"docs_per_s\":2000,\"axes\":{\"concurrency\":\"2\",\"search_clients\":"
    "\"0\"},"
    "\"queries\":[]},"
    /* another shard count: no counterpart, and a failed cell */
    "{\"cell\":\"s2\",\"indices\":1,\"shards\":2,\"replicas\":0,\"batch_size\":10,\"concurrency\":"
    "2,"
    "\"search_clients\":2,\"docs_per_s\":900,\"axes\":{\"concurrency\":\"2\",\"search_clients\":"
    "\"2\"},"
    "\"queries\":[{\"query\":\"q1\",\"service_p90_ms\":9.0,\"ops_per_s\":1.0}]},"
    "{\"cell\":\"f\",\"indices\":1,\"shards\":2,\"replicas\":0,\"batch_size\":10,\"concurrency\":2,"
    "\"failed\":true,"
    "\"search_clients\":0,\"docs_per_s\":100,\"axes\":{\"concurrency\":\"2\",\"search_clients\":"
    "\"0\"},"
    "\"queries\":[]}"
    "]";

static void test_mutual_cost(void **state)
{
    (void)state;
    json_error_t je;
    json_t *rows = json_loads(ROWS, 0, &je);
    if (rows == NULL)
        fail_msg("fixture: %s", je.text);
    json_t *lines = bf_qfindings_compute(rows);
    assert_int_equal(json_array_size(lines), 3);
    const char *l0 = json_string_value(json_array_get(lines, 0));
    const char *l1 = json_string_value(json_array_get(lines, 1));
    const char *l2 = json_string_value(json_array_get(lines, 2));
    /* 1500 vs 2000: -25 % */
    assert_non_null(strstr(l0, "indexing under search (2 search clients, cell c2q2): 1500 docs/s "
                               "vs 2000 alone, -25 % (1+1 runs: unclear)"));
    /* 10 -> 25 ms: +150 % */
    assert_non_null(strstr(l1, "query q1 under indexing (concurrency 2, cell c2q2): service p90 "
                               "10.0 ms alone -> 25.0 ms (+150 %); 100.0 -> 60.0 ops/s"));
    /* too few samples alone: no percentage */
    assert_non_null(strstr(l2, "query q2"));
    assert_non_null(strstr(l2, "too few samples"));
    assert_null(strstr(l2, "%)"));
    json_decref(lines);
    /* with 6 repetitions a side (+-1 %) the -25 % is tested: lower, with its interval */
    for (size_t r = 1; r <= 2; r++) {
        json_t *row = json_array_get(rows, r);
        double v = json_number_value(json_object_get(row, "docs_per_s"));
        json_t *a = json_array();
        for (int k = 0; k < 6; k++)
            json_array_append_new(a, json_real(v * (0.99 + 0.004 * k)));
        json_object_set_new(row, "docs_per_s_reps", a);
    }
    lines = bf_qfindings_compute(rows);
    l0 = json_string_value(json_array_get(lines, 0));
    assert_non_null(strstr(l0, "-25 % (0.75x, 95 % CI "));
    assert_non_null(strstr(l0, "6+6 runs: lower)"));
    json_decref(lines);
    json_decref(rows);
}

static void test_nothing_without_search(void **state)
{
    (void)state;
    json_t *rows = json_loads("[{\"cell\":\"a\",\"shards\":1,\"concurrency\":2,\"docs_per_s\":5}]",
                              0, NULL);
    json_t *lines = bf_qfindings_compute(rows);
    assert_int_equal(json_array_size(lines), 0);
    json_decref(lines);
    json_decref(rows);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mutual_cost),
        cmocka_unit_test(test_nothing_without_search),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
