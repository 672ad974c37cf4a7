/* SPDX-License-Identifier: MIT */
/* test_qstats.c — a named query's counters: what an answer says (a table of bodies: _search,
 * _count, _msearch, errors, not JSON), merging by addition (error types by name, the 9th type
 * becomes "other"), and the wire form (a round trip keeps every counter and histogram count). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "bf_error.h"
#include "bf_qstats.h"

#include <stdio.h>
#include <string.h>

static void test_parse_answer_table(void **state)
{
    (void)state;
    static const struct {
        const char *body;
        int json_ok, timed_out, has_took;
        uint64_t shard_failures, hits, took_ms;
        const char *type, *reason;
    } cases[] = {
        /* OpenSearch 2.x _search: hits.total is an object */
        {"{\"took\":7,\"timed_out\":false,\"_shards\":{\"total\":2,\"successful\":2,\"failed\":0},"
         "\"hits\":{\"total\":{\"value\":42,\"relation\":\"eq\"},\"hits\":[]}}",
         1, 0, 1, 0, 42, 7, "", ""},
        /* 6.x: hits.total a number; a timed-out answer with a failed shard */
        {"{\"took\":30,\"timed_out\":true,\"_shards\":{\"failed\":1},\"hits\":{\"total\":5}}", 1, 1,
         1, 1, 5, 30, "", ""},
        /* _count */
        {"{\"count\":2000,\"_shards\":{\"failed\":0}}", 1, 0, 0, 0, 2000, 0, "", ""},
        /* _msearch: summed; an errored response adds a shard failure */
        {"{\"took\":9,\"responses\":[{\"took\":4,\"hits\":{\"total\":{\"value\":3}}},"
         "{\"error\":{\"type\":\"x\"},\"status\":400},{\"took\":5,\"timed_out\":true,"
         "\"hits\":{\"total\":{\"value\":4}}}]}",
         1, 1, 1, 1, 7, 9, "", ""},
        /* an error answer: the root cause names the query's mistake */
        {"{\"error\":{\"root_cause\":[{\"type\":\"parsing_exception\",\"reason\":\"unknown query "
         "[x]\"}],\"type\":\"search_phase_execution_exception\",\"reason\":\"all shards "
         "failed\"},\"status\":400}",
         1, 0, 0, 0, 0, 0, "parsing_exception", "unknown query [x]"},
        {"{\"error\":{\"type\":\"index_not_found_exception\",\"reason\":\"no such index [a]\"}}", 1,
         0, 0, 0, 0, 0, "index_not_found_exception", "no such index [a]"},
        {"{\"error\":\"simple\"}", 1, 0, 0, 0, 0, 0, "", "simple"},
        /* track_total_hits: false: the hits returned */
        {"{\"took\":3,\"hits\":{\"hits\":[{\"_id\":\"a\"},{\"_id\":\"b\"}]}}", 1, 0, 1, 0, 2, 3, "",
         ""},
        {"<html>502 Bad Gateway</html>", 0, 0, 0, 0, 0, 0, "", ""},
        {"", 0, 0, 0, 0, 0, 0, "", ""},
        {"[1,2]", 0, 0, 0, 0, 0, 0, "", ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        bf_qanswer_t a;
        bf_qstats_parse_answer(cases[i].body, strlen(cases[i].body), &a);
        if (a.json_ok != cases[i].json_ok || a.timed_out != cases[i].timed_out ||
            a.has_took != cases[i].has_took || a.shard_failures != cases[i].shard_failures ||
            a.hits != cases[i].hits || a.took_ms != cases[i].took_ms ||
            strcmp(a.error_type, cases[i].type) != 0 || strcmp(a.error_reason, cases[i].reason) != 0)
            fail_msg("case %zu: json %d to %d took %d/%llu shards %llu hits %llu type '%s' "
                     "reason '%s'", i, a.json_ok, a.timed_out, a.has_took,
                     (unsigned long long)a.took_ms, (unsigned long long)a.shard_failures,
                     (unsigned long long)a.hits, a.error_type, a.error_reason);
    }
}

/* _msearch answers are counted search by search: a table of answers (as OpenSearch 2.19 gives
 * them: an item failed in its reduce has an empty root_cause) with what each says. */
static void test_parse_msearch_items(void **state)
{
    (void)state;
    static const char ok_item[] = "{\"took\":4,\"timed_out\":false,\"_shards\":{\"failed\":0},"
                                  "\"hits\":{\"total\":{\"value\":3}},\"status\":200}";
    static const char buckets[] =
        "{\"error\":{\"root_cause\":[],\"type\":\"search_phase_execution_exception\",\"reason\":"
        "\"\",\"caused_by\":{\"type\":\"too_many_buckets_exception\",\"reason\":\"Trying to "
        "create too many buckets\"}},\"status\":503}";
    static const char missing[] =
        "{\"error\":{\"root_cause\":[{\"type\":\"index_not_found_exception\",\"reason\":"
        "\"no such index [x]\"}],\"type\":\"index_not_found_exception\"},\"status\":404}";
    char body[2048];
    snprintf(body, sizeof body, "{\"took\":9,\"responses\":[%s,%s,%s,%s]}", ok_item, buckets,
             ok_item, missing);
    bf_qitems_t it;
    bf_qstats_parse_msearch(body, strlen(body), 4, &it);
    assert_int_equal(it.ok, 2);
    assert_int_equal(it.errors, 2);
    assert_int_equal(it.hits, 6);
    assert_int_equal(it.took_ms, 8); /* the items' took, not the request's */
    assert_int_equal(it.took_count, 2);
    assert_string_equal(it.err_type[0], "too_many_buckets_exception"); /* 503: not fatal */
    assert_string_equal(it.err_type[1], "index_not_found_exception");
    assert_int_equal(it.bad_item, 3); /* the 404: the search itself is wrong */
    assert_int_equal(it.bad_status, 404);
    assert_string_equal(it.bad_reason, "no such index [x]");
    /* fewer items than searches: the missing ones failed; more: ignored */
    bf_qstats_parse_msearch(body, strlen(body), 6, &it);
    assert_int_equal(it.ok + it.errors, 6);
    assert_string_equal(it.err_type[2], "bad_response");
    assert_int_equal(it.err_count[2], 2);
    bf_qstats_parse_msearch(body, strlen(body), 1, &it);
    assert_int_equal(it.ok, 1);
    assert_int_equal(it.errors, 0);
    assert_int_equal(it.bad_item, -1);
    /* not JSON, or no responses: every search failed */
    bf_qstats_parse_msearch("<html>", 6, 3, &it);
    assert_int_equal(it.errors, 3);
    assert_int_equal(it.ok, 0);
    bf_qstats_parse_msearch("{\"took\":1}", strlen("{\"took\":1}"), 2, &it);
    assert_int_equal(it.errors, 2);
    /* an item with a non-2xx status and no error object */
    static const char s429[] = "{\"responses\":[{\"status\":429}]}";
    bf_qstats_parse_msearch(s429, strlen(s429), 1, &it);
    assert_int_equal(it.errors, 1);
    assert_string_equal(it.err_type[0], "http_429");
    /* into a query's counters: ops_ok and errors by type */
    bf_qstats_t q;
    bf_qstats_init(&q);
    bf_qstats_parse_msearch(body, strlen(body), 4, &it);
    bf_qstats_add_items(&q, &it);
    bf_qstats_add_items(&q, &it);
    assert_int_equal(q.ops_ok, 4);
    assert_int_equal(q.ops_error, 4);
    assert_int_equal(q.hits, 12);
    assert_int_equal(q.err_count[0], 2);
    bf_qstats_cleanup(&q);
}

static void test_error_types_and_other(void **state)
{
    (void)state;
    bf_qstats_t q;
    bf_qstats_init(&q);
    char t[32];
    for (unsigned i = 0; i < BF_QERR_TYPES + 3; i++) {
        snprintf(t, sizeof t, "type%u", i);
        bf_qstats_error(&q, t, 1);
    }
    bf_qstats_error(&q, "type0", 4);
    assert_int_equal(q.ops_error, BF_QERR_TYPES + 3 + 4);
    assert_string_equal(q.err_type[0], "type0");
    assert_int_equal(q.err_count[0], 5);
    assert_string_equal(q.err_type[BF_QERR_TYPES - 1], "other");
    uint64_t sum = 0;
    for (unsigned i = 0; i < BF_QERR_TYPES; i++)
        sum += q.err_count[i];
    assert_int_equal(sum, q.ops_error); /* nothing lost in the overflow */
    bf_qstats_cleanup(&q);
    bf_qstats_cleanup(&q); /* idempotent */
}

static void test_add_and_wire_round_trip(void **state)
{
    (void)state;
    bf_qstats_t a, b, m;
    bf_qstats_init(&a);
    bf_qstats_init(&b);
    bf_qstats_init(&m);
    a.started = 4; /* e.g. 4 _msearch requests of 2 or 3 searches */
    a.ops_sent = 10;
    a.ops_ok = 8;
    a.hits = 80;
    a.took_ms = 40;
    a.took_count = 8;
    a.timed_out = 1;
    a.shard_failures = 2;
    bf_qstats_error(&a, "timeout", 2);
    for (int i = 0; i < 10; i++) {
        bf_hist_record(a.svc, 1000 + 100 * (uint64_t)i);
        bf_hist_record(a.lat, 2000 + 100 * (uint64_t)i);
    }
    b.started = 5;
    b.ops_sent = 5;
    b.ops_ok = 5;
    bf_qstats_error(&b, "http_503", 1);
    bf_qstats_error(&b, "timeout", 1);
    bf_hist_record(b.svc, 500);
    bf_qstats_add(&m, &a);
    bf_qstats_add(&m, &b);
    assert_int_equal(m.ops_sent, 15);
    assert_int_equal(m.ops_error, 4);
    assert_int_equal(bf_hist_count(m.svc), 11);
    /* through the wire and back into an empty one */
    Bf__QueryStats pb;
    bf_qstats_pack(&pb, 3, &m);
    assert_int_equal(pb.query, 3);
    size_t n = bf__query_stats__get_packed_size(&pb);
    uint8_t buf[4096];
    assert_true(n < sizeof buf);
    bf__query_stats__pack(&pb, buf);
    bf_qstats_pack_cleanup(&pb);
    Bf__QueryStats *u = bf__query_stats__unpack(NULL, n, buf);
    assert_non_null(u);
    bf_qstats_t r;
    bf_qstats_init(&r);
    assert_int_equal(bf_qstats_unpack_add(u, &r), BF_OK);
    bf__query_stats__free_unpacked(u, NULL);
    assert_int_equal(r.started, 9);
    assert_int_equal(r.ops_sent, 15);
    assert_int_equal(r.ops_ok, 13);
    assert_int_equal(r.ops_error, 4);
    assert_int_equal(r.hits, 80);
    assert_int_equal(r.took_ms, 40);
    assert_int_equal(r.took_count, 8);
    assert_int_equal(r.timed_out, 1);
    assert_int_equal(r.shard_failures, 2);
    assert_int_equal(bf_hist_count(r.svc), 11);
    assert_int_equal(bf_hist_count(r.lat), 10);
    assert_int_equal(bf_hist_percentile(r.svc, 50), bf_hist_percentile(m.svc, 50));
    uint64_t timeouts = 0;
    for (unsigned i = 0; i < BF_QERR_TYPES; i++)
        if (strcmp(r.err_type[i], "timeout") == 0)
            timeouts = r.err_count[i];
    assert_int_equal(timeouts, 3);
    bf_qstats_reset(&r);
    assert_true(bf_qstats_empty(&r));
    bf_qstats_cleanup(&a);
    bf_qstats_cleanup(&b);
    bf_qstats_cleanup(&m);
    bf_qstats_cleanup(&r);
}

/* a histogram index out of range is refused whole: neither histogram, counters kept */
static void test_unpack_bad_hist(void **state)
{
    (void)state;
    Bf__QueryStats pb = BF__QUERY_STATS__INIT;
    Bf__Hist h = BF__HIST__INIT, l = BF__HIST__INIT;
    uint32_t bad_index[] = {0xFFFFFFu};
    uint64_t cnt[] = {1};
    h.index = bad_index;
    h.n_index = 1;
    h.count = cnt;
    h.n_count = 1;
    uint32_t ok_index[] = {5};
    l.index = ok_index;
    l.n_index = 1;
    l.count = cnt;
    l.n_count = 1;
    pb.service_time = &l;
    pb.latency = &h;
    pb.ops_ok = 1;
    bf_qstats_t q;
    bf_qstats_init(&q);
    assert_int_equal(bf_qstats_unpack_add(&pb, &q), BF_E_RANGE);
    assert_int_equal(q.ops_ok, 1);
    assert_int_equal(bf_hist_count(q.svc), 0);
    assert_int_equal(bf_hist_count(q.lat), 0);
    bf_qstats_cleanup(&q);
}

/* the Profile API answer on its slowest shard; rest = service time - that shard's phases */
static void test_profile_parse_and_keep(void **state)
{
    (void)state;
    const char *body =
        "{\"took\":40,\"hits\":{\"hits\":[]},\"profile\":{\"shards\":["
        "{\"id\":\"[n1][idx][0]\",\"searches\":[{\"query\":[{\"time_in_nanos\":2000000,"
        "\"children\":[{\"time_in_nanos\":1500000}]}],\"rewrite_time\":100000,"
        "\"collector\":[{\"time_in_nanos\":3000000}]}]},"
        "{\"id\":\"[n1][idx][1]\",\"searches\":[{\"query\":[{\"time_in_nanos\":8000000}],"
        "\"rewrite_time\":0,\"collector\":[{\"time_in_nanos\":1000000}]}],"
        "\"fetch\":{\"time_in_nanos\":500000}}]}}";
    bf_qprofile_t p;
    assert_int_equal(bf_qstats_profile_parse(body, strlen(body), 50000, &p), BF_OK);
    assert_true(p.set);
    assert_int_equal(p.shards, 2);
    assert_string_equal(p.shard, "[n1][idx][1]"); /* 9.5 ms > 5.1 ms */
    assert_true(p.query_ms == 8.0 && p.collectors_ms == 1.0 && p.fetch_ms == 0.5);
    assert_true(p.rewrite_ms == 0);
    assert_true(p.service_ms == 50.0);
    assert_true(p.rest_ms == 40.5); /* 50 - 9.5 */
    assert_non_null(p.answer);
    assert_int_equal(p.answer_len, strlen(body));
    bf_qprofile_t none;
    assert_int_equal(bf_qstats_profile_parse("{\"took\":1}", 11, 10, &none), BF_E_PARSE);
    assert_false(none.set);
    /* the slower one is kept, through the wire too */
    bf_qstats_t a, r;
    bf_qstats_init(&a);
    bf_qstats_init(&r);
    bf_qprofile_keep_slower(&a.prof, &p);
    bf_qprofile_t faster = p;
    faster.service_ms = 10;
    faster.answer = NULL;
    bf_qprofile_keep_slower(&a.prof, &faster);
    assert_true(a.prof.service_ms == 50.0);
    Bf__QueryStats pb;
    bf_qstats_pack(&pb, 0, &a);
    assert_int_equal(bf_qstats_unpack_add(&pb, &r), BF_OK);
    bf_qstats_pack_cleanup(&pb);
    assert_true(r.prof.set && r.prof.rest_ms == 40.5);
    assert_string_equal(r.prof.answer, body);
    bf_qprofile_clear(&p);
    bf_qstats_cleanup(&a);
    bf_qstats_cleanup(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_answer_table),
        cmocka_unit_test(test_parse_msearch_items),
        cmocka_unit_test(test_error_types_and_other),
        cmocka_unit_test(test_add_and_wire_round_trip),
        cmocka_unit_test(test_unpack_bad_hist),
        cmocka_unit_test(test_profile_parse_and_keep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
