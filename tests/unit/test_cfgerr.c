/* SPDX-License-Identifier: MIT */
/* test_cfgerr.c — which failed index creations every remaining cell would repeat
 * (bf_cfgerr_repeats): the campaign stops at the first of them (exit 2). The messages are
 * bf_cluster_prepare_cell's with the reasons a real cluster gives (integration_failfast_config
 * runs one against the dev cluster). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "bf_cfgerr.h"

#include <string.h>

#define HOST "http://127.0.0.1:9200"

static bf_cell_t cell(const char *id, const char *settings)
{
    return (bf_cell_t){.id = id, .settings_json = settings};
}

static void test_mapping_repeats_across_shards(void **state)
{
    (void)state;
    bf_cell_t a = cell("s1", "{\"index\":{\"number_of_shards\":1,\"number_of_replicas\":0}}");
    bf_cell_t b = cell("s2", "{\"index\":{\"number_of_shards\":2,\"number_of_replicas\":0}}");
    const char *msg = "cell s1: creating index bench-s1 on " HOST ": HTTP 400: "
                      "mapper_parsing_exception: No handler for type [nosuchtype] declared on "
                      "field [n]";
    char key[200];
    assert_true(bf_cfgerr_repeats(&a, msg, &b, key, sizeof key));
    assert_string_equal(key, "index.mappings");
    assert_true(bf_cfgerr_repeats(&a, msg, &a, key, sizeof key)); /* another repetition */
    /* a field type of a module the cluster lacks (bf_cluster's own message) */
    const char *module = "cell s1: creating index bench-s1 on " HOST ": the mappings use field "
                         "type scaled_float, which the cluster lacks: it comes from the module "
                         "mapper-extras";
    assert_true(bf_cfgerr_repeats(&a, module, &b, key, sizeof key));
    assert_string_equal(key, "index.mappings");
}

static void test_setting_repeats_only_with_the_same_value(void **state)
{
    (void)state;
    bf_cell_t a = cell("r1s1", "{\"index\":{\"number_of_shards\":1,\"codec\":\"zstd\"}}");
    bf_cell_t same = cell("r1s2", "{\"index\":{\"number_of_shards\":2,\"codec\":\"zstd\"}}");
    bf_cell_t other = cell("r2s1", "{\"index\":{\"number_of_shards\":1,\"codec\":\"default\"}}");
    bf_cell_t dotted = cell("d", "{\"index.codec\":\"zstd\",\"index\":{\"number_of_shards\":3}}");
    const char *msg = "cell r1s1: creating index b on " HOST ": HTTP 400: "
                      "illegal_argument_exception: unknown value for [index.codec] must be one "
                      "of [default, lucene_default, best_compression] but was: zstd; setting "
                      "[index.codec]";
    char key[200];
    assert_true(bf_cfgerr_repeats(&a, msg, &same, key, sizeof key));
    assert_string_equal(key, "setting index.codec (index.settings or a matrix setting)");
    assert_true(bf_cfgerr_repeats(&a, msg, &dotted, key, sizeof key));
    assert_false(bf_cfgerr_repeats(&a, msg, &other, key, sizeof key));
    assert_string_equal(key, "");
    /* an unknown setting the scenario gives every cell */
    const char *unknown = "cell r1s1: creating index b on " HOST ": HTTP 400: "
                          "illegal_argument_exception: unknown setting [index.nosuch] please "
                          "check that any required plugins are installed";
    bf_cell_t u1 = cell("u1", "{\"index\":{\"number_of_shards\":1,\"nosuch\":1}}");
    bf_cell_t u2 = cell("u2", "{\"index\":{\"number_of_shards\":6,\"nosuch\":1}}");
    assert_true(bf_cfgerr_repeats(&u1, unknown, &u2, key, sizeof key));
    /* the shards axis itself: only the cell with the refused value */
    const char *shards = "cell s0: creating index b on " HOST ": HTTP 400: "
                         "illegal_argument_exception: Failed to parse value [2000] for setting "
                         "[index.number_of_shards] must be <= 1024";
    bf_cell_t big = cell("s2000", "{\"index\":{\"number_of_shards\":2000}}");
    bf_cell_t big2 = cell("s2000b", "{\"index\":{\"number_of_shards\":2000,\"x\":1}}");
    bf_cell_t small = cell("s1", "{\"index\":{\"number_of_shards\":1}}");
    assert_false(bf_cfgerr_repeats(&big, shards, &small, key, sizeof key));
    assert_true(bf_cfgerr_repeats(&big, shards, &big2, key, sizeof key));
    assert_string_equal(key, "matrix.shards");
}

static void test_other_failures_do_not_stop(void **state)
{
    (void)state;
    bf_cell_t a = cell("a", "{\"index\":{\"number_of_shards\":1}}");
    bf_cell_t b = cell("b", "{\"index\":{\"number_of_shards\":1}}");
    bf_cell_t c = cell("c", "{\"index\":{\"number_of_shards\":2}}");
    char key[200] = "x";
    static const char *const not_config[] = {
        "cell a: creating index b on " HOST ": HTTP 500: exception: disk full",
        "cell a: creating index b on " HOST ": HTTP 403: security_exception: no privilege",
        "cell a: indices b are red after 120000 ms; check the cluster's disk and shard limits",
        "DELETE index on " HOST ": HTTP 400: illegal_argument_exception: mapping",
        "cell a: index b exists and was not created by bulkfleet",
        ""};
    for (size_t i = 0; i < sizeof not_config / sizeof *not_config; i++)
        if (bf_cfgerr_repeats(&a, not_config[i], &b, key, sizeof key))
            fail_msg("'%s' taken for a configuration error", not_config[i]);
    assert_false(bf_cfgerr_repeats(&a, NULL, &b, key, sizeof key));
    /* a 400 that names neither a setting nor a mapping: a cluster limit, not the scenario's */
    const char *plain = "cell a: creating index b on " HOST ": HTTP 400: "
                        "validation_exception: Validation Failed: 1: this action would add "
                        "[2] shards";
    assert_false(bf_cfgerr_repeats(&a, plain, &b, key, sizeof key));
    assert_false(bf_cfgerr_repeats(&a, plain, &c, key, sizeof key));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mapping_repeats_across_shards),
        cmocka_unit_test(test_setting_repeats_only_with_the_same_value),
        cmocka_unit_test(test_other_failures_do_not_stop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
