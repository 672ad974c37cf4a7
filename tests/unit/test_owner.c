/* SPDX-License-Identifier: MIT */
/* test_owner.c — what bulkfleet may replace in a cluster (bf_owner_may_replace) and which names
 * validate/plan warn about (bf_cluster_production_like). The cluster side of ownership (the
 * mark, refusals) is tested against the real cluster by integration_ownership. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "bf_cluster.h"

static void test_may_replace_only_named(void **state)
{
    (void)state;
    const char *names[] = {"bench-1s", "my-template"};
    bf_owner_t o = {.replace = names, .nreplace = 2};
    assert_true(bf_owner_may_replace(&o, "bench-1s"));
    assert_true(bf_owner_may_replace(&o, "my-template"));
    assert_false(bf_owner_may_replace(&o, "bench-1"));
    assert_false(bf_owner_may_replace(&o, "bench-1s2"));
    assert_false(bf_owner_may_replace(NULL, "bench-1s"));
    assert_false(bf_owner_may_replace(&o, NULL));
}

static void test_production_like(void **state)
{
    (void)state;
    static const char *const yes[] = {"*", "**", ".kibana", "logs-app", "logs", "logstash-2024",
                                      "filebeat-8", "metrics_x", "prod-orders", "orders-prod",
                                      "production", "traces-apm", "logs*"};
    static const char *const no[] = {"bench-1s", "it-campaign-2s", "bulkfleet-test",
                                     "logsbench", "test*", "catalog", ""};
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
        if (!bf_cluster_production_like(yes[i]))
            fail_msg("%s should look like production", yes[i]);
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
        if (bf_cluster_production_like(no[i]))
            fail_msg("%s should not look like production", no[i]);
    assert_false(bf_cluster_production_like(NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_may_replace_only_named),
        cmocka_unit_test(test_production_like),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
