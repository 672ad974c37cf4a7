/* SPDX-License-Identifier: MIT */
/* test_units.c — durations, sizes and counts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "bf_error.h"
#include "bf_units.h"

static void test_durations(void **state)
{
    (void)state;
    uint64_t ms;
    assert_int_equal(bf_units_parse_duration_ms("250ms", &ms), 0);
    assert_int_equal(ms, 250);
    assert_int_equal(bf_units_parse_duration_ms("30s", &ms), 0);
    assert_int_equal(ms, 30000);
    assert_int_equal(bf_units_parse_duration_ms("60", &ms), 0);
    assert_int_equal(ms, 60000);
    assert_int_equal(bf_units_parse_duration_ms("1h30m", &ms), 0);
    assert_int_equal(ms, 5400000);
    assert_int_equal(bf_units_parse_duration_ms("1.5s", &ms), 0);
    assert_int_equal(ms, 1500);
    assert_int_equal(bf_units_parse_duration_ms("10 s", &ms), BF_E_PARSE);
    assert_int_equal(bf_units_parse_duration_ms("10x", &ms), BF_E_PARSE);
    assert_int_equal(bf_units_parse_duration_ms("", &ms), BF_E_PARSE);
    assert_int_equal(bf_units_parse_duration_ms("-5s", &ms), BF_E_PARSE);
}

static void test_duration_suggestions(void **state)
{
    (void)state;
    static const struct {
        const char *in, *want;
    } ok[] = {{"10 sec", "10s"}, {"10sec", "10s"}, {"10S", "10s"}, {"10 s", "10s"},
              {"5 minutes", "5m"}, {"1h 30m", "1h30m"}, {"2 Hours", "2h"},
              {"250 millis", "250ms"}, {"1 min 30 secs", "1m30s"}};
    char out[64];
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        assert_int_equal(bf_units_suggest_duration(ok[i].in, out, sizeof out), 1);
        assert_string_equal(out, ok[i].want);
    }
    /* nothing to suggest: not a duration, or already one */
    static const char *none[] = {"abc", "10 parsecs", "", "30s", "s10", "10 seconds ago"};
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++)
        assert_int_equal(bf_units_suggest_duration(none[i], out, sizeof out), 0);
}

static void test_sizes(void **state)
{
    (void)state;
    uint64_t b;
    assert_int_equal(bf_units_parse_size("512KiB", &b), 0);
    assert_int_equal(b, 512 * 1024);
    assert_int_equal(bf_units_parse_size("10KB", &b), 0);
    assert_int_equal(b, 10000);
    assert_int_equal(bf_units_parse_size("100MiB", &b), 0);
    assert_int_equal(b, 100u << 20);
    assert_int_equal(bf_units_parse_size("7", &b), 0);
    assert_int_equal(b, 7);
    assert_int_equal(bf_units_parse_size("1XB", &b), BF_E_PARSE);
}

static void test_counts(void **state)
{
    (void)state;
    uint64_t n;
    assert_int_equal(bf_units_parse_count("10k", &n), 0);
    assert_int_equal(n, 10000);
    assert_int_equal(bf_units_parse_count("1.5k", &n), 0);
    assert_int_equal(n, 1500);
    assert_int_equal(bf_units_parse_count("2M", &n), 0);
    assert_int_equal(n, 2000000);
    assert_int_equal(bf_units_parse_count("1.5", &n), BF_E_PARSE);
    /* exact at 64 bits: no trip through a double (999999999999999000 came back as ...976) */
    assert_int_equal(bf_units_parse_count("999999999999999000", &n), 0);
    assert_true(n == 999999999999999000ull);
    assert_int_equal(bf_units_parse_count("9223372036854775807", &n), 0);
    assert_true(n == 9223372036854775807ull);
    assert_int_equal(bf_units_parse_count("18446744073709551615", &n), 0);
    assert_true(n == UINT64_MAX);
    assert_int_equal(bf_units_parse_count("18446744073709551616", &n), BF_E_RANGE);
    assert_int_equal(bf_units_parse_count("18446744073709552k", &n), BF_E_RANGE);
    assert_int_equal(bf_units_parse_count("2.5G", &n), 0);
    assert_true(n == 2500000000ull);
    assert_int_equal(bf_units_parse_count("1.0005k", &n), BF_E_PARSE);
    assert_int_equal(bf_units_parse_count("1.50000000000k", &n), 0);
    assert_true(n == 1500);
    assert_int_equal(bf_units_parse_count(".5k", &n), 0);
    assert_true(n == 500);
    /* not counts */
    static const char *bad[] = {"1e3", "0x10", "", ".", "k", "10kk", "10 k", "-1", "+1", "1k5"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_not_equal(bf_units_parse_count(bad[i], &n), 0);
    assert_int_equal(bf_units_parse_u64("12a", &n), BF_E_PARSE);
    assert_int_equal(bf_units_parse_u64("99999999999999999999999", &n), BF_E_RANGE);
}

static void test_format(void **state)
{
    (void)state;
    char buf[32];
    assert_string_equal(bf_units_format_duration_ms(250, buf, sizeof buf), "250ms");
    assert_string_equal(bf_units_format_duration_ms(4500, buf, sizeof buf), "4.5s");
    assert_string_equal(bf_units_format_duration_ms(3723000, buf, sizeof buf), "1h02m03s");
    assert_string_equal(bf_units_format_bytes(1536, buf, sizeof buf), "1.5 KiB");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_durations),
        cmocka_unit_test(test_duration_suggestions),
        cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_counts),
        cmocka_unit_test(test_format),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
