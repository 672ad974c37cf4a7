/* SPDX-License-Identifier: MIT */
/* test_reshuffle.c — routing table parsing and splitting bulk bodies by node and by shard. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "bf_reshuffle.h"
#include "bf_routetable.h"
#include "bf_routing.h"

#include <stdio.h>
#include <string.h>

/* Shapes of OpenSearch 2.19's answers (3 nodes; index "a": 3 shards, shard 1 unassigned;
 * index "b": 2 shards with routing_num_shards 4, primary of 1 RELOCATING). */
static const char *nodes_json =
    "{\"nodes\":{\"N0\":{\"name\":\"node-0\",\"http\":{\"publish_address\":\"127.0.0.1:9200\"}},"
    "\"N1\":{\"name\":\"node-1\",\"http\":{\"publish_address\":\"host1/127.0.0.1:9201\"}},"
    "\"N2\":{\"name\":\"node-2\",\"http\":{\"publish_address\":\"127.0.0.1:9202\"}}}}";
static const char *state_json =
    "{\"version\":42,\"metadata\":{\"indices\":{"
    "\"a\":{\"routing_num_shards\":768,\"settings\":{\"index\":{\"number_of_shards\":\"3\"}},"
    "\"primary_terms\":{\"0\":1,\"1\":1,\"2\":3}},"
    "\"b\":{\"routing_num_shards\":4,\"settings\":{\"index\":{\"number_of_shards\":\"2\"}}}}},"
    "\"routing_table\":{\"indices\":{"
    "\"a\":{\"shards\":{\"0\":[{\"state\":\"STARTED\",\"primary\":true,\"node\":\"N1\"},"
    "{\"state\":\"STARTED\",\"primary\":false,\"node\":\"N0\"}],"
    "\"1\":[{\"state\":\"UNASSIGNED\",\"primary\":true,\"node\":null}],"
    "\"2\":[{\"state\":\"STARTED\",\"primary\":true,\"node\":\"N0\"}]}},"
    "\"b\":{\"shards\":{\"0\":[{\"state\":\"STARTED\",\"primary\":true,\"node\":\"N2\"}],"
    "\"1\":[{\"state\":\"RELOCATING\",\"primary\":true,\"node\":\"N2\",\"relocating_node\":\"N0\"}]}}}}}";

static bf_routetable_t *table(void)
{
    const char *names[] = {"a", "b"};
    bf_routetable_t *rt = NULL;
    bf_diag_t d = {0};
    int rc = bf_routetable_parse(state_json, nodes_json, "http", names, 2, &rt, &d);
    if (rc != 0)
        fail_msg("%s", d.msg);
    return rt;
}

static void test_parse(void **state)
{
    (void)state;
    bf_routetable_t *rt = table();
    assert_int_equal(rt->nnodes, 3);
    assert_int_equal(rt->version, 42);
    long n1 = -1;
    for (size_t i = 0; i < rt->nnodes; i++)
        if (strcmp(rt->nodes[i].id, "N1") == 0)
            n1 = (long)i;
    assert_true(n1 >= 0);
    assert_string_equal(rt->nodes[n1].url, "http://127.0.0.1:9201"); /* after the '/' */
    assert_string_equal(rt->nodes[n1].addr, "127.0.0.1:9201");
    assert_null(rt->nodes[n1].resolve);
    assert_int_equal(rt->indices[0].routing.shards, 3);
    assert_int_equal(rt->indices[0].routing.factor, 256);
    assert_int_equal(rt->indices[0].primary_node[0], (uint32_t)n1);
    assert_int_equal(rt->indices[0].primary_node[1], BF_RT_NO_NODE);
    assert_int_equal(rt->indices[0].primary_term[2], 3);
    assert_int_equal(rt->indices[1].routing.routing_shards, 4);
    assert_true(rt->indices[1].primary_node[1] != BF_RT_NO_NODE); /* relocating: still served */
    assert_int_equal(bf_routetable_find(rt, "b", 1), 1);
    assert_int_equal(bf_routetable_find(rt, "c", 1), -1);
    bf_routetable_destroy(&rt);
    assert_null(rt);

    /* https: a node published by name is addressed by its name (the certificate is checked
     * against it) and pinned to its address; one published without a name keeps the address */
    const char *names[] = {"a", "b"};
    bf_diag_t dt = {0};
    assert_int_equal(bf_routetable_parse(state_json, nodes_json, "https", names, 2, &rt, &dt), 0);
    for (size_t i = 0; i < rt->nnodes; i++) {
        if (strcmp(rt->nodes[i].id, "N1") == 0) {
            assert_string_equal(rt->nodes[i].url, "https://host1:9201");
            assert_string_equal(rt->nodes[i].resolve, "host1:9201:127.0.0.1");
            assert_string_equal(rt->nodes[i].addr, "127.0.0.1:9201");
        } else {
            assert_non_null(strstr(rt->nodes[i].url, "https://127.0.0.1:920"));
            assert_null(rt->nodes[i].resolve);
        }
    }
    bf_routetable_destroy(&rt);

    const char *missing[] = {"zz"};
    bf_diag_t d = {0};
    assert_int_equal(bf_routetable_parse(state_json, nodes_json, "http", missing, 1, &rt, &d),
                     BF_E_NOTFOUND);
    assert_non_null(strstr(d.msg, "index zz is not in the cluster state"));
    memset(&d, 0, sizeof d);
    assert_int_equal(bf_routetable_parse("[]", nodes_json, "http", missing, 1, &rt, &d),
                     BF_E_PARSE);
}

/* index.version.created picks the routing function: an Elasticsearch 9.5.3 index (9111000)
 * routes by number_of_shards, a 9.2.0 one (9039001) and an OpenSearch 2.19.6 one by
 * routing_num_shards, as does an index whose settings do not say. */
static void test_parse_created(void **state)
{
    (void)state;
    static const char *st =
        "{\"metadata\":{\"indices\":{"
        "\"e95\":{\"routing_num_shards\":896,\"settings\":{\"index\":{\"number_of_shards\":\"7\","
        "\"version\":{\"created\":\"9111000\"}}}},"
        "\"e92\":{\"routing_num_shards\":896,\"settings\":{\"index\":{\"number_of_shards\":\"7\","
        "\"version\":{\"created\":\"9039001\"}}}},"
        "\"os\":{\"routing_num_shards\":896,\"settings\":{\"index\":{\"number_of_shards\":\"7\","
        "\"version\":{\"created\":\"136408427\"}}}},"
        "\"none\":{\"routing_num_shards\":896,\"settings\":{\"index\":{\"number_of_shards\":\"7\"}}"
        "}"
        "}},\"routing_table\":{\"indices\":{\"e95\":{\"shards\":{}},\"e92\":{\"shards\":{}},"
        "\"os\":{\"shards\":{}},\"none\":{\"shards\":{}}}}}";
    const char *names[] = {"e95", "e92", "os", "none"};
    bf_routetable_t *rt = NULL;
    bf_diag_t d = {0};
    if (bf_routetable_parse(st, nodes_json, "http", names, 4, &rt, &d) != 0)
        fail_msg("%s", d.msg);
    assert_int_equal(rt->indices[0].routing.modulo, 1);
    assert_int_equal(rt->indices[1].routing.modulo, 0);
    assert_int_equal(rt->indices[2].routing.modulo, 0);
    assert_int_equal(rt->indices[3].routing.modulo, 0);
    /* "été" (hash -1181403715): floorMod by 7 is 5; floorMod by 896, / 128, is 0 */
    uint32_t s95 = 99, s92 = 99;
    assert_int_equal(
        bf_routing_shard_utf8(&rt->indices[0].routing, "\xc3\xa9t\xc3\xa9", 5, NULL, 0, &s95, NULL),
        0);
    assert_int_equal(
        bf_routing_shard_utf8(&rt->indices[1].routing, "\xc3\xa9t\xc3\xa9", 5, NULL, 0, &s92, NULL),
        0);
    assert_int_equal(s95, 5);
    assert_int_equal(s92, 0);
    bf_routetable_destroy(&rt);
}

/* Every document lands in the part of its primary's node; ids missing get one. */
static void test_split_node(void **state)
{
    (void)state;
    bf_routetable_t *rt = table();
    bf_reshuffle_t r;
    bf_reshuffle_init(&r, BF_ROUTE_NODE, 5, "t-");
    char body[8192];
    size_t len = 0;
    uint32_t ndocs = 0;
    for (int i = 0; i < 40; i++) {
        const char *ix = i % 2 ? "a" : "b";
        if (i % 5 == 0) /* no _id: the splitter adds one */
            len += (size_t)snprintf(body + len, sizeof body - len,
                                    "{\"index\":{\"_index\":\"%s\"}}\n{\"i\":%d}\n", ix, i);
        else
            len += (size_t)snprintf(body + len, sizeof body - len,
                                    "{\"create\":{\"_index\":\"%s\",\"_id\":\"d\\\"%d\","
                                    "\"routing\":\"r%d\"}}\n{\"i\":%d}\n", ix, i, i % 7, i);
        ndocs++;
    }
    bf_diag_t d = {0};
    assert_int_equal(bf_reshuffle_split(&r, rt, body, len, ndocs, &d), 0);
    uint32_t total = 0, gen = 0;
    for (uint32_t p = 0; p < r.nparts; p++) {
        bf_reshuffle_part_t *pt = &r.parts[p];
        total += pt->ndocs;
        /* re-derive each document's node from its (possibly added) id */
        const char *s = pt->body.data, *end = s + pt->body.len;
        uint32_t seen = 0;
        while (s < end) {
            const char *nl = memchr(s, '\n', (size_t)(end - s));
            const char *ixs = strstr(s, "\"_index\":\"") + 10;
            const char *ids = strstr(s, "\"_id\":\"");
            assert_true(ids != NULL && ids < nl);
            ids += 7;
            const char *ide = ids;
            while (*ide != '"')
                ide += *ide == '\\' ? 2 : 1;
            if (strncmp(ids, "t-", 2) == 0)
                gen++;
            const char *rs = strstr(s, "\"routing\":\"");
            const char *rv = rs && rs < nl ? rs + 11 : NULL;
            size_t rl = rv ? (size_t)(strchr(rv, '"') - rv) : 0;
            long ix = bf_routetable_find(rt, ixs, 1);
            uint32_t shard;
            assert_int_equal(bf_routing_shard_json(&rt->indices[ix].routing, ids,
                                                   (size_t)(ide - ids), rv, rl, &shard, NULL),
                             0);
            uint32_t node = rt->indices[ix].primary_node[shard];
            if (pt->node == BF_RESHUFFLE_FALLBACK)
                assert_int_equal(node, BF_RT_NO_NODE);
            else
                assert_int_equal(node, pt->node);
            s = memchr(nl + 1, '\n', (size_t)(end - nl - 1)) + 1;
            seen++;
        }
        assert_int_equal(seen, pt->ndocs);
    }
    assert_int_equal(total, ndocs);
    assert_int_equal(gen, 8);
    assert_true(r.unrouted > 0); /* index a, shard 1 is unassigned */
    assert_true(r.nparts <= 4);

    /* a table where a's shard 0 moved: the documents sent to it count as misrouted */
    bf_routetable_t *rt2 = table();
    uint32_t old = rt2->indices[0].primary_node[0];
    rt2->indices[0].primary_node[0] = (old + 1) % 3;
    uint64_t sent0 = r.sent_by_shard[0];
    assert_int_equal(bf_reshuffle_moved(&r, rt, rt2), sent0);
    assert_int_equal(bf_reshuffle_moved(&r, rt, rt2), 0); /* counts were reset */

    /* not the template's shape */
    memset(&d, 0, sizeof d);
    assert_int_equal(bf_reshuffle_split(&r, rt, "{\"index\":{}}\n{}\n", 15, 1, &d), BF_E_PARSE);
    bf_reshuffle_cleanup(&r);
    bf_routetable_destroy(&rt);
    bf_routetable_destroy(&rt2);
}

/* Shard mode: one part per shard; more targets than parts go unrouted instead of mixed. */
static void test_split_shard(void **state)
{
    (void)state;
    bf_routetable_t *rt = table();
    bf_reshuffle_t r;
    bf_reshuffle_init(&r, BF_ROUTE_SHARD, 2, "s-"); /* 1 routed part + fallback */
    char body[8192];
    size_t len = 0;
    for (int i = 0; i < 30; i++)
        len += (size_t)snprintf(body + len, sizeof body - len,
                                "{\"index\":{\"_index\":\"b\",\"_id\":\"%d\"}}\n{}\n", i);
    bf_diag_t d = {0};
    assert_int_equal(bf_reshuffle_split(&r, rt, body, len, 30, &d), 0);
    assert_int_equal(r.nparts, 2);
    assert_int_equal(r.parts[0].ndocs + r.parts[1].ndocs, 30);
    assert_int_equal(r.parts[1].node, BF_RESHUFFLE_FALLBACK);
    assert_int_equal(r.unrouted, r.parts[1].ndocs);
    /* each document's global shard: the part's shard (index a's 3 come first), or none */
    for (uint32_t k = 0; k < r.parts[0].ndocs; k++)
        assert_int_equal(r.parts[0].gshard[k], r.parts[0].key);
    assert_true(r.parts[0].key >= 3);
    for (uint32_t k = 0; k < r.parts[1].ndocs; k++)
        assert_int_equal(r.parts[1].gshard[k], BF_RESHUFFLE_NO_SHARD);
    bf_reshuffle_cleanup(&r);
    bf_routetable_destroy(&rt);
}

/* A bulk response's items' _primary_term, read in any split (as libcurl hands the body over):
 * OpenSearch 2.19's item shape, a failed item (no term), strings holding braces and quotes,
 * and the filtered shape (filter_path=errors,items.*.status,items.*._primary_term). */
static void test_termscan(void **state)
{
    (void)state;
    static const char body[] =
        "{\"took\":5,\"errors\":true,\"items\":["
        "{\"index\":{\"_index\":\"a\",\"_id\":\"x{\\\"}[\",\"_version\":1,\"result\":"
        "\"created\",\"_shards\":{\"total\":2,\"successful\":2,\"failed\":0},"
        "\"_seq_no\":7,\"_primary_term\":3,\"status\":201}},"
        "{\"create\":{\"_index\":\"a\",\"_id\":\"y\",\"status\":429,\"error\":{\"type\":"
        "\"x\",\"reason\":\"\\\"_primary_term\\\":9\"}}},"
        "{\"index\":{\"status\":200,\"_primary_term\":12}}]}";
    size_t len = strlen(body);
    for (size_t cut = 0; cut <= len; cut++) {
        uint64_t terms[4];
        bf_termscan_t ts;
        bf_termscan_init(&ts, terms, 3);
        bf_termscan_feed(&ts, body, cut);
        bf_termscan_feed(&ts, body + cut, len - cut);
        if (ts.items != 3 || terms[0] != 3 || terms[1] != 0 || terms[2] != 12)
            fail_msg("cut %zu: items %u terms %llu %llu %llu", cut, ts.items,
                     (unsigned long long)terms[0], (unsigned long long)terms[1],
                     (unsigned long long)terms[2]);
    }
    /* more items than documents: the extra ones are ignored */
    uint64_t one[1];
    bf_termscan_t ts;
    bf_termscan_init(&ts, one, 1);
    bf_termscan_feed(&ts, body, len);
    assert_int_equal(one[0], 3);
    /* a "_primary_term" key outside an item is not an item's */
    static const char other[] = "{\"_primary_term\":5,\"items\":[{\"index\":{}}]}";
    bf_termscan_init(&ts, one, 1);
    bf_termscan_feed(&ts, other, strlen(other));
    assert_int_equal(one[0], 0);
}

/* A stale table: an item's term above the table's for its shard (a promotion); equal or lower
 * terms, unrouted documents and shards the table has no term for are not. */
static void test_stale_item(void **state)
{
    (void)state;
    bf_routetable_t *rt = table(); /* a: terms 1, 1, 3; b: none (0) */
    const char *ix = NULL;
    uint32_t sh = 9;
    assert_int_equal(bf_routetable_gshard_term(rt, 2, &ix, &sh), 3);
    assert_string_equal(ix, "a");
    assert_int_equal(sh, 2);
    assert_int_equal(bf_routetable_gshard_term(rt, 4, &ix, &sh), 0); /* b shard 1 */
    assert_string_equal(ix, "b");
    assert_int_equal(bf_routetable_gshard_term(rt, 5, NULL, NULL), 0); /* out of range */
    static const struct {
        uint32_t g[3];
        uint64_t t[3];
        long want;
    } cases[] = {
        {{0, 2, 1}, {1, 3, 1}, -1},                     /* as in the table */
        {{0, 2, 1}, {1, 2, 1}, -1},                     /* lower: an old answer */
        {{0, 2, 0}, {1, 3, 2}, 2},                      /* shard a/0 promoted: term 2 > 1 */
        {{2, 2, 2}, {3, 4, 4}, 1},                      /* a/2: 4 > 3 */
        {{BF_RESHUFFLE_NO_SHARD, 3, 4}, {9, 9, 9}, -1}, /* unrouted; b has no terms */
        {{0, 0, 0}, {0, 0, 0}, -1},                     /* no terms in the answer */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        long k = bf_reshuffle_stale_item(rt, cases[i].g, cases[i].t, 3);
        if (k != cases[i].want)
            fail_msg("case %zu: %ld, want %ld", i, k, cases[i].want);
    }
    bf_routetable_destroy(&rt);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),      cmocka_unit_test(test_parse_created),
        cmocka_unit_test(test_split_node), cmocka_unit_test(test_split_shard),
        cmocka_unit_test(test_termscan),   cmocka_unit_test(test_stale_item),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
