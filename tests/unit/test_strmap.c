/* SPDX-License-Identifier: MIT */
/* test_strmap.c — the hash map behind the fleet's O(1) lookups, against a plain array model. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "bf_error.h"
#include "bf_strmap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_put_get_replace(void **state)
{
    (void)state;
    bf_strmap_t m;
    bf_strmap_init(&m);
    int a = 1, b = 2;
    assert_null(bf_strmap_get(&m, "x", 1));
    assert_int_equal(bf_strmap_put(&m, "agent-1", 7, &a), BF_OK);
    assert_ptr_equal(bf_strmap_get(&m, "agent-1", 7), &a);
    assert_null(bf_strmap_get(&m, "agent-1", 6)); /* a prefix is another key */
    assert_int_equal(bf_strmap_put(&m, "agent-1", 7, &b), BF_OK);
    assert_ptr_equal(bf_strmap_get(&m, "agent-1", 7), &b);
    assert_int_equal(bf_strmap_len(&m), 1);
    /* keys are bytes: an embedded NUL is part of the key */
    assert_int_equal(bf_strmap_put(&m, "a\0b", 3, &a), BF_OK);
    assert_ptr_equal(bf_strmap_get(&m, "a\0b", 3), &a);
    assert_null(bf_strmap_get(&m, "a", 1));
    assert_int_equal(bf_strmap_put(&m, "k", 1, NULL), BF_E_INVAL);
    char big[BF_STRMAP_MAX_KEY_BYTES + 1];
    memset(big, 'k', sizeof big);
    assert_int_equal(bf_strmap_put(&m, big, sizeof big, &a), BF_E_TOOBIG);
    assert_int_equal(bf_strmap_del(&m, "agent-1", 7), 1);
    assert_int_equal(bf_strmap_del(&m, "agent-1", 7), 0);
    assert_null(bf_strmap_get(&m, "agent-1", 7));
    bf_strmap_cleanup(&m);
    bf_strmap_cleanup(&m); /* twice is fine */
    assert_int_equal(bf_strmap_len(&m), 0);
}

/* random puts and deletes over a small key space (so clusters and wrap-around happen) agree with
 * a model array after every step: the backward-shift deletion must never lose a key */
static void test_random_against_model(void **state)
{
    (void)state;
    enum { NKEYS = 300, STEPS = 200000 };
    static int vals[NKEYS];
    void *model[NKEYS] = {0};
    bf_strmap_t m;
    bf_strmap_init(&m);
    unsigned seed = 12345;
    size_t present = 0;
    for (int step = 0; step < STEPS; step++) {
        seed = seed * 1103515245u + 12345u;
        int k = (int)((seed >> 8) % NKEYS);
        char key[32];
        int n = snprintf(key, sizeof key, "agent-%d", k);
        if ((seed >> 4) & 1) {
            assert_int_equal(bf_strmap_put(&m, key, (size_t)n, &vals[k]), BF_OK);
            present += model[k] == NULL;
            model[k] = &vals[k];
        } else {
            assert_int_equal(bf_strmap_del(&m, key, (size_t)n), model[k] != NULL);
            present -= model[k] != NULL;
            model[k] = NULL;
        }
        if (step % 997 == 0) {
            for (int j = 0; j < NKEYS; j++) {
                n = snprintf(key, sizeof key, "agent-%d", j);
                assert_ptr_equal(bf_strmap_get(&m, key, (size_t)n), model[j]);
            }
        }
        assert_int_equal(bf_strmap_len(&m), present);
    }
    bf_strmap_cleanup(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_put_get_replace),
        cmocka_unit_test(test_random_against_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
