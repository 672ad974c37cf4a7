/* SPDX-License-Identifier: MIT */
/* test_selftest.c — the no-network selftest: bounded, counts whole bodies,
 * gzips when the cell says so, refuses what it cannot do. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "bf_clock.h"
#include "bf_selftest.h"

#include <string.h>

static const char yaml[] =
    "name: st\n"
    "target: {hosts: ['http://127.0.0.1:9']}\n"
    "index: {name: st}\n"
    "variables: [{name: n, type: range, from: 1, to: 9}]\n"
    "document: {source: '{\"n\": $[[n]], \"t\": \"some text to compress some text\"}'}\n"
    "request: {compression: gzip}\n"
    "matrix: {batch_size: [200], concurrency: [1], compression: [gzip, none]}\n";

static bf_scenario_t *load(const char *text)
{
    bf_diag_t d = {0};
    bf_load_opts_t o = {0};
    bf_scenario_t *sc = NULL;
    if (bf_scenario_load_text(text, strlen(text), "st.yaml", &o, &sc, &d) != 0)
        fail_msg("load: %s", d.msg);
    return sc;
}

static void test_bounded_whole_bodies(void **state)
{
    (void)state;
    bf_scenario_t *sc = load(yaml);
    bf_tmpl_t *t = NULL;
    bf_diag_t d = {0};
    assert_int_equal(bf_tmpl_compile(sc, &t, &d), 0);
    assert_int_equal(bf_scenario_cell_count(sc), 2);
    for (size_t c = 0; c < 2; c++) {
        const bf_cell_t *cell = bf_scenario_cell(sc, c);
        bf_selftest_result_t r;
        uint64_t t0 = bf_clock_mono_us();
        assert_int_equal(bf_selftest_run(sc, t, cell, 2, 200, &r, &d), 0);
        uint64_t took_ms = (bf_clock_mono_us() - t0) / 1000;
        assert_true(took_ms >= 200 && took_ms < 2000); /* bounded by the duration */
        assert_int_equal(r.threads, 2);
        assert_true(r.requests >= 2);
        assert_int_equal(r.docs, r.requests * 200); /* whole bodies only */
        assert_true(r.docs_per_s > 0 && r.docs_per_thread_s * 2 == r.docs_per_s);
        if (cell->compression == BF_COMPRESS_GZIP)
            assert_true(r.wire_bytes < r.payload_bytes / 2);
        else
            assert_int_equal(r.wire_bytes, r.payload_bytes);
    }
    bf_selftest_result_t r;
    assert_int_equal(bf_selftest_run(sc, t, bf_scenario_cell(sc, 0), 0, 200, &r, &d), BF_E_INVAL);
    assert_non_null(strstr(d.msg, "--threads"));
    assert_int_equal(bf_selftest_run(sc, t, bf_scenario_cell(sc, 0), 1, 0, &r, &d), BF_E_INVAL);
    assert_int_equal(
        bf_selftest_run(sc, t, bf_scenario_cell(sc, 0), 1, BF_SELFTEST_MAX_MS + 1, &r, &d),
        BF_E_INVAL);
    bf_tmpl_destroy(&t);
    bf_scenario_destroy(&sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bounded_whole_bodies),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
