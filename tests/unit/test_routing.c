/* SPDX-License-Identifier: MIT */
/* test_routing.c — murmur3 and document -> shard against published known-answer vectors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "bf_error.h"
#include "bf_routing.h"

#include <stdio.h>
#include <string.h>

/* Elasticsearch Murmur3HashFunctionTests and Guava's murmur3_32 test strings (UTF-16LE),
 * as listed in docs/internals/devcluster.md §7.3. */
static const struct {
    const char *s;
    uint32_t hash;
} kat[] = {
    {"hell", 0x5a0cb7c3u},
    {"hello", 0xd7c31989u},
    {"hello w", 0x22ab2984u},
    {"hello wo", 0xdf0ca123u},
    {"hello wor", 0xe7744d61u},
    {"The quick brown fox jumps over the lazy dog", 0xe07db09cu},
    {"The quick brown fox jumps over the lazy cog", 0x4e63d2adu},
    {"h", 0x3fb8ba02u},
    {"he", 0xce30a49fu},
    {"hel", 0x0c7cee6bu},
    {"hello world", 0x64b256a4u},
    {"k", 0x288418e4u},
    {"http://www.google.com/", 0x73564d8cu},
    {"ABCDefGHI\xde\x99", 0xfefa3e76u},                           /* ABCDefGHI\u0799 */
    {"\xe6\xaf\x8e\xe6\x9c\x88\xef\xbc\x91\xe6\x97\xa5,\xe6\xaf\x8e\xe9\x80\xb1\xe6\x9c\x88"
     "\xe6\x9b\x9c\xe6\x97\xa5",
     0x6a7be132u},                                                /* 毎月１日,毎週月曜日 */
    {"\xf0\x9f\x98\x80", 0x56065e39u},                           /* U+1F600, a surrogate pair */
    {"\xc3\xa9t\xc3\xa9", 0xb99535bdu},                           /* été */
};

static void test_hash_vectors(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof kat / sizeof kat[0]; i++) {
        int32_t h = 0;
        assert_int_equal(bf_routing_hash_utf8(kat[i].s, strlen(kat[i].s), &h, NULL), 0);
        if ((uint32_t)h != kat[i].hash)
            fail_msg("'%s': 0x%08x, want 0x%08x", kat[i].s, (uint32_t)h, kat[i].hash);
    }
}

/* Appleby's reference over raw bytes (SMHasher's well-known values). */
static void test_murmur_bytes(void **state)
{
    (void)state;
    assert_int_equal(bf_routing_murmur3_32("", 0, 0), 0u);
    assert_int_equal(bf_routing_murmur3_32("", 0, 1), 0x514e28b7u);
    assert_int_equal(bf_routing_murmur3_32("\xff\xff\xff\xff", 4, 0), 0x76293b50u);
    assert_int_equal(bf_routing_murmur3_32("\x21\x43\x65\x87", 4, 0), 0xf55b516bu);
    assert_int_equal(bf_routing_murmur3_32("\x21\x43\x65", 3, 0), 0x7e4a8634u);
    assert_int_equal(bf_routing_murmur3_32("\x21\x43", 2, 0), 0xa0f7b07au);
    assert_int_equal(bf_routing_murmur3_32("\x21", 1, 0), 0x72661cf4u);
}

/* The JSON form (escaped, as in an action line) hashes like the decoded string; a surrogate
 * pair written as two \u escapes is the character. */
static void test_json_form(void **state)
{
    (void)state;
    static const struct {
        const char *json, *utf8;
    } eq[] = {
        {"\\ud83d\\ude00", "\xf0\x9f\x98\x80"},
        {"\\u00e9t\\u00E9", "\xc3\xa9t\xc3\xa9"},
        {"a\\\"b\\\\c\\/d", "a\"b\\c/d"},
        {"tab\\there\\nnl\\r\\b\\f", "tab\there\nnl\r\b\f"},
        {"plain-id-42", "plain-id-42"},
        {"\xe6\xaf\x8e\\u6708", "\xe6\xaf\x8e\xe6\x9c\x88"},
    };
    for (size_t i = 0; i < sizeof eq / sizeof eq[0]; i++) {
        int32_t a, b;
        assert_int_equal(bf_routing_hash_json(eq[i].json, strlen(eq[i].json), &a, NULL), 0);
        assert_int_equal(bf_routing_hash_utf8(eq[i].utf8, strlen(eq[i].utf8), &b, NULL), 0);
        if (a != b)
            fail_msg("json '%s': 0x%08x, utf8 0x%08x", eq[i].json, (uint32_t)a, (uint32_t)b);
    }
    bf_diag_t d = {0};
    int32_t h;
    assert_int_equal(bf_routing_hash_json("ab\\", 3, &h, &d), BF_E_INVAL);
    assert_non_null(strstr(d.msg, "backslash"));
    assert_int_equal(bf_routing_hash_json("\\u12g4", 6, &h, NULL), BF_E_INVAL);
    assert_int_equal(bf_routing_hash_json("\\u12", 4, &h, NULL), BF_E_INVAL);
    assert_int_equal(bf_routing_hash_json("\\x", 2, &h, NULL), BF_E_INVAL);
}

static void test_invalid_utf8(void **state)
{
    (void)state;
    static const char *bad[] = {"\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "ab\x80", "\xe6\xaf",
                                "\xff"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        bf_diag_t d = {0};
        int32_t h;
        assert_int_equal(bf_routing_hash_utf8(bad[i], strlen(bad[i]), &h, &d), BF_E_INVAL);
        assert_non_null(strstr(d.msg, "invalid UTF-8 at byte"));
    }
}

static void test_default_routing_shards(void **state)
{
    (void)state;
    /* the table of docs/internals/devcluster.md §7.1 */
    static const uint32_t tab[][2] = {{1, 1024},  {2, 1024}, {3, 768},  {4, 1024},  {5, 640},
                                      {6, 768},   {7, 896},  {8, 1024}, {9, 576},   {10, 640},
                                      {12, 768},  {16, 1024}, {20, 640}, {24, 768}, {30, 960},
                                      {32, 1024}, {100, 800}, {513, 1026}, {1000, 2000}};
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
        assert_int_equal(bf_routing_default_routing_shards(tab[i][0]), tab[i][1]);
    assert_int_equal(bf_routing_default_routing_shards(0), 0);
}

static uint32_t shard(const bf_routing_index_t *ix, const char *id, const char *routing)
{
    uint32_t s = 9999;
    bf_diag_t d = {0};
    int rc = bf_routing_shard_utf8(ix, id, strlen(id), routing, routing ? strlen(routing) : 0, &s,
                                   &d);
    if (rc != 0)
        fail_msg("%s: %s", id, d.msg);
    return s;
}

/* Shards INFINI recorded from a real Elasticsearch 7 cluster (docs/internals/devcluster.md §7.3).
 */
static void test_shard_vectors(void **state)
{
    (void)state;
    bf_routing_index_t ix;
    const char *ids[] = {"1", "2", "3", "4", "5", "6", "7", "8"};
    static const uint32_t s5[] = {4, 3, 0, 1, 0, 3, 2, 2};
    static const uint32_t s3[] = {2, 1, 1, 1, 0, 2, 0, 2};
    static const uint32_t s3r30[] = {2, 2, 1, 2, 2, 2, 1, 1};
    assert_int_equal(bf_routing_index_init(&ix, 5, 0, 0, NULL), 0);
    assert_int_equal(ix.routing_shards, 640);
    for (size_t i = 0; i < 8; i++)
        assert_int_equal(shard(&ix, ids[i], NULL), s5[i]);
    assert_int_equal(shard(&ix, "_QmncXYBC53QmW9KV0Y6", NULL), 1);
    assert_int_equal(shard(&ix, "UwmncXYBC53QmW9KgUef", NULL), 1);
    assert_int_equal(shard(&ix, "BwmncXYBC53QmW9KZUdr", NULL), 2);
    assert_int_equal(shard(&ix, "CwmncXYBC53QmW9KbkfU", NULL), 3);
    assert_int_equal(shard(&ix, "TAmncXYBC53QmW9KeEfF", NULL), 4);
    assert_int_equal(bf_routing_index_init(&ix, 3, 0, 0, NULL), 0);
    assert_int_equal(ix.factor, 256);
    for (size_t i = 0; i < 8; i++)
        assert_int_equal(shard(&ix, ids[i], NULL), s3[i]);
    assert_int_equal(bf_routing_index_init(&ix, 3, 30, 1, NULL), 0);
    for (size_t i = 0; i < 8; i++)
        assert_int_equal(shard(&ix, ids[i], NULL), s3r30[i]);
    /* routing wins over the id: "1" as routing gives id "1"'s shard, whatever the id */
    assert_int_equal(bf_routing_index_init(&ix, 5, 0, 0, NULL), 0);
    assert_int_equal(shard(&ix, "anything", "1"), 4);
    assert_int_equal(shard(&ix, "else", "2"), 3);
}

/* Partitioned: the offset is floorMod(hash(_id), p), added with int wrap-around. */
static void test_partitioned(void **state)
{
    (void)state;
    bf_routing_index_t ix;
    assert_int_equal(bf_routing_index_init(&ix, 6, 0, 3, NULL), 0);
    int32_t hr, hi;
    assert_int_equal(bf_routing_hash_utf8("user-7", 6, &hr, NULL), 0);
    assert_int_equal(bf_routing_hash_utf8("doc-1", 5, &hi, NULL), 0);
    int64_t off = ((int64_t)hi % 3 + 3) % 3;
    int64_t h = (int64_t)hr + off;
    if (h > INT32_MAX)
        h -= 4294967296LL;
    int64_t want = ((h % 768) + 768) % 768 / 128;
    assert_int_equal(shard(&ix, "doc-1", "user-7"), (uint32_t)want);
    /* the wrap: a routing hash of INT32_MAX plus offset 2 wraps to INT32_MIN + 1 */
    bf_routing_index_t p;
    assert_int_equal(bf_routing_index_init(&p, 3, 0, 2, NULL), 0);
    /* find an id whose offset is 1 */
    int32_t idh = 0;
    char id[16];
    for (int k = 0;; k++) {
        snprintf(id, sizeof id, "k%d", k);
        assert_int_equal(bf_routing_hash_utf8(id, strlen(id), &idh, NULL), 0);
        if (((int64_t)idh % 2 + 2) % 2 == 1)
            break;
    }
    /* INT32_MAX + 1 = INT32_MIN = -2147483648; floorMod(-2^31, 768) = 256 -> shard 1 */
    assert_int_equal(bf_routing_shard_of_hash(&p, INT32_MAX, idh), 1);
    /* without the wrap (INT32_MAX + 1 as int64) floorMod would be 512 -> shard 2 */
    bf_diag_t d = {0};
    uint32_t s;
    assert_int_equal(bf_routing_shard_utf8(&p, "x", 1, NULL, 0, &s, &d), BF_E_INVAL);
    assert_non_null(strstr(d.msg, "needs a routing"));
}

static void test_index_init_errors(void **state)
{
    (void)state;
    bf_routing_index_t ix;
    bf_diag_t d = {0};
    assert_int_equal(bf_routing_index_init(&ix, 0, 0, 0, &d), BF_E_RANGE);
    memset(&d, 0, sizeof d);
    assert_int_equal(bf_routing_index_init(&ix, 3, 10, 0, &d), BF_E_RANGE);
    assert_non_null(strstr(d.msg, "multiple of the number of shards (3)"));
    memset(&d, 0, sizeof d);
    assert_int_equal(bf_routing_index_init(&ix, 2, 2, 2, &d), BF_E_RANGE);
    assert_int_equal(bf_routing_index_init(&ix, 3, 3, 0, &d), 0);
    assert_int_equal(ix.factor, 1);
}

/* Elasticsearch 9.4+ indices (index version 9064000+): shard = floorMod(hash + offset, shards),
 * routing_num_shards ignored. Expected values: floorMod of the §7.3 hashes, computed by hand from
 * the documented algorithm (docs/internals/devcluster.md §7.6). */
static void test_es_modulo(void **state)
{
    (void)state;
    bf_routing_index_t ix;
    const char *ids[] = {"1", "2", "3", "4", "5", "6", "7", "8"};
    static const uint32_t s5[] = {3, 2, 4, 2, 1, 2, 3, 1};
    static const uint32_t s3[] = {2, 0, 2, 0, 0, 0, 0, 1};
    static const uint32_t s7[] = {2, 5, 1, 2, 0, 0, 6, 0};
    assert_int_equal(bf_routing_index_init(&ix, 5, 0, 0, NULL), 0);
    assert_int_equal(ix.modulo, 0);
    ix.modulo = 1;
    for (size_t i = 0; i < 8; i++)
        assert_int_equal(shard(&ix, ids[i], NULL), s5[i]);
    assert_int_equal(bf_routing_index_init(&ix, 3, 30, 1, NULL), 0); /* R=30 is ignored */
    ix.modulo = 1;
    for (size_t i = 0; i < 8; i++)
        assert_int_equal(shard(&ix, ids[i], NULL), s3[i]);
    assert_int_equal(bf_routing_index_init(&ix, 7, 0, 0, NULL), 0);
    ix.modulo = 1;
    for (size_t i = 0; i < 8; i++)
        assert_int_equal(shard(&ix, ids[i], NULL), s7[i]);
    /* non-ASCII: "été" hashes to -1181403715, U+1F600 (a surrogate pair) to 1443257913 */
    assert_int_equal(shard(&ix, "\xc3\xa9t\xc3\xa9", NULL), 5);
    assert_int_equal(shard(&ix, "\xf0\x9f\x98\x80", NULL), 6);
    assert_int_equal(shard(&ix, "anything", "\xf0\x9f\x98\x80"), 6); /* routing wins */
    /* the legacy function disagrees for the same 7-shard index (R=896, F=128):
     * floorMod(-1181403715, 896) = 61, / 128 = 0 */
    ix.modulo = 0;
    assert_int_equal(shard(&ix, "\xc3\xa9t\xc3\xa9", NULL), 0);
    /* partitioned, 6 shards, p 3: hash("user-7") + floorMod(hash("doc-1"), 3) = -1221176035 + 0,
     * floorMod(-1221176035, 6) = 5 (the legacy function gives 0) */
    assert_int_equal(bf_routing_index_init(&ix, 6, 0, 3, NULL), 0);
    assert_int_equal(shard(&ix, "doc-1", "user-7"), 0);
    ix.modulo = 1;
    assert_int_equal(shard(&ix, "doc-1", "user-7"), 5);
    /* int wrap then floorMod by shards: INT32_MAX + 1 = INT32_MIN; floorMod(-2^31, 3) = 1 */
    assert_int_equal(bf_routing_index_init(&ix, 3, 0, 0, NULL), 0);
    ix.modulo = 1;
    assert_int_equal(bf_routing_shard_of_hash(&ix, INT32_MIN, 0), 1);
    assert_int_equal(bf_routing_shard_of_hash(&ix, -1, 0), 2);
}

/* Which indices route by the modulo function: Elasticsearch index versions from 9064000 (9.4.0's
 * is 9094000, 9.3.8's 9060001, 8.17.0's 8521000), never OpenSearch's (bit 27 set). */
static void test_es_modulo_gate(void **state)
{
    (void)state;
    assert_int_equal(bf_routing_es_modulo_created(9064000), 1);
    assert_int_equal(bf_routing_es_modulo_created(9094000), 1);
    assert_int_equal(bf_routing_es_modulo_created(9111000), 1);
    assert_int_equal(bf_routing_es_modulo_created(9063999), 0);
    assert_int_equal(bf_routing_es_modulo_created(9060001), 0);
    assert_int_equal(bf_routing_es_modulo_created(9039001), 0);
    assert_int_equal(bf_routing_es_modulo_created(8521000), 0);
    assert_int_equal(bf_routing_es_modulo_created(7172999), 0);
    assert_int_equal(bf_routing_es_modulo_created(0), 0);
    assert_int_equal(bf_routing_es_modulo_created(136408427), 0); /* OpenSearch 2.19.6 */
    assert_int_equal(bf_routing_es_modulo_created(135249827), 0); /* OpenSearch 1.3.20 */
    assert_int_equal(bf_routing_es_modulo_release("9.4.0"), 1);
    assert_int_equal(bf_routing_es_modulo_release("9.5.3"), 1);
    assert_int_equal(bf_routing_es_modulo_release("9.10.0"), 1);
    assert_int_equal(bf_routing_es_modulo_release("10.0.0"), 1);
    assert_int_equal(bf_routing_es_modulo_release("9.4.0-SNAPSHOT"), 1);
    assert_int_equal(bf_routing_es_modulo_release("9.3.8"), 0);
    assert_int_equal(bf_routing_es_modulo_release("9.2.0"), 0);
    assert_int_equal(bf_routing_es_modulo_release("8.19.0"), 0);
    assert_int_equal(bf_routing_es_modulo_release("9"), -1);
    assert_int_equal(bf_routing_es_modulo_release("x.4"), -1);
    assert_int_equal(bf_routing_es_modulo_release(NULL), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hash_vectors),
        cmocka_unit_test(test_murmur_bytes),
        cmocka_unit_test(test_json_form),
        cmocka_unit_test(test_invalid_utf8),
        cmocka_unit_test(test_default_routing_shards),
        cmocka_unit_test(test_shard_vectors),
        cmocka_unit_test(test_partitioned),
        cmocka_unit_test(test_index_init_errors),
        cmocka_unit_test(test_es_modulo),
        cmocka_unit_test(test_es_modulo_gate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
