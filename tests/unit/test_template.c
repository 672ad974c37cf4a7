/* SPDX-License-Identifier: MIT */
/* test_template.c — template compilation and bulk rendering: escaping of hostile dictionaries
 * (every rendered line parses with jansson), placeholder rendering inside and outside JSON
 * strings, scopes, bodies built in pieces, action lines, index round-robin, size caps and the
 * JSON escaper itself. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "bf_jsonesc.h"
#include "bf_mem.h"
#include "bf_scenario.h"
#include "bf_template.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIXDIR BF_SOURCE_DIR "/tests/fixtures/scenarios"

typedef struct fx {
    bf_scenario_t *sc;
    bf_tmpl_t *t;
    bf_gen_t *g;
    bf_buf_t out;
} fx;

static void setup_text(fx *f, const char *text)
{
    bf_diag_t d = {0};
    bf_load_opts_t o = {.base_dir = FIXDIR};
    memset(f, 0, sizeof *f);
    if (bf_scenario_load_text(text, strlen(text), "t.yaml", &o, &f->sc, &d) != 0)
        fail_msg("load: %s", d.msg);
    assert_int_equal(bf_tmpl_compile(f->sc, &f->t, &d), 0);
    bf_partition_t p = {0, 1, 1};
    f->g = bf_gen_new(f->t, &p);
    bf_buf_init(&f->out, BF_MAX_BODY_BYTES);
}

static void teardown_fx(fx *f)
{
    bf_buf_cleanup(&f->out);
    bf_gen_destroy(&f->g);
    assert_null(f->g);
    bf_tmpl_destroy(&f->t);
    assert_null(f->t);
    bf_scenario_destroy(&f->sc);
}

/* Splits f->out into lines (NUL-terminated in place); returns the count. */
static size_t lines_of(fx *f, char **lines, size_t max)
{
    size_t n = 0;
    char *p = f->out.data;
    while (p && *p && n < max) {
        char *nl = strchr(p, '\n');
        assert_non_null(nl); /* every line ends with '\n' */
        *nl = '\0';
        lines[n++] = p;
        p = nl + 1;
    }
    return n;
}

static const char *HEAD = "name: t\ntarget: {hosts: [http://127.0.0.1:9200]}\n";

/* ---- the hostile dictionary ---------------------------------------------------------------- */

static void test_escaping_hostile_dictionary(void **state)
{
    (void)state;
    enum { DOCS = 3000 };
    char text[2048];
    snprintf(text, sizeof text,
             "%svariables:\n  - {name: m, type: file, path: dict/nasty.log}\n"
             "  - {name: arr, type: random_array, variable_key: m, size: 2, variable_type: string, "
             "square_bracket: true}\n"
             "document:\n  id: 'id-$[[m]]'\n  routing: $[[m]]\n"
             "  source: '{\"m\": \"$[[m]]\", \"bare\": $[[m]], \"arr\": $[[arr]], \"arrs\": "
             "\"$[[arr]]\", \"pre\": \"<$[[m]]>\"}'\n",
             HEAD);
    fx f;
    setup_text(&f, text);
    json_error_t je;
    json_t *expected = json_load_file(FIXDIR "/dict/nasty.expected.json", 0, &je);
    assert_non_null(expected);
    size_t nexp = json_array_size(expected);
    int *seen = bf_calloc(nexp, sizeof *seen);
    assert_int_equal(bf_tmpl_render_bulk(f.t, f.g, bf_scenario_cell(f.sc, 0), DOCS, &f.out), 0);
    char **lines = bf_malloc(2 * DOCS * sizeof *lines);
    assert_int_equal(lines_of(&f, lines, 2 * DOCS), 2 * DOCS); /* exactly two lines a doc */
    for (size_t i = 0; i < 2 * DOCS; i += 2) {
        json_t *a = json_loads(lines[i], JSON_REJECT_DUPLICATES, &je);
        if (a == NULL)
            fail_msg("action line %zu does not parse: %s\n%s", i, je.text, lines[i]);
        json_t *s = json_loads(lines[i + 1], JSON_REJECT_DUPLICATES, &je);
        if (s == NULL)
            fail_msg("source line %zu does not parse: %s\n%s", i + 1, je.text, lines[i + 1]);
        const char *m = json_string_value(json_object_get(s, "m"));
        assert_non_null(m);
        /* the same value everywhere in the document (document scope) */
        assert_string_equal(m, json_string_value(json_object_get(s, "bare")));
        json_t *meta = json_object_get(a, "index");
        char idv[2048];
        snprintf(idv, sizeof idv, "id-%s", m);
        assert_string_equal(json_string_value(json_object_get(meta, "_id")), idv);
        assert_string_equal(json_string_value(json_object_get(meta, "routing")), m);
        char pre[2048];
        snprintf(pre, sizeof pre, "<%s>", m);
        assert_string_equal(json_string_value(json_object_get(s, "pre")), pre);
        /* random_array: bare it is an array; inside a string it is that array's text */
        json_t *arr = json_object_get(s, "arr");
        assert_true(json_is_array(arr));
        assert_int_equal(json_array_size(arr), 2);
        json_t *arr2 = json_loads(json_string_value(json_object_get(s, "arrs")), 0, &je);
        assert_non_null(arr2);
        assert_true(json_equal(arr, arr2));
        json_decref(arr2);
        int found = 0;
        for (size_t k = 0; k < nexp; k++) {
            if (strcmp(json_string_value(json_array_get(expected, k)), m) == 0) {
                seen[k] = 1;
                found = 1;
            }
        }
        if (!found)
            fail_msg("unexpected value '%s'", m);
        json_decref(a);
        json_decref(s);
    }
    for (size_t k = 0; k < nexp; k++)
        if (!seen[k])
            fail_msg("value %zu never rendered: %s", k, json_string_value(json_array_get(expected, k)));
    free(lines);
    free(seen);
    json_decref(expected);
    teardown_fx(&f);
}

/* ---- placeholders -------------------------------------------------------------------------- */

static void test_placeholder_contexts(void **state)
{
    (void)state;
    char text[2048];
    snprintf(text, sizeof text,
             "%svariables:\n"
             "  - {name: n, type: sequence, from: 41}\n"
             "  - {name: s, type: list, data: [\"he said \\\"x\\\"\"]}\n"
             "  - {name: lit, type: list, data: [3.5]}\n"
             "  - {name: b, type: list, data: [true]}\n"
             "  - {name: q, type: list, data: [\"7\"]}\n"
             "document:\n"
             "  source: '{\"a\": \"$[[n]]\", \"b\": $[[n]], \"c\": \"x$[[s]]y\", \"d\": $[[s]], "
             "\"e\": $[[lit]], \"f\": \"$[[lit]]\", \"g\": $[[b]], \"h\": $[[q]]}'\n",
             HEAD);
    fx f;
    setup_text(&f, text);
    assert_int_equal(bf_tmpl_render_bulk(f.t, f.g, bf_scenario_cell(f.sc, 0), 2, &f.out), 0);
    char *lines[4];
    assert_int_equal(lines_of(&f, lines, 4), 4);
    assert_string_equal(lines[0], "{\"index\":{\"_index\":\"t\"}}");
    assert_string_equal(lines[1], "{\"a\": \"41\", \"b\": 41, \"c\": \"xhe said \\\"x\\\"y\", "
                                  "\"d\": \"he said \\\"x\\\"\", \"e\": 3.5, \"f\": \"3.5\", "
                                  "\"g\": true, \"h\": \"7\"}");
    assert_string_equal(lines[3], "{\"a\": \"42\", \"b\": 42, \"c\": \"xhe said \\\"x\\\"y\", "
                                  "\"d\": \"he said \\\"x\\\"\", \"e\": 3.5, \"f\": \"3.5\", "
                                  "\"g\": true, \"h\": \"7\"}");
    teardown_fx(&f);
}

static void test_scopes(void **state)
{
    (void)state;
    char text[1024];
    snprintf(text, sizeof text,
             "%svariables:\n"
             "  - {name: d, type: sequence}\n"
             "  - {name: r, type: sequence, from: 100, scope: request}\n"
             "document:\n  action: create\n  id: $[[d]]\n  routing: r$[[r]]\n"
             "  source: '{\"d\": $[[d]], \"d2\": $[[d]], \"r\": $[[r]]}'\n",
             HEAD);
    fx f;
    setup_text(&f, text);
    const bf_cell_t *c = bf_scenario_cell(f.sc, 0);
    for (int req = 0; req < 3; req++) {
        bf_buf_reset(&f.out);
        assert_int_equal(bf_tmpl_render_bulk(f.t, f.g, c, 3, &f.out), 0);
        char *lines[6];
        assert_int_equal(lines_of(&f, lines, 6), 6);
        for (int d = 0; d < 3; d++) {
            char want_a[128], want_s[128];
            int dv = req * 3 + d, rv = 100 + req;
            snprintf(want_a, sizeof want_a,
                     "{\"create\":{\"_index\":\"t\",\"_id\":\"%d\",\"routing\":\"r%d\"}}", dv, rv);
            snprintf(want_s, sizeof want_s, "{\"d\": %d, \"d2\": %d, \"r\": %d}", dv, dv, rv);
            assert_string_equal(lines[2 * d], want_a);
            assert_string_equal(lines[2 * d + 1], want_s);
        }
    }
    teardown_fx(&f);
}

/* A body built in pieces (bf_tmpl_render_bulk_more, as the agent's worker does) is the body
 * built at once: request-scope values stay, document values go on. */
static void test_render_in_pieces(void **state)
{
    (void)state;
    char text[1024];
    snprintf(text, sizeof text,
             "%svariables:\n"
             "  - {name: d, type: sequence}\n"
             "  - {name: u, type: uuid}\n"
             "  - {name: r, type: sequence, from: 100, scope: request}\n"
             "document:\n  action: create\n  id: $[[d]]\n  routing: r$[[r]]\n"
             "  source: '{\"d\": $[[d]], \"u\": \"$[[u]]\", \"r\": $[[r]]}'\n",
             HEAD);
    fx whole, pieces;
    setup_text(&whole, text);
    setup_text(&pieces, text);
    const bf_cell_t *c = bf_scenario_cell(whole.sc, 0);
    const bf_cell_t *cp = bf_scenario_cell(pieces.sc, 0);
    for (int req = 0; req < 3; req++) {
        bf_buf_reset(&whole.out);
        bf_buf_reset(&pieces.out);
        assert_int_equal(bf_tmpl_render_bulk(whole.t, whole.g, c, 10, &whole.out), 0);
        assert_int_equal(bf_tmpl_render_bulk(pieces.t, pieces.g, cp, 4, &pieces.out), 0);
        assert_int_equal(bf_tmpl_render_bulk_more(pieces.t, pieces.g, cp, 1, &pieces.out), 0);
        assert_int_equal(bf_tmpl_render_bulk_more(pieces.t, pieces.g, cp, 5, &pieces.out), 0);
        assert_string_equal(pieces.out.data, whole.out.data);
        char want[32];
        snprintf(want, sizeof want, "\"r\": %d}", 100 + req);
        assert_non_null(strstr(pieces.out.data, want));
    }
    teardown_fx(&whole);
    teardown_fx(&pieces);
}

static void test_action_line_and_round_robin(void **state)
{
    (void)state;
    char text[1024];
    snprintf(text, sizeof text,
             "%sindex: {name: 'logs-{i}', count: 3}\n"
             "variables:\n  - {name: u, type: uuid}\n"
             "document:\n  pipeline: 'pipe \"1\"'\n  source: '{\"u\": \"$[[u]]\"}'\n",
             HEAD);
    fx f;
    setup_text(&f, text);
    const bf_cell_t *c = bf_scenario_cell(f.sc, 0);
    assert_int_equal(c->indices, 3);
    /* 2 documents, then 3: round-robin continues across requests */
    assert_int_equal(bf_tmpl_render_bulk(f.t, f.g, c, 2, &f.out), 0);
    assert_int_equal(bf_tmpl_render_bulk(f.t, f.g, c, 3, &f.out), 0);
    char *lines[10];
    assert_int_equal(lines_of(&f, lines, 10), 10);
    const char *want[] = {"logs-0", "logs-1", "logs-2", "logs-0", "logs-1"};
    for (int d = 0; d < 5; d++) {
        char a[128];
        snprintf(a, sizeof a, "{\"index\":{\"_index\":\"%s\",\"pipeline\":\"pipe \\\"1\\\"\"}}",
                 want[d]);
        assert_string_equal(lines[2 * d], a);
    }
    teardown_fx(&f);
}

static void test_source_file_pretty_printed(void **state)
{
    (void)state;
    char text[1024];
    snprintf(text, sizeof text,
             "%svariables:\n  - {name: id, type: sequence}\n"
             "  - {name: line, type: file, path: dict/lines.log}\n"
             "document:\n  source_file: pretty-source.json\n",
             HEAD);
    fx f;
    setup_text(&f, text);
    assert_int_equal(bf_tmpl_render_bulk(f.t, f.g, bf_scenario_cell(f.sc, 0), 5, &f.out), 0);
    char *lines[10];
    assert_int_equal(lines_of(&f, lines, 10), 10);
    for (int i = 1; i < 10; i += 2) {
        json_error_t je;
        json_t *j = json_loads(lines[i], 0, &je);
        assert_non_null(j);
        assert_int_equal(json_array_size(json_object_get(json_object_get(j, "nested"), "a")), 3);
        json_decref(j);
    }
    assert_string_equal(bf_scenario_document(f.sc)->source_file, "pretty-source.json");
    /* the file is shipped to agents with its content */
    int listed = 0;
    for (size_t i = 0; i < bf_scenario_file_count(f.sc); i++)
        listed |= strcmp(bf_scenario_file(f.sc, i)->path, "pretty-source.json") == 0;
    assert_true(listed);
    teardown_fx(&f);
}

static void test_body_cap_and_exhausted_sequence(void **state)
{
    (void)state;
    char text[1024];
    snprintf(text, sizeof text,
             "%svariables:\n  - {name: n, type: sequence, from: 0, to: 4, wrap: false}\n"
             "document:\n  source: '{\"n\": $[[n]]}'\n",
             HEAD);
    fx f;
    setup_text(&f, text);
    const bf_cell_t *c = bf_scenario_cell(f.sc, 0);
    bf_buf_t small;
    bf_buf_init(&small, 64);
    assert_int_equal(bf_tmpl_render_bulk(f.t, f.g, c, 10, &small), BF_E_TOOBIG);
    bf_buf_cleanup(&small);
    /* values 0..4 were not all used above; a fresh generator runs out after 5 */
    bf_gen_t *g = bf_gen_new(f.t, &(bf_partition_t){0, 1, 1});
    assert_int_equal(bf_tmpl_render_bulk(f.t, g, c, 5, &f.out), 0);
    assert_int_equal(bf_tmpl_render_bulk(f.t, g, c, 1, &f.out), BF_E_RANGE);
    bf_gen_destroy(&g);
    teardown_fx(&f);
}

static void test_estimate_matches_rendering(void **state)
{
    (void)state;
    setenv("ES_PASSWORD", "x", 1);
    bf_scenario_t *sc = NULL;
    bf_diag_t d = {0};
    assert_int_equal(bf_scenario_load_file(BF_SOURCE_DIR "/examples/quickstart.yaml", NULL, &sc, &d), 0);
    bf_tmpl_t *t = NULL;
    assert_int_equal(bf_tmpl_compile(sc, &t, &d), 0);
    const bf_cell_t *c = bf_scenario_cell(sc, 0);
    size_t est = bf_tmpl_estimate_doc_bytes(t, c);
    bf_gen_t *g = bf_gen_new(t, &(bf_partition_t){3, 8, 99});
    bf_buf_t b;
    bf_buf_init(&b, BF_MAX_BODY_BYTES);
    assert_int_equal(bf_tmpl_render_bulk(t, g, c, 2000, &b), 0);
    double mean = (double)b.len / 2000.0;
    assert_true(est > mean * 0.85 && est < mean * 1.15);
    /* a big batch in one call, reused buffer: no reallocation once it is large enough */
    bf_buf_reset(&b);
    assert_int_equal(bf_tmpl_render_bulk(t, g, c, c->batch_size, &b), 0);
    size_t cap = b.cap;
    for (int i = 0; i < 5; i++) {
        bf_buf_reset(&b);
        assert_int_equal(bf_tmpl_render_bulk(t, g, c, c->batch_size, &b), 0);
    }
    assert_true(b.cap <= cap * 2);
    bf_buf_cleanup(&b);
    bf_gen_destroy(&g);
    bf_tmpl_destroy(&t);
    bf_scenario_destroy(&sc);
}

/* ---- the escaper --------------------------------------------------------------------------- */

static void esc_case(const char *in, size_t len, const char *want)
{
    char out[256];
    assert_true(bf_jsonesc_bound(len) < sizeof out);
    size_t n = bf_jsonesc_write(out, in, len);
    out[n] = '\0';
    assert_string_equal(out, want);
    assert_int_equal(bf_jsonesc_needed(in, len), strcmp(in, want) != 0 || strlen(in) != len);
    bf_buf_t b;
    bf_buf_init(&b, 0);
    assert_int_equal(bf_jsonesc_append(&b, in, len), 0);
    assert_string_equal(b.data, want);
    bf_buf_cleanup(&b);
}

static void test_jsonesc(void **state)
{
    (void)state;
    esc_case("plain", 5, "plain");
    esc_case("a\"b\\c", 5, "a\\\"b\\\\c");
    esc_case("t\tn\nr\rb\bf\f", 10, "t\\tn\\nr\\rb\\bf\\f");
    esc_case("\x1b[0m", 4, "\\u001b[0m");
    esc_case("\x01\x7f", 2, "\\u0001\\u007f");
    esc_case("nul\0x", 5, "nul\\u0000x");
    esc_case("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 9, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
    esc_case("\xff", 1, "\xef\xbf\xbd");
    esc_case("a\xe2\x82", 3, "a\xef\xbf\xbd");                       /* truncated: one U+FFFD */
    esc_case("\xc0\xaf", 2, "\xef\xbf\xbd\xef\xbf\xbd");             /* overlong */
    esc_case("\xed\xa0\x80", 3, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"); /* surrogate */
    esc_case("\xf4\x90\x80\x80", 4,
             "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"); /* above U+10FFFF */
    /* near the buffer's cap the exact size is used */
    bf_buf_t b;
    bf_buf_init(&b, 8);
    assert_int_equal(bf_jsonesc_append(&b, "abcdefgh", 8), 0);
    assert_int_equal(bf_jsonesc_append(&b, "x", 1), BF_E_TOOBIG);
    bf_buf_cleanup(&b);
    assert_int_equal(bf_utf8_valid("\xc3\xa9", 2), 1);
    assert_int_equal(bf_utf8_valid("\xc3", 1), 0);
}

static void test_json_literal(void **state)
{
    (void)state;
    const char *yes[] = {"0", "-1", "3.25", "1e9", "-0.5E-3", "true", "false", "null", "10"};
    const char *no[] = {"", "-", "01", "1.", ".5", "1e", "+1", "True", "nan", "1 ", "0x10", "abc"};
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
        assert_int_equal(bf_json_is_literal(yes[i], strlen(yes[i])), 1);
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
        assert_int_equal(bf_json_is_literal(no[i], strlen(no[i])), 0);
}

/* ---- update and delete ---------------------------------------------------------------------- */

static void test_update_delete_bodies(void **state)
{
    (void)state;
    char text[1024];
    char *lines[8];
    fx f;
    /* update (doc): {"doc": source}; retry_on_conflict on the action line */
    snprintf(text, sizeof text,
             "%svariables: [{name: n, type: sequence, from: 7}]\n"
             "document: {action: update, id: 'd$[[n]]', retry_on_conflict: 2, "
             "source: '{\"n\": $[[n]]}'}\n",
             HEAD);
    setup_text(&f, text);
    assert_int_equal(bf_tmpl_render_bulk(f.t, f.g, bf_scenario_cell(f.sc, 0), 2, &f.out), 0);
    assert_int_equal(lines_of(&f, lines, 8), 4);
    assert_string_equal(lines[0], "{\"update\":{\"_index\":\"t\",\"_id\":\"d7\","
                                  "\"retry_on_conflict\":2}}");
    assert_string_equal(lines[1], "{\"doc\":{\"n\": 7}}");
    assert_string_equal(lines[3], "{\"doc\":{\"n\": 8}}");
    teardown_fx(&f);
    /* update (upsert): doc_as_upsert */
    snprintf(text, sizeof text,
             "%svariables: [{name: n, type: sequence, from: 7}]\n"
             "document: {action: update, update: upsert, id: 'd$[[n]]', "
             "source: '{\"n\": $[[n]]}'}\n",
             HEAD);
    setup_text(&f, text);
    assert_int_equal(bf_tmpl_render_bulk(f.t, f.g, bf_scenario_cell(f.sc, 0), 1, &f.out), 0);
    assert_int_equal(lines_of(&f, lines, 8), 2);
    assert_string_equal(lines[0], "{\"update\":{\"_index\":\"t\",\"_id\":\"d7\"}}");
    assert_string_equal(lines[1], "{\"doc\":{\"n\": 7},\"doc_as_upsert\":true}");
    teardown_fx(&f);
    /* delete: the action line alone, one line per document */
    snprintf(text, sizeof text,
             "%svariables: [{name: n, type: sequence, from: 7}]\n"
             "document: {action: delete, id: 'd$[[n]]', routing: r}\n",
             HEAD);
    setup_text(&f, text);
    assert_int_equal(bf_tmpl_render_bulk(f.t, f.g, bf_scenario_cell(f.sc, 0), 3, &f.out), 0);
    assert_int_equal(lines_of(&f, lines, 8), 3);
    assert_string_equal(lines[0],
                        "{\"delete\":{\"_index\":\"t\",\"_id\":\"d7\",\"routing\":\"r\"}}");
    assert_string_equal(lines[2],
                        "{\"delete\":{\"_index\":\"t\",\"_id\":\"d9\",\"routing\":\"r\"}}");
    teardown_fx(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_update_delete_bodies),
        cmocka_unit_test(test_escaping_hostile_dictionary),
        cmocka_unit_test(test_placeholder_contexts),
        cmocka_unit_test(test_scopes),
        cmocka_unit_test(test_render_in_pieces),
        cmocka_unit_test(test_action_line_and_round_robin),
        cmocka_unit_test(test_source_file_pretty_printed),
        cmocka_unit_test(test_body_cap_and_exhausted_sequence),
        cmocka_unit_test(test_estimate_matches_rendering),
        cmocka_unit_test(test_jsonesc),
        cmocka_unit_test(test_json_literal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
