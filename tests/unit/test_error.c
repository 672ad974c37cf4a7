/* SPDX-License-Identifier: MIT */
/* test_error.c — the error vocabulary: exit codes, signal exits, the first-error-wins diag. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "bf_error.h"
#include "bf_log.h"

static void test_exit_codes_are_design_values(void **state)
{
    (void)state;
    /* docs/internals/measurement.md and the usage texts promise these numbers to scripts: they must
     * not move */
    assert_int_equal(BF_EXIT_OK, 0);
    assert_int_equal(BF_EXIT_FAILED, 1);
    assert_int_equal(BF_EXIT_INPUT, 2);
    assert_int_equal(BF_EXIT_ENV, 3);
    assert_int_equal(BF_EXIT_SIGINT, 130);
    assert_int_equal(BF_EXIT_SIGTERM, 143);
}

static void test_exit_of_signal(void **state)
{
    (void)state;
    assert_int_equal(bf_exit_of_signal(SIGINT), BF_EXIT_SIGINT);
    assert_int_equal(bf_exit_of_signal(SIGTERM), BF_EXIT_SIGTERM);
    assert_int_equal(bf_exit_of_signal(SIGHUP), 128 + SIGHUP);
}

static void test_diag_first_error_wins(void **state)
{
    (void)state;
    bf_diag_t d = {0};
    assert_int_equal(bf_diag_set(&d, BF_E_PARSE, "a.yaml:%d:%d: bad", 3, 7), BF_E_PARSE);
    assert_int_equal(bf_diag_set(&d, BF_E_IO, "later"), BF_E_IO);
    assert_int_equal(d.code, BF_E_PARSE);
    assert_string_equal(d.msg, "a.yaml:3:7: bad");
    assert_int_equal(bf_diag_set(NULL, BF_E_INVAL, "no diag"), BF_E_INVAL);
}

static void test_strerror_covers_every_code(void **state)
{
    (void)state;
    for (int e = BF_OK; e >= BF_E_INTR; e--)
        assert_string_not_equal(bf_strerror(e), "unknown error");
    assert_string_equal(bf_strerror(1), "unknown error");
}

/* what the log prints from outside stays text: controls escaped, valid UTF-8 kept, cut whole */
static void test_log_escape(void **state)
{
    (void)state;
    char out[128];
    bf_log_escape(out, sizeof out, "a\x1b[31mb\x07\r\n\tc\x7f");
    assert_string_equal(out, "a\\x1b[31mb\\x07\\r\\n\\tc\\x7f");
    bf_log_escape(out, sizeof out, "caf\xc3\xa9 \xe2\x80\xa6 \xf0\x9f\x98\x80"); /* é … emoji */
    assert_string_equal(out, "caf\xc3\xa9 \xe2\x80\xa6 \xf0\x9f\x98\x80");
    /* C1 control (CSI), a lone continuation, overlong, surrogate, truncated sequence */
    bf_log_escape(out, sizeof out, "\xc2\x9b|\x80|\xc0\xaf|\xed\xa0\x80|\xe2\x80");
    assert_string_equal(out, "\\xc2\\x9b|\\x80|\\xc0\\xaf|\\xed\\xa0\\x80|\\xe2\\x80");
    char small[6];
    assert_int_equal(bf_log_escape(small, sizeof small, "ab\x1b"), 2); /* \x1b does not fit */
    assert_string_equal(small, "ab");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exit_codes_are_design_values),
        cmocka_unit_test(test_log_escape),
        cmocka_unit_test(test_exit_of_signal),
        cmocka_unit_test(test_diag_first_error_wins),
        cmocka_unit_test(test_strerror_covers_every_code),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
