/* SPDX-License-Identifier: MIT */
/* test_runopts.c — the record of a campaign's --cells/--warmup/--duration and how --resume
 * reconciles it with the options given again (every case of bf_runopts_resume). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bf_runopts.h"

static void round_trip(const bf_runopts_t *o)
{
    char *j = bf_runopts_json(o);
    bf_runopts_t back;
    bf_diag_t d = {0};
    assert_int_equal(bf_runopts_parse(j, strlen(j), "r.json", &back, &d), 0);
    if (o->cells)
        assert_string_equal(back.cells, o->cells);
    else
        assert_null(back.cells);
    assert_int_equal(back.has_warmup, o->has_warmup);
    assert_int_equal(back.warmup_ms, o->warmup_ms);
    assert_int_equal(back.has_first_warmup, o->has_first_warmup);
    assert_int_equal(back.first_warmup_ms, o->first_warmup_ms);
    assert_int_equal(back.has_duration, o->has_duration);
    assert_int_equal(back.duration_ms, o->duration_ms);
    bf_runopts_cleanup(&back);
    free(j);
}

static void test_record_round_trip(void **state)
{
    (void)state;
    bf_runopts_t none = {0};
    bf_runopts_t all = {.cells = "1,i1-s2-r0-b500-c4",
                        .has_warmup = 1,
                        .warmup_ms = 0,
                        .has_first_warmup = 1,
                        .first_warmup_ms = 30000,
                        .has_duration = 1,
                        .duration_ms = 3000};
    round_trip(&none);
    round_trip(&all);
    char *j = bf_runopts_json(&none);
    assert_string_equal(
        j, "{\"cells\":null,\"warmup_ms\":null,\"first_warmup_ms\":null,\"duration_ms\":null}");
    free(j);
    /* a record from before --first-warmup: it ran without one */
    const char *old = "{\"cells\":null,\"warmup_ms\":1000,\"duration_ms\":null}";
    bf_runopts_t back;
    assert_int_equal(bf_runopts_parse(old, strlen(old), "r.json", &back, NULL), 0);
    assert_int_equal(back.has_warmup, 1);
    assert_int_equal(back.has_first_warmup, 0);
    bf_runopts_cleanup(&back);
    bf_runopts_t o;
    bf_diag_t d = {0};
    assert_int_equal(bf_runopts_parse("[1]", 3, "r.json", &o, &d), BF_E_PARSE);
    assert_non_null(strstr(d.msg, "r.json: not a JSON object"));
    memset(&d, 0, sizeof d);
    const char *neg = "{\"duration_ms\": -5}";
    assert_int_equal(bf_runopts_parse(neg, strlen(neg), "r.json", &o, &d), BF_E_PARSE);
    assert_non_null(strstr(d.msg, "\"duration_ms\" is neither null nor a whole number of ms"));
    memset(&d, 0, sizeof d);
    const char *cn = "{\"cells\": 3}";
    assert_int_equal(bf_runopts_parse(cn, strlen(cn), "r.json", &o, &d), BF_E_PARSE);
    assert_non_null(strstr(d.msg, "\"cells\" is neither null nor a string"));
}

/* one row per case: recorded, given -> ok (and what is used) or the message */
static void test_resume_rules(void **state)
{
    (void)state;
    const bf_runopts_t rec = {.cells = "1, 3",
                              .has_warmup = 1,
                              .warmup_ms = 1000,
                              .has_duration = 1,
                              .duration_ms = 3000};
    const bf_runopts_t bare = {0};
    const struct {
        const bf_runopts_t *recorded;
        bf_runopts_t given;
        const char *err; /* NULL: accepted */
    } cases[] = {
        {&rec, {0}, NULL},                                      /* nothing given: the record */
        {&rec, {.cells = "1,3"}, NULL},                         /* same list, spaces apart */
        {&rec, {.has_warmup = 1, .warmup_ms = 1000}, NULL},     /* same warmup */
        {&rec, {.has_duration = 1, .duration_ms = 3000}, NULL}, /* same duration */
        {&rec, {.cells = "1,4"}, "this campaign ran --cells 1, 3, not --cells 1,4"},
        {&rec,
         {.has_warmup = 1, .warmup_ms = 0},
         "this campaign ran --warmup 1.0s, not --warmup 0ms"},
        {&rec,
         {.has_duration = 1, .duration_ms = 4000},
         "ran --duration 3.0s, not --duration 4.0s: its finished rows were measured that way; "
         "resume without --duration to use the campaign's 3.0s"},
        {&bare, {0}, NULL},
        {&bare, {.cells = "2"}, "this campaign ran every cell (no --cells), not --cells 2"},
        {&bare,
         {.has_duration = 1, .duration_ms = 2000},
         "this campaign ran without --duration (the scenario's value), not --duration 2.0s"},
        {&bare,
         {.has_first_warmup = 1, .first_warmup_ms = 5000},
         "this campaign ran without --first-warmup (the scenario's value), not --first-warmup "
         "5.0s"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        bf_runopts_t use;
        bf_diag_t d = {0};
        int rc = bf_runopts_resume(cases[i].recorded, &cases[i].given, &use, &d);
        if (cases[i].err == NULL) {
            if (rc != 0)
                fail_msg("case %zu: %s", i, d.msg);
            assert_ptr_equal(use.cells, cases[i].recorded->cells);
            assert_int_equal(use.has_warmup, cases[i].recorded->has_warmup);
            assert_int_equal(use.warmup_ms, cases[i].recorded->warmup_ms);
            assert_int_equal(use.duration_ms, cases[i].recorded->duration_ms);
        } else {
            assert_int_equal(rc, BF_E_INVAL);
            if (strstr(d.msg, cases[i].err) == NULL)
                fail_msg("case %zu: got '%s', want '%s'", i, d.msg, cases[i].err);
        }
    }
    char buf[256];
    assert_string_equal(bf_runopts_describe(&rec, buf, sizeof buf),
                        "--cells 1, 3 --warmup 1.0s --duration 3.0s");
    bf_runopts_t w = {.has_warmup = 1, .warmup_ms = 0};
    assert_string_equal(bf_runopts_describe(&w, buf, sizeof buf), "--warmup 0ms");
    bf_runopts_t fw = {.has_first_warmup = 1, .first_warmup_ms = 30000};
    assert_string_equal(bf_runopts_describe(&fw, buf, sizeof buf), "--first-warmup 30.0s");
    assert_string_equal(bf_runopts_describe(&bare, buf, sizeof buf),
                        "no --cells, --warmup, --first-warmup or --duration");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_record_round_trip),
        cmocka_unit_test(test_resume_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
