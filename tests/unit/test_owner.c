/* SPDX-License-Identifier: MIT */
/* test_owner.c — what bulkfleet may replace in a cluster (bf_owner_may_replace) and which names
 * validate/plan warn about (bf_cluster_production_like), and whether GET / came from a cluster
 * (bf_cluster_root_check), and what an index creation's refusal of an unknown
 * analysis component or field type names (bf_cluster_analysis_hint, bf_cluster_type_module),
 * and a search's refusal of a script language (bf_cluster_script_hint). The cluster
 * side of ownership (the mark, refusals) is tested against the real cluster by
 * integration_ownership. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "bf_cluster.h"

#include <stdio.h>
#include <string.h>

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

static void test_root_check(void **state)
{
    (void)state;
    char w[256];
    /* the real answers: Elasticsearch 8.17.0 (our bulkfleet-root module), OpenSearch 2.19 */
    assert_true(bf_cluster_root_check(
        200,
        "{\"name\":\"n0\",\"cluster_name\":\"bf\",\"cluster_uuid\":\"u\",\"version\":"
        "{\"number\":\"8.17.0\",\"build_flavor\":\"default\"},\"tagline\":\"You Know, "
        "for Search\"}",
        w, sizeof w));
    assert_string_equal(w, "");
    assert_true(bf_cluster_root_check(
        200,
        "{\"cluster_name\":\"c\",\"version\":{\"distribution\":\"opensearch\",\"number\":"
        "\"2.19.6\"}}",
        w, sizeof w));
    /* a real cluster's error under another status is the cluster's (http_error reports it) */
    assert_true(bf_cluster_root_check(
        503, "{\"error\":{\"type\":\"master_not_discovered_exception\"},\"status\":503}", w,
        sizeof w));
    assert_false(bf_cluster_root_check(
        200, "<!DOCTYPE html>\n<html>\n<head>\n<title>Welcome to\n nginx!</title>", w, sizeof w));
    assert_string_equal(w, "an HTML page titled \"Welcome to nginx!\"");
    assert_false(bf_cluster_root_check(404, "<html>\r\n<body>gone</body></html>", w, sizeof w));
    assert_string_equal(w, "an HTML page (\"<html>  <body>gone</body></html>\")");
    assert_false(bf_cluster_root_check(
        200, "{\"responseHeader\":{\"status\":0},\"lucene\":{\"solr-spec-version\":\"9.4.0\"}}", w,
        sizeof w));
    assert_string_equal(w, "JSON without version.number (its keys: responseHeader, lucene)");
    assert_false(bf_cluster_root_check(200, "{\"version\":{\"number\":\"1.0\"}}", w, sizeof w));
    assert_string_equal(w, "JSON without cluster_name (its keys: version)");
    assert_false(bf_cluster_root_check(200, "{}", w, sizeof w));
    assert_string_equal(w, "JSON without version.number (its keys: none)");
    assert_false(bf_cluster_root_check(
        200, "{\"a\":1,\"b\":2,\"c\":3,\"d\":4,\"e\":5,\"f\":6,\"g\":7,\"h\":8}", w, sizeof w));
    assert_string_equal(w, "JSON without version.number (its keys: a, b, c, d, e, f, ...)");
    assert_false(bf_cluster_root_check(200, "[1, 2]", w, sizeof w));
    assert_string_equal(w, "JSON that is not an object");
    assert_false(bf_cluster_root_check(200, "  \n", w, sizeof w));
    assert_string_equal(w, "an empty body");
    assert_false(bf_cluster_root_check(200, NULL, w, sizeof w));
    assert_string_equal(w, "an empty body");
    assert_false(bf_cluster_root_check(200, "OK\n", w, sizeof w));
    assert_string_equal(w, "text \"OK \"");
    char longtext[200];
    memset(longtext, 'x', sizeof longtext - 1);
    longtext[sizeof longtext - 1] = '\0';
    assert_false(bf_cluster_root_check(200, longtext, w, sizeof w));
    assert_int_equal(strlen(w), strlen("text \"\"...") + 80);
    /* a small buffer is cut, terminated */
    char small[8];
    assert_false(
        bf_cluster_root_check(200, "<title>Welcome to nginx!</title>", small, sizeof small));
    assert_int_equal(strlen(small), 7);
}

/* the bodies as Elasticsearch 8.17.0 answered them on the dev cluster (2026-12-07) */
static void test_analysis_hint(void **state)
{
    (void)state;
    char h[900];
    const char *unknown =
        "{\"error\":{\"root_cause\":[{\"type\":\"illegal_argument_exception\","
        "\"reason\":\"Unknown filter type [synonym] for [syn]\"}]},\"status\":400}";
    assert_true(bf_cluster_analysis_hint(unknown, h, sizeof h));
    assert_non_null(strstr(h, "the filter type [synonym], which the cluster lacks: it comes from "
                              "analysis-common"));
    assert_non_null(strstr(h, "OpenSearch dev cluster"));
    assert_null(strstr(h, "use "));
    const char *byname = "{\"reason\":\"Custom Analyzer [a] failed to find tokenizer under name "
                         "[nGram]\"}";
    assert_true(bf_cluster_analysis_hint(byname, h, sizeof h));
    assert_non_null(strstr(h, "the tokenizer type [nGram]"));
    assert_non_null(strstr(h, "use ngram (the name since Elasticsearch 7.6) instead"));
    assert_true(
        bf_cluster_analysis_hint("Unknown tokenizer type [icu_tokenizer] for [t]", h, sizeof h));
    assert_non_null(strstr(h, "an analysis plugin (analysis-icu"));
    assert_true(
        bf_cluster_analysis_hint("failed to find global char_filter under [x]", h, sizeof h));
    assert_non_null(strstr(h, "the char_filter type [x]"));
    /* other 400s are not analysis refusals; a small buffer is cut, terminated */
    snprintf(h, sizeof h, "untouched");
    assert_false(bf_cluster_analysis_hint(
        "No handler for type [match_only_text] declared on field [m]", h, sizeof h));
    assert_false(bf_cluster_analysis_hint(NULL, h, sizeof h));
    assert_string_equal(h, "untouched");
    char small[10];
    assert_true(bf_cluster_analysis_hint(unknown, small, sizeof small));
    assert_int_equal(strlen(small), 9);
    assert_string_equal(bf_cluster_type_module("match_only_text"), "mapper-extras");
    assert_string_equal(bf_cluster_type_module("scaled_float"), "mapper-extras");
    assert_null(bf_cluster_type_module("text"));
}

/* a search's failure on a cluster without painless, as Elasticsearch 8.17.0 answered it */
static void test_script_hint(void **state)
{
    (void)state;
    char h[400];
    const char *body = "{\"error\":{\"root_cause\":[{\"type\":\"query_shard_exception\",\"reason\":"
                       "\"failed to create query: script_lang not supported [painless]\"}]}}";
    assert_true(bf_cluster_script_hint(body, h, sizeof h));
    assert_non_null(
        strstr(h, "; the cluster has no painless scripting (the module lang-painless;"));
    assert_non_null(strstr(h, "BF_DEVCLUSTER_SCRIPTING=1"));
    assert_true(bf_cluster_script_hint("script_lang not supported [expression]", h, sizeof h));
    assert_non_null(strstr(h, "lang-expression"));
    /* anything else: an empty hint, so the message is unchanged */
    assert_false(bf_cluster_script_hint("unknown query [no_such_query]", h, sizeof h));
    assert_string_equal(h, "");
    assert_false(bf_cluster_script_hint(NULL, h, sizeof h));
    assert_string_equal(h, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_may_replace_only_named),
        cmocka_unit_test(test_production_like),
        cmocka_unit_test(test_root_check),
        cmocka_unit_test(test_analysis_hint),
        cmocka_unit_test(test_script_hint),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
