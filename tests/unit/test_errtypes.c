/* SPDX-License-Identifier: MIT */
/* test_errtypes.c — failed documents by error type: the bounded table, merge and wire form. */
#include "bf_errtypes.h"
#include "bf_sample.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_add_first_reason_kept(void **state)
{
    (void)state;
    bf_errtypes_t t;
    bf_errtypes_reset(&t);
    bf_errtypes_add(&t, "mapper_parsing_exception", "", 2);
    bf_errtypes_add(&t, "mapper_parsing_exception", "failed to parse field [n]", 3);
    bf_errtypes_add(&t, "mapper_parsing_exception", "a later reason", 1);
    bf_errtypes_add(&t, "routing_missing_exception", NULL, 1);
    bf_errtypes_add(&t, NULL, "no type", 1);
    bf_errtypes_add(&t, "x", "nothing counted", 0);
    assert_int_equal(t.n, 3);
    assert_string_equal(t.e[0].type, "mapper_parsing_exception");
    assert_int_equal(t.e[0].docs, 6);
    assert_string_equal(t.e[0].reason, "failed to parse field [n]");
    assert_string_equal(t.e[1].reason, "");
    assert_string_equal(t.e[2].type, "error");
    assert_int_equal(bf_errtypes_total(&t), 8);
}

/* More distinct types than slots: the last ones share "other"; nothing is lost. */
static void test_bounded_other(void **state)
{
    (void)state;
    bf_errtypes_t t;
    bf_errtypes_reset(&t);
    char name[32];
    for (int i = 0; i < 20; i++) {
        snprintf(name, sizeof name, "type_%d", i);
        bf_errtypes_add(&t, name, name, (uint64_t)i + 1);
    }
    assert_int_equal(t.n, BF_ERRTYPES_MAX);
    assert_string_equal(t.e[BF_ERRTYPES_MAX - 1].type, BF_ERRTYPES_OTHER);
    assert_int_equal(bf_errtypes_total(&t), 20 * 21 / 2);
    /* a type that already has a slot still goes there */
    bf_errtypes_add(&t, "type_0", NULL, 5);
    assert_int_equal(t.e[0].docs, 6);
    /* a long type is cut, not overrun */
    bf_errtypes_t u;
    bf_errtypes_reset(&u);
    char longtype[200];
    memset(longtype, 'a', sizeof longtype - 1);
    longtype[sizeof longtype - 1] = '\0';
    bf_errtypes_add(&u, longtype, longtype, 1);
    assert_int_equal(strlen(u.e[0].type), BF_ERRTYPE_LEN - 1);
    assert_int_equal(strlen(u.e[0].reason), BF_ERRREASON_LEN - 1);
}

static void test_sorted_format(void **state)
{
    (void)state;
    bf_errtypes_t t;
    bf_errtypes_reset(&t);
    char buf[256];
    assert_string_equal(bf_errtypes_format(&t, buf, sizeof buf), "");
    bf_errtypes_add(&t, "version_conflict_engine_exception", "r", 3);
    bf_errtypes_add(&t, "mapper_parsing_exception", "r", 120);
    bf_errtypes_add(&t, "routing_missing_exception", "r", 3);
    assert_string_equal(bf_errtypes_format(&t, buf, sizeof buf),
                        "mapper_parsing_exception 120; version_conflict_engine_exception 3; "
                        "routing_missing_exception 3");
    char small[10];
    bf_errtypes_format(&t, small, sizeof small);
    assert_string_equal(small, "mapper_pa");
}

/* Through the wire form: two agents' samples merge type by type. */
static void test_pack_unpack_merge(void **state)
{
    (void)state;
    bf_errtypes_t a, b, sum;
    bf_errtypes_reset(&a);
    bf_errtypes_reset(&b);
    bf_errtypes_reset(&sum);
    bf_errtypes_add(&a, "mapper_parsing_exception", "first", 4);
    bf_errtypes_add(&b, "mapper_parsing_exception", "second", 1);
    bf_errtypes_add(&b, "version_conflict_engine_exception", "vc", 2);
    const bf_errtypes_t *src[2] = {&a, &b};
    for (int k = 0; k < 2; k++) {
        Bf__Sample s;
        bf__sample__init(&s);
        bf_sample_pack_errtypes(src[k], &s.doc_errors, &s.n_doc_errors);
        size_t n = bf__sample__get_packed_size(&s);
        uint8_t *buf = malloc(n + 1);
        bf__sample__pack(&s, buf);
        bf_sample_pack_errtypes_cleanup(&s.doc_errors, &s.n_doc_errors);
        assert_null(s.doc_errors);
        Bf__Sample *r = bf__sample__unpack(NULL, n, buf);
        free(buf);
        assert_non_null(r);
        bf_sample_unpack_errtypes_add(&sum, r->doc_errors, r->n_doc_errors);
        bf__sample__free_unpacked(r, NULL);
    }
    assert_int_equal(sum.n, 2);
    assert_int_equal(sum.e[0].docs, 5);
    assert_string_equal(sum.e[0].reason, "first");
    assert_int_equal(sum.e[1].docs, 2);
    bf_errtypes_t m;
    bf_errtypes_reset(&m);
    bf_errtypes_merge(&m, &a);
    bf_errtypes_merge(&m, &b);
    assert_int_equal(m.n, sum.n);
    for (uint32_t i = 0; i < m.n; i++) {
        assert_string_equal(m.e[i].type, sum.e[i].type);
        assert_string_equal(m.e[i].reason, sum.e[i].reason);
        assert_int_equal(m.e[i].docs, sum.e[i].docs);
    }
    /* an empty table packs to nothing */
    bf_errtypes_t z;
    bf_errtypes_reset(&z);
    Bf__ErrorCount **arr = (Bf__ErrorCount **)1;
    size_t n = 9;
    bf_sample_pack_errtypes(&z, &arr, &n);
    assert_null(arr);
    assert_int_equal(n, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_add_first_reason_kept),
        cmocka_unit_test(test_bounded_other),
        cmocka_unit_test(test_sorted_format),
        cmocka_unit_test(test_pack_unpack_merge),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
