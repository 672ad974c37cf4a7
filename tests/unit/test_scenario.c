/* SPDX-License-Identifier: MIT */
/* test_scenario.c — the scenario loader: every example validates, one test per mistake kind
 * with its exact file:line:column, ${VAR} substitution, matrix expansion, resolved-text round
 * trip (what agents load) and redaction (what is kept with results). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "bf_mem.h"
#include "bf_scenario.h"
#include "bf_sha256.h"
#include "bf_template.h"
#include "bf_buf.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIXDIR BF_SOURCE_DIR "/tests/fixtures/scenarios"
#define EXDIR BF_SOURCE_DIR "/examples"

static bf_scenario_t *load_ok(const char *path, const bf_load_opts_t *opts)
{
    bf_scenario_t *sc = NULL;
    bf_diag_t d = {0};
    int rc = bf_scenario_load_file(path, opts, &sc, &d);
    if (rc != 0)
        fail_msg("%s: %s", path, d.msg);
    assert_non_null(sc);
    return sc;
}

static bf_scenario_t *load_text_ok(const char *text, const bf_load_opts_t *opts)
{
    bf_scenario_t *sc = NULL;
    bf_diag_t d = {0};
    bf_load_opts_t o = {.base_dir = FIXDIR};
    int rc = bf_scenario_load_text(text, strlen(text), "inline.yaml", opts ? opts : &o, &sc, &d);
    if (rc != 0)
        fail_msg("inline: %s", d.msg);
    return sc;
}

static void load_text_err(const char *text, const char *want_prefix, const char *want_sub)
{
    bf_scenario_t *sc = NULL;
    bf_diag_t d = {0};
    bf_load_opts_t o = {.base_dir = FIXDIR};
    int rc = bf_scenario_load_text(text, strlen(text), "inline.yaml", &o, &sc, &d);
    assert_int_not_equal(rc, 0);
    assert_null(sc);
    if (strncmp(d.msg, want_prefix, strlen(want_prefix)) != 0 || !strstr(d.msg, want_sub))
        fail_msg("got '%s', want prefix '%s' and '%s'", d.msg, want_prefix, want_sub);
}

/* Headers bulkfleet sets itself are refused in target.headers (a second Content-Type makes a
 * cluster answer 406), with file:line:column and the key that sets them; request.media_type
 * elasticsearch8 selects Elasticsearch 8's versioned media types. */
static void test_headers_owned_by_bulkfleet(void **state)
{
    (void)state;
    static const char *const head = "name: h\ntarget:\n  hosts: [http://127.0.0.1:9200]\n";
    static const char *const tail = "index: {name: t}\ndocument: {source: '{\"a\": 1}'}\n"
                                    "matrix: {batch_size: [10], concurrency: [1]}\n";
    static const struct {
        const char *hdr, *sub;
    } bad[] = {
        {"content-type: application/json", "Content-Type is set by bulkfleet; remove it and use "
                                           "request.media_type"},
        {"Accept: application/json", "request.media_type"},
        {"Content-Encoding: gzip", "request.compression"},
        {"Transfer-Encoding: chunked", "Transfer-Encoding is set by bulkfleet"},
    };
    char text[1024];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(text, sizeof text, "%s  headers: {%s}\n%s", head, bad[i].hdr, tail);
        load_text_err(text, "inline.yaml:4:13: ", bad[i].sub);
    }
    snprintf(text, sizeof text,
             "%s  auth: {username: u, password: p}\n  headers: "
             "{Authorization: x}\n%s",
             head, tail);
    load_text_err(text, "inline.yaml:5:13: ", "Authorization is set by target.auth");
    /* without target.auth an Authorization header is the user's own */
    snprintf(text, sizeof text, "%s  headers: {Authorization: x, X-Opaque-Id: b}\n%s", head, tail);
    bf_scenario_t *sc = load_text_ok(text, NULL);
    assert_int_equal(bf_scenario_target(sc)->nheaders, 2);
    assert_false(bf_scenario_request(sc)->media_type_es8);
    bf_scenario_destroy(&sc);
    snprintf(text, sizeof text, "%srequest: {media_type: elasticsearch8}\n%s", head, tail);
    sc = load_text_ok(text, NULL);
    assert_true(bf_scenario_request(sc)->media_type_es8);
    bf_scenario_destroy(&sc);
}

/* ---- examples ------------------------------------------------------------------------------ */

static void test_examples_validate(void **state)
{
    (void)state;
    setenv("ES_PASSWORD", "example-secret", 1);
    const char *ex[] = {"quickstart.yaml", "shard-study.yaml", "nginx-logs.yaml"};
    for (size_t i = 0; i < 3; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", EXDIR, ex[i]);
        bf_scenario_t *sc = load_ok(path, NULL);
        assert_true(bf_scenario_cell_count(sc) >= 1);
        assert_int_equal(bf_scenario_warning_count(sc), 0);
        bf_scenario_destroy(&sc);
        assert_null(sc);
    }
    unsetenv("ES_PASSWORD");
}

static void test_quickstart_shape(void **state)
{
    (void)state;
    unsetenv("BF_TARGET");
    bf_scenario_t *sc = load_ok(EXDIR "/quickstart.yaml", NULL);
    /* shards {1,2} x batch_size {500,2000} x concurrency {2,4}; first axis outermost */
    static const char *ids[] = {
        "i1-s1-r0-b500-c2",  "i1-s1-r0-b500-c4",  "i1-s1-r0-b2000-c2", "i1-s1-r0-b2000-c4",
        "i1-s2-r0-b500-c2",  "i1-s2-r0-b500-c4",  "i1-s2-r0-b2000-c2", "i1-s2-r0-b2000-c4",
    };
    assert_int_equal(bf_scenario_cell_count(sc), 8);
    assert_int_equal(bf_scenario_axis_count(sc), 3);
    assert_string_equal(bf_scenario_axis_name(sc, 0), "shards");
    assert_string_equal(bf_scenario_axis_name(sc, 1), "batch_size");
    assert_string_equal(bf_scenario_axis_name(sc, 2), "concurrency");
    for (size_t i = 0; i < 8; i++) {
        const bf_cell_t *c = bf_scenario_cell(sc, i);
        assert_string_equal(c->id, ids[i]);
        assert_int_equal(c->index, i);
        assert_int_equal(c->replicas, 0);
        assert_ptr_equal(bf_scenario_find_cell(sc, ids[i]), c);
    }
    assert_null(bf_scenario_cell(sc, 8));
    const bf_target_t *t = bf_scenario_target(sc);
    assert_int_equal(t->nhosts, 1);
    assert_string_equal(t->hosts[0], "http://127.0.0.1:9200");
    const bf_document_spec_t *d = bf_scenario_document(sc);
    assert_int_equal(d->action, BF_ACTION_CREATE);
    assert_string_equal(d->id, "$[[id]]");
    const bf_run_spec_t *r = bf_scenario_run(sc);
    assert_int_equal(r->warmup_ms, 5000);
    assert_int_equal(r->duration_ms, 10000);
    assert_int_equal(r->seed, 42);
    assert_int_equal(r->seed_set, 1);
    size_t doc = bf_scenario_doc_bytes(sc);
    assert_true(doc >= 300 && doc <= 600);
    /* files: the dictionary and the mappings, content-addressed */
    assert_int_equal(bf_scenario_file_count(sc), 2);
    for (size_t i = 0; i < 2; i++) {
        const bf_scenario_file_t *f = bf_scenario_file(sc, i);
        char hex[65];
        bf_sha256_hex(f->data, f->len, hex);
        assert_string_equal(hex, f->sha256_hex);
    }
    bf_scenario_destroy(&sc);
}

static void test_sha256_known(void **state)
{
    (void)state;
    char hex[65];
    bf_sha256_hex("abc", 3, hex);
    assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

static void test_target_env_override(void **state)
{
    (void)state;
    setenv("BF_TARGET", "https://search.example:9243/", 1);
    bf_scenario_t *sc = load_ok(EXDIR "/quickstart.yaml", NULL);
    assert_string_equal(bf_scenario_target(sc)->hosts[0], "https://search.example:9243");
    bf_scenario_destroy(&sc);
    setenv("BF_TARGET", "", 1); /* empty counts as unset for ${VAR:-default} */
    sc = load_ok(EXDIR "/quickstart.yaml", NULL);
    assert_string_equal(bf_scenario_target(sc)->hosts[0], "http://127.0.0.1:9200");
    bf_scenario_destroy(&sc);
    unsetenv("BF_TARGET");
}

/* ---- one test per mistake kind: exact file:line:column -------------------------------------- */

static void expect_error(const char *file, const char *loc, const char *sub)
{
    char path[512], want[600];
    snprintf(path, sizeof path, "%s/%s", FIXDIR, file);
    if (loc[0] == '@')
        snprintf(want, sizeof want, "%s: ", loc + 1); /* another file, as written */
    else
        snprintf(want, sizeof want, "%s:%s: ", path, loc);
    bf_scenario_t *sc = NULL;
    bf_diag_t d = {0};
    int rc = bf_scenario_load_file(path, NULL, &sc, &d);
    assert_int_not_equal(rc, 0);
    assert_null(sc);
    assert_int_equal(d.code, rc);
    if (strncmp(d.msg, want, strlen(want)) != 0 || strstr(d.msg, sub) == NULL)
        fail_msg("%s: got '%s'\nwant prefix '%s' and '%s'", file, d.msg, want, sub);
}

#define ERROR_TEST(name, file, loc, sub)                                                          \
    static void test_err_##name(void **state)                                                     \
    {                                                                                             \
        (void)state;                                                                              \
        expect_error(file, loc, sub);                                                             \
    }

ERROR_TEST(unknown_key, "err_unknown_key.yaml", "6:3", "index.setings: unknown key; did you mean 'settings'?")
ERROR_TEST(wrong_type, "err_wrong_type.yaml", "5:13", "index.recreate: expected true or false, got 'maybe'")
ERROR_TEST(bad_duration, "err_bad_duration.yaml", "11:13", "run.duration: expected a duration")
ERROR_TEST(bad_count, "err_bad_count.yaml", "9:20", "run.target_rate: expected a rate")
ERROR_TEST(empty_axis, "err_empty_axis.yaml", "11:15", "matrix.batch_size: empty list")
ERROR_TEST(missing_dict, "err_missing_dict.yaml", "7:11", "cannot read dictionary")
ERROR_TEST(missing_mappings, "err_missing_mappings.yaml", "5:18", "cannot read mappings file")
ERROR_TEST(tls_not_pem, "err_tls_not_pem.yaml", "4:18", "is not a PEM file")
ERROR_TEST(unknown_placeholder, "err_unknown_placeholder.yaml", "8:37",
           "$[[lines]] names no variable; did you mean $[[line]]?")
ERROR_TEST(invalid_json, "err_invalid_json.yaml", "9:48", "does not render valid JSON")
ERROR_TEST(duplicate_json_key, "err_duplicate_json_key.yaml", "8:49", "duplicate object key")
ERROR_TEST(body_too_big, "err_body_too_big.yaml", "9:22", "over the 100.0 MiB")
ERROR_TEST(env_missing, "err_env_missing.yaml", "6:18",
           "environment variable BF_TEST_SURELY_UNSET_VAR is not set")
ERROR_TEST(yaml_syntax, "err_yaml_syntax.yaml", "6:10", "YAML syntax error")
ERROR_TEST(missing_required, "err_missing_required.yaml", "1:1", "missing required key 'target'")
ERROR_TEST(bad_enum, "err_enum.yaml", "10:16", "did you mean 'gzip'?")
ERROR_TEST(filter_path, "err_filter_path.yaml", "10:16", "drops items.*.status")
ERROR_TEST(mappings_json, "err_mappings_json.yaml", "@mappings/bad.json:3:30",
           "invalid JSON")
ERROR_TEST(duplicate_variable, "err_duplicate_var.yaml", "7:12", "variable 'id' is already defined")
ERROR_TEST(exclude_value, "err_exclude_value.yaml", "13:16", "is not among the axis values")
ERROR_TEST(unknown_axis, "err_unknown_axis.yaml", "10:3", "unknown axis; did you mean 'shards'?")
ERROR_TEST(index_name_rules, "err_index_name.yaml", "5:9", "must be lowercase")
ERROR_TEST(index_placeholder, "err_index_placeholder.yaml", "5:15", "unknown placeholder {shard}")
ERROR_TEST(key_not_for_type, "err_var_key_type.yaml", "5:32", "not used by type sequence")
ERROR_TEST(duplicate_yaml_key, "err_duplicate_yaml_key.yaml", "11:3", "duplicate key 'duration'")
ERROR_TEST(source_file_json, "err_source_file_json.yaml", "@bad-source.json:4:3",
           "does not render valid JSON")
ERROR_TEST(range_bounds, "err_range_bounds.yaml", "7:42", "from (10) is greater than to (5)")
ERROR_TEST(bad_url, "err_bad_url.yaml", "5:7", "is not a URL")
/* libcurl refuses it at every request (it was accepted and every bulk request failed) */
ERROR_TEST(bad_url_bracket, "err_bad_url_bracket.yaml", "5:7", "is not a URL libcurl can use")

static void test_warn_replicas(void **state)
{
    (void)state;
    bf_load_opts_t o = {.cluster_nodes = 1};
    bf_scenario_t *sc = load_ok(FIXDIR "/warn_replicas.yaml", &o);
    assert_int_equal(bf_scenario_warning_count(sc), 1);
    const char *w = bf_scenario_warning(sc, 0);
    char want[512];
    snprintf(want, sizeof want, "%s/warn_replicas.yaml:10:17: ", FIXDIR);
    assert_null(strstr(w, "warning:")); /* bf_warn adds it once when printed */
    assert_memory_equal(w, want, strlen(want));
    assert_non_null(strstr(w, "1 replica needs 2 data nodes"));
    bf_scenario_destroy(&sc);
    /* enough nodes, or unknown: no warning */
    o.cluster_nodes = 2;
    sc = load_ok(FIXDIR "/warn_replicas.yaml", &o);
    assert_int_equal(bf_scenario_warning_count(sc), 0);
    bf_scenario_destroy(&sc);
    sc = load_ok(FIXDIR "/warn_replicas.yaml", NULL);
    assert_int_equal(bf_scenario_warning_count(sc), 0);
    bf_scenario_destroy(&sc);
}

static void test_inline_errors(void **state)
{
    (void)state;
    load_text_err("", "inline.yaml:1:1: ", "empty");
    load_text_err("- a\n- b\n", "inline.yaml:1:1: ", "mapping");
    load_text_err("name: x\n---\nname: y\n", "inline.yaml:2:1: ", "one YAML document");
    load_text_err("name: &a x\nother: *a\n", "inline.yaml:2:8: ", "aliases");
    load_text_err("name: x\ntarget: {hosts: [http://h:9200], auth: {username: u, password: "
                  "\"${BF_NOPE_X}\"}}\n",
                  "inline.yaml:2:", "BF_NOPE_X is not set");
    /* unquoted ${...} in a flow mapping: YAML syntax, with a hint */
    load_text_err("name: x\ntarget: {hosts: [http://h:9200], auth: {username: u, password: "
                  "${BF_NOPE_X}}}\n",
                  "inline.yaml:2:", "quote values holding ${VAR}");
    load_text_err("name: x y\n", "inline.yaml:1:7: ", "not file-name safe");
    load_text_err("name: x\ntarget: {hosts: [http://h:9200], auth: {username: u}}\n"
                  "document: {source: '{}'}\n",
                  "inline.yaml:2:", "username and password go together");
    load_text_err("name: x\ntarget: {hosts: [http://h:9200], auth: {api_key: k, bearer: b}}\n"
                  "document: {source: '{}'}\n",
                  "inline.yaml:2:", "only one of them");
    load_text_err("name: x\ntarget: {hosts: [http://h:9200]}\ndocument: {source: '[1, 2]'}\n",
                  "inline.yaml:3:", "must be a JSON object");
    load_text_err("name: x\ntarget: {hosts: [http://h:9200]}\ndocument: {}\n", "inline.yaml:3:11: ",
                  "needs source");
    load_text_err("name: x\ntarget: {hosts: [http://h:9200]}\ndocument: {source: '{}'}\n"
                  "variables:\n  - {name: a, type: sequense}\n",
                  "inline.yaml:5:21: ", "did you mean 'sequence'?");
    load_text_err("name: x\ntarget: {hosts: [http://h:9200]}\ndocument: {source: '{}'}\n"
                  "variables:\n  - {name: a, type: random_array, variable_key: b}\n",
                  "inline.yaml:5:49: ", "no variable named 'b'");
    load_text_err("name: x\ntarget: {hosts: [http://h:9200]}\n"
                  "document: {source: '{\"a\": $[[env.HOME]]}'}\n",
                  "inline.yaml:3:", "write ${HOME} instead");
    load_text_err("name: x\ntarget: {hosts: [http://h:9200]}\ndocument: {source: '{}'}\n"
                  "index: {name: 'bench-$[[x]]'}\n",
                  "inline.yaml:4:", "$[[...]] placeholders are for documents");
    load_text_err("name: x\ntarget: {hosts: [http://h:9200]}\ndocument: {source: '{}'}\n"
                  "matrix: {shards: [1, 2], include: [{shardz: 3}]}\n",
                  "inline.yaml:4:37: ", "did you mean 'shards'?");
    load_text_err("name: x\ntarget: {hosts: [http://h:9200]}\ndocument: {source: '{}'}\n"
                  "matrix: {shards: [1, 1]}\n",
                  "inline.yaml:4:22: ", "listed twice (first at 4:19)");
    load_text_err("name: x\ntarget: {hosts: [http://h:9200]}\ndocument: {source: '{}'}\n"
                  "matrix: {batch_size: [500, 2k, 2000]}\n",
                  "inline.yaml:4:32: ", "'2000' is listed twice: it equals '2k' at 4:28");
    load_text_err("name: x\ntarget: {hosts: [http://h:9200]}\ndocument: {source: '{}'}\n"
                  "run: {duration: 10 sec}\n",
                  "inline.yaml:4:17: ", "got '10 sec'; did you mean 10s?");
    load_text_err("name: x\ntarget: {hosts: [http://h:9200]}\ndocument: {source: '{}'}\n"
                  "run: {concurrency: 4}\n",
                  "inline.yaml:4:7: ", "unknown key (it is loadgen's); concurrency is a matrix axis");
    load_text_err("name: x\ntarget: {hosts: [http://h:9200]}\ndocument: {source: '{}'}\n"
                  "runner: {total_rounds: 1}\n",
                  "inline.yaml:4:1: ", "replace runner:");
    load_text_err("name: x\ntarget: {hosts: [http://h:9200], auth: {username: u, password: "
                  "'$[[env.ES_PASSWORD]]'}}\ndocument: {source: '{}'}\n",
                  "inline.yaml:2:65: ", "write ${ES_PASSWORD} instead");
    load_text_err("name: x\ntarget:\n\thosts: [http://h:9200]\n",
                  "inline.yaml:3:1: ", "this is a tab: YAML indents with spaces only");
    load_text_err("name: x\ntarget: {hosts: [http://h:9200]}\ndocument: {source: '{}'}\n"
                  "matrix: {shards: [0]}\n",
                  "inline.yaml:4:19: ", "from 1 to 1024");
    load_text_err("name: x\ntarget: {hosts: [http://h:9200]}\ndocument: {source: '{}'}\n"
                  "matrix: {shards: [1, 2], exclude: [{shards: 1}, {shards: 2}]}\n",
                  "inline.yaml:4:", "removes every cell");
    load_text_err("name: x\ntarget: {hosts: [http://h:9200]}\ndocument: {source: '{}'}\n"
                  "variables:\n  - {name: s, type: sequence, from: 0, to: 1, wrap: false}\n"
                  "  - {name: t, type: list, data: []}\n",
                  "inline.yaml:6:", "data is empty");
}

/* ---- ${VAR} ---------------------------------------------------------------------------------- */

static const char *ENV_SCN =
    "name: ${BF_T_NAME}\n"
    "target:\n"
    "  hosts: [\"${BF_T_HOST:-http://127.0.0.1:9200}\"]\n"
    "  auth: {username: \"${BF_T_USER:-admin}\", password: \"${BF_T_PW}\"}\n"
    "index: {name: 'idx-${BF_T_SUFFIX:-}x'}\n"
    "document: {source: '{\"price\": \"$${notenv}\"}'}\n"
    "run: {duration: \"${BF_T_DUR:-60s}\"}\n";

static void test_env_set_and_defaults(void **state)
{
    (void)state;
    setenv("BF_T_NAME", "env-test", 1);
    setenv("BF_T_PW", "s3cr3t", 1);
    unsetenv("BF_T_HOST");
    unsetenv("BF_T_USER");
    setenv("BF_T_DUR", "2m", 1);
    bf_scenario_t *sc = load_text_ok(ENV_SCN, NULL);
    assert_string_equal(bf_scenario_name(sc), "env-test");
    const bf_target_t *t = bf_scenario_target(sc);
    assert_string_equal(t->hosts[0], "http://127.0.0.1:9200");
    assert_int_equal(t->auth, BF_AUTH_BASIC);
    assert_string_equal(t->username, "admin");
    assert_string_equal(t->password, "s3cr3t");
    assert_string_equal(bf_scenario_index(sc)->name, "idx-x");
    assert_string_equal(bf_scenario_document(sc)->source, "{\"price\": \"${notenv}\"}");
    assert_int_equal(bf_scenario_run(sc)->duration_ms, 120000);
    bf_scenario_destroy(&sc);
    unsetenv("BF_T_DUR");
}

static void test_env_missing_position(void **state)
{
    (void)state;
    setenv("BF_T_NAME", "env-test", 1);
    unsetenv("BF_T_PW");
    load_text_err(ENV_SCN, "inline.yaml:4:54: ", "environment variable BF_T_PW is not set");
    setenv("BF_T_PW", "x", 1);
    load_text_err("name: a\nother: '${1BAD}'\n", "inline.yaml:2:9: ", "must be followed by");
    load_text_err("name: a\nother: 'x ${UNTERMINATED'\n", "inline.yaml:2:11: ", "unterminated");
}

static void test_env_no_env_keeps_text(void **state)
{
    (void)state;
    unsetenv("BF_T_UNSET_FOR_NO_ENV");
    const char *text = "name: ne\ntarget:\n  hosts: [http://127.0.0.1:9200]\n"
                       "  auth: {username: u, password: \"${BF_T_UNSET_FOR_NO_ENV}\"}\n"
                       "document: {source: '{}'}\n";
    bf_load_opts_t o = {.no_env = 1};
    bf_scenario_t *sc = load_text_ok(text, &o);
    assert_string_equal(bf_scenario_target(sc)->password, "${BF_T_UNSET_FOR_NO_ENV}");
    bf_scenario_destroy(&sc);
}

/* ---- matrix -------------------------------------------------------------------------------- */

static void test_matrix_include_exclude_settings(void **state)
{
    (void)state;
    const char *text =
        "name: m\ntarget: {hosts: [http://127.0.0.1:9200]}\n"
        "index:\n  name: b-{shards}-{refresh_interval}-{i}\n  count: 2\n"
        "  settings: {index: {refresh_interval: 30s}, number_of_replicas: 1, "
        "index.translog.durability: async, analysis: {analyzer: {a: {type: standard}}}}\n"
        "document: {source: '{}'}\n"
        "request: {compression: gzip}\n"
        "matrix:\n"
        "  shards: [1, 2]\n"
        "  settings.refresh_interval: [1s, \"-1\"]\n"
        "  batch_size: 500\n"
        "  exclude:\n    - {shards: 2, settings.refresh_interval: \"-1\"}\n"
        "  include:\n    - {shards: 4, concurrency: 16, compression: none}\n"
        "    - {shards: 1, settings.refresh_interval: 1s}\n"; /* repeats cell 0: ignored */
    bf_scenario_t *sc = load_text_ok(text, NULL);
    assert_int_equal(bf_scenario_cell_count(sc), 4);
    assert_int_equal(bf_scenario_warning_count(sc), 1); /* the repeated include */
    assert_int_equal(bf_scenario_axis_count(sc), 4);
    assert_string_equal(bf_scenario_axis_name(sc, 0), "shards");
    assert_string_equal(bf_scenario_axis_name(sc, 1), "settings.refresh_interval");
    assert_string_equal(bf_scenario_axis_name(sc, 2), "concurrency");
    assert_string_equal(bf_scenario_axis_name(sc, 3), "compression");
    const bf_cell_t *c0 = bf_scenario_cell(sc, 0), *c1 = bf_scenario_cell(sc, 1),
                    *c2 = bf_scenario_cell(sc, 2), *c3 = bf_scenario_cell(sc, 3);
    assert_string_equal(c0->id, "i2-s1-r1-b500-c1-gzip-refresh_interval_1s");
    assert_string_equal(c1->id, "i2-s1-r1-b500-c1-gzip-refresh_interval__1");
    assert_string_equal(c2->id, "i2-s2-r1-b500-c1-gzip-refresh_interval_1s");
    assert_string_equal(c3->id, "i2-s4-r1-b500-c16-none");
    assert_int_equal(c0->indices, 2);
    assert_string_equal(c0->index_names[0], "b-1-1s-0");
    assert_string_equal(c0->index_names[1], "b-1-1s-1");
    assert_string_equal(c3->index_names[1], "b-4--1");
    assert_int_equal(c3->compression, BF_COMPRESS_NONE);
    assert_int_equal(c0->compression, BF_COMPRESS_GZIP);
    assert_int_equal(c3->concurrency, 16);
    assert_int_equal(c0->batch_size, 500);
    assert_int_equal(c0->replicas, 1); /* from index.settings number_of_replicas */
    assert_string_equal(c3->axes[1].value, "");
    assert_string_equal(c1->axes[1].value, "-1");
    /* settings: merged, nested under "index", valid for PUT /<index> */
    json_error_t je;
    json_t *s = json_loads(c1->settings_json, 0, &je);
    assert_non_null(s);
    json_t *ix = json_object_get(s, "index");
    assert_int_equal(json_integer_value(json_object_get(ix, "number_of_shards")), 1);
    assert_int_equal(json_integer_value(json_object_get(ix, "number_of_replicas")), 1);
    assert_string_equal(json_string_value(json_object_get(ix, "refresh_interval")), "-1");
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(ix, "translog"), "durability")), "async");
    assert_non_null(json_object_get(json_object_get(ix, "analysis"), "analyzer"));
    json_decref(s);
    s = json_loads(c3->settings_json, 0, &je);
    ix = json_object_get(s, "index");
    assert_string_equal(json_string_value(json_object_get(ix, "refresh_interval")), "30s");
    assert_int_equal(json_integer_value(json_object_get(ix, "number_of_shards")), 4);
    json_decref(s);
    bf_scenario_destroy(&sc);
}

/* YAML integers become JSON integers with every digit across the whole int64 range (they
 * stopped at 18 digits and then turned into strings); beyond int64 the text stays a string,
 * never a rounded double. */
static void test_big_integers(void **state)
{
    (void)state;
    bf_scenario_t *sc = load_text_ok(
        "name: big\ntarget: {hosts: [http://h:9200]}\ndocument: {source: '{}'}\n"
        "index:\n  settings: {a: 9223372036854775807, b: -9223372036854775808, "
        "c: 1234567890123456789, d: 99999999999999999999}\n", NULL);
    json_error_t je;
    json_t *s = json_loads(bf_scenario_cell(sc, 0)->settings_json, 0, &je);
    assert_non_null(s);
    json_t *ix = json_object_get(s, "index");
    assert_true(json_is_integer(json_object_get(ix, "a")));
    assert_true(json_integer_value(json_object_get(ix, "a")) == INT64_MAX);
    assert_true(json_integer_value(json_object_get(ix, "b")) == INT64_MIN);
    assert_true(json_integer_value(json_object_get(ix, "c")) == 1234567890123456789LL);
    assert_string_equal(json_string_value(json_object_get(ix, "d")), "99999999999999999999");
    json_decref(s);
    bf_scenario_destroy(&sc);
}

/* opts.env_unset: an unset ${VAR} without default takes that value instead of failing (what
 * import-loadgen uses to check a file before the user exports its password) */
static void test_env_unset_stand_in(void **state)
{
    (void)state;
    unsetenv("BF_TEST_NEVER_SET");
    const char *text = "name: x\ntarget: {hosts: [http://h:9200], auth: {username: u, password: "
                       "'${BF_TEST_NEVER_SET}'}}\ndocument: {source: '{}'}\n";
    load_text_err(text, "inline.yaml:2:", "BF_TEST_NEVER_SET is not set");
    bf_load_opts_t o = {.base_dir = FIXDIR, .env_unset = "stand-in"};
    bf_scenario_t *sc = load_text_ok(text, &o);
    assert_string_equal(bf_scenario_target(sc)->password, "stand-in");
    bf_scenario_destroy(&sc);
}

static void test_matrix_defaults_no_matrix(void **state)
{
    (void)state;
    bf_scenario_t *sc = load_text_ok("name: d\ntarget: {hosts: http://127.0.0.1:9200/}\n"
                                     "document: {source: '{}'}\n", NULL);
    assert_int_equal(bf_scenario_cell_count(sc), 1);
    assert_int_equal(bf_scenario_axis_count(sc), 0);
    const bf_cell_t *c = bf_scenario_cell(sc, 0);
    assert_string_equal(c->id, "i1-s1-r0-b1000-c1");
    assert_string_equal(c->index_names[0], "d");
    assert_int_equal(c->shards, 1);
    assert_int_equal(c->batch_size, 1000);
    assert_int_equal(c->concurrency, 1);
    assert_null(c->axes);
    const bf_request_spec_t *r = bf_scenario_request(sc);
    assert_int_equal(r->timeout_ms, 60000);
    assert_int_equal(r->gzip_level, 1);
    assert_null(r->filter_path);
    assert_int_equal(bf_scenario_run(sc)->warmup_ms, 10000);
    assert_int_equal(bf_scenario_run(sc)->duration_ms, 60000);
    assert_int_equal(bf_scenario_run(sc)->repeat, 1);
    assert_int_equal(bf_scenario_run(sc)->seed_set, 0);
    assert_true(bf_scenario_index(sc)->recreate);
    assert_string_equal(bf_scenario_target(sc)->hosts[0], "http://127.0.0.1:9200");
    bf_scenario_destroy(&sc);
}

/* metrics_store: is built like target (auth, TLS, their checks), with its own
 * settings and defaults; its secrets are redacted; tls.insecure warns without the target's
 * "every row is flagged" (the store measures nothing). */
static void test_metrics_store_section(void **state)
{
    (void)state;
    setenv("BF_TEST_MS_PW", "s3cret-ms", 1);
    bf_scenario_t *sc = load_text_ok(
        "name: m\ntarget: {hosts: [http://127.0.0.1:9200]}\ndocument: {source: '{}'}\n"
        "metrics_store:\n  hosts: [https://store:9200/]\n  auth: {username: u, password: "
        "\"${BF_TEST_MS_PW}\"}\n  tls: {ca_file: ca.pem, insecure: true}\n"
        "  allow_target: true\n  flush_wait: 3s\n  buffer_docs: 2k\n",
        NULL);
    bf_metrics_store_opts_t o;
    const bf_target_t *t = bf_scenario_metrics_store(sc, &o);
    assert_non_null(t);
    assert_int_equal(t->nhosts, 1);
    assert_string_equal(t->hosts[0], "https://store:9200");
    assert_int_equal(t->auth, BF_AUTH_BASIC);
    assert_string_equal(t->password, "s3cret-ms");
    assert_non_null(t->ca_pem.data);
    assert_int_equal(o.allow_target, 1);
    assert_int_equal(o.flush_wait_ms, 3000);
    assert_int_equal(o.buffer_docs, 2000);
    assert_null(strstr(bf_scenario_redacted_text(sc), "s3cret-ms"));
    int warned = 0;
    for (size_t i = 0; i < bf_scenario_warning_count(sc); i++) {
        const char *w = bf_scenario_warning(sc, i);
        if (strstr(w, "metrics_store.tls.insecure")) {
            warned = 1;
            assert_null(strstr(w, "flagged"));
        }
    }
    assert_true(warned);
    bf_scenario_destroy(&sc);
    /* absent: NULL, and the defaults */
    sc = load_text_ok(
        "name: m\ntarget: {hosts: [http://127.0.0.1:9200]}\ndocument: {source: '{}'}\n", NULL);
    assert_null(bf_scenario_metrics_store(sc, &o));
    assert_int_equal(o.allow_target, 0);
    assert_int_equal(o.flush_wait_ms, 10000);
    assert_int_equal(o.buffer_docs, 50000);
    bf_scenario_destroy(&sc);
    load_text_err("name: m\ntarget: {hosts: [http://127.0.0.1:9200]}\ndocument: {source: '{}'}\n"
                  "metrics_store: {hosts: [http://s:9200], auth: {username: u}}\n",
                  "inline.yaml:4:", "metrics_store.auth: username and password go together");
    load_text_err("name: m\ntarget: {hosts: [http://127.0.0.1:9200]}\ndocument: {source: '{}'}\n"
                  "metrics_store: {allow_target: true}\n",
                  "inline.yaml:4:", "hosts");
}

static void test_request_and_target_options(void **state)
{
    (void)state;
    bf_scenario_t *sc = load_text_ok(
        "name: r\ntarget:\n  hosts: [https://a:9200, https://b:9200]\n  auth: {api_key: "
        "\"aWQ6a2V5\"}\n  tls: {ca_file: ca.pem, insecure: true}\n  headers: {X-Opaque-Id: bench}\n"
        "document: {source: '{}', action: index, pipeline: p1}\n"
        "request: {filter_path: true, retry: {max: 3, backoff: 250ms}, gzip_level: 6, timeout: 5s}\n"
        "run: {target_rate: 10k, agents: 3, seed: 7, repeat: 2}\n"
        "index:\n  mappings_file: mappings/ok.json\n  template: {name: tpl, body: {index_patterns: "
        "[\"r*\"], template: {settings: {number_of_replicas: 0}}}}\n", NULL);
    const bf_target_t *t = bf_scenario_target(sc);
    assert_int_equal(t->nhosts, 2);
    assert_int_equal(t->auth, BF_AUTH_APIKEY);
    assert_string_equal(t->api_key, "aWQ6a2V5");
    assert_string_equal(t->ca_file, "ca.pem");
    /* the file's content is loaded (relative to the scenario's folder) for libcurl and the agents */
    assert_non_null(t->ca_pem.data);
    assert_true(t->ca_pem.len > 100);
    assert_memory_equal(t->ca_pem.data, "-----BEGIN CERTIFICATE-----", 27);
    assert_int_equal(t->tls_insecure, 1);
    assert_int_equal(t->nheaders, 1);
    assert_string_equal(t->headers[0], "X-Opaque-Id: bench");
    const bf_request_spec_t *r = bf_scenario_request(sc);
    assert_string_equal(r->filter_path,
                        "errors,items.*.status,items.*.error.type,items.*.error.reason");
    assert_int_equal(r->retry_429_max, 3);
    assert_int_equal(r->retry_backoff_ms, 250);
    assert_int_equal(r->gzip_level, 6);
    assert_int_equal(r->timeout_ms, 5000);
    const bf_run_spec_t *run = bf_scenario_run(sc);
    assert_true(run->target_rate == 10000.0);
    assert_int_equal(run->agents, 3);
    assert_int_equal(run->repeat, 2);
    assert_int_equal(bf_scenario_cell(sc, 0)->target_rate, 10000);
    const bf_index_spec_t *ix = bf_scenario_index(sc);
    /* {"mappings": {...}} in a file is unwrapped */
    assert_string_equal(ix->mappings_json,
                        "{\"properties\":{\"id\":{\"type\":\"long\"},\"line\":{\"type\":\"text\"}}}");
    assert_string_equal(ix->template_name, "tpl");
    assert_non_null(strstr(ix->template_json, "\"index_patterns\":[\"r*\"]"));
    assert_string_equal(bf_scenario_document(sc)->pipeline, "p1");
    bf_scenario_destroy(&sc);
}

static void test_filter_path_patterns(void **state)
{
    (void)state;
    const char *ok[] = {"items.*.status", "took,items.*.status", "items", "items.**",
                        "**.status", "errors,items.*.*", "items.*"};
    const char *bad[] = {"took", "items.*.error", "items.*.status,-items.*.status",
                         "items,-items.*.status", "errors,items.index.status"};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        char text[512];
        snprintf(text, sizeof text, "name: f\ntarget: {hosts: [http://h:9200]}\n"
                 "document: {source: '{}'}\nrequest: {filter_path: \"%s\"}\n", ok[i]);
        bf_scenario_t *sc = load_text_ok(text, NULL);
        assert_string_equal(bf_scenario_request(sc)->filter_path, ok[i]);
        bf_scenario_destroy(&sc);
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[512];
        snprintf(text, sizeof text, "name: f\ntarget: {hosts: [http://h:9200]}\n"
                 "document: {source: '{}'}\nrequest: {filter_path: \"%s\"}\n", bad[i]);
        load_text_err(text, "inline.yaml:4:", "drops items.*.status");
    }
}

/* ---- resolved text round trip and redaction ------------------------------------------------- */

/* Serves the files of a loaded scenario (what the coordinator ships in Prepare). */
static int serve_files(void *ctx, const char *path, char **data, size_t *len)
{
    const bf_scenario_t *sc = ctx;
    for (size_t i = 0; i < bf_scenario_file_count(sc); i++) {
        const bf_scenario_file_t *f = bf_scenario_file(sc, i);
        if (strcmp(f->path, path) == 0) {
            *data = bf_malloc(f->len ? f->len : 1);
            memcpy(*data, f->data, f->len);
            *len = f->len;
            return 0;
        }
    }
    return BF_E_NOTFOUND;
}

static void assert_same_scenario(const bf_scenario_t *a, const bf_scenario_t *b)
{
    assert_string_equal(bf_scenario_name(a), bf_scenario_name(b));
    assert_int_equal(bf_scenario_cell_count(a), bf_scenario_cell_count(b));
    assert_int_equal(bf_scenario_axis_count(a), bf_scenario_axis_count(b));
    for (size_t i = 0; i < bf_scenario_cell_count(a); i++) {
        const bf_cell_t *x = bf_scenario_cell(a, i), *y = bf_scenario_cell(b, i);
        assert_string_equal(x->id, y->id);
        assert_string_equal(x->settings_json, y->settings_json);
        assert_int_equal(x->indices, y->indices);
        for (uint32_t k = 0; k < x->indices; k++)
            assert_string_equal(x->index_names[k], y->index_names[k]);
        assert_int_equal(x->batch_size, y->batch_size);
        assert_int_equal(x->concurrency, y->concurrency);
        for (size_t k = 0; k < x->naxes; k++)
            assert_string_equal(x->axes[k].value, y->axes[k].value);
    }
    const bf_target_t *ta = bf_scenario_target(a), *tb = bf_scenario_target(b);
    assert_int_equal(ta->nhosts, tb->nhosts);
    assert_string_equal(ta->hosts[0], tb->hosts[0]);
    assert_int_equal(ta->auth, tb->auth);
    if (ta->password)
        assert_string_equal(ta->password, tb->password);
    const bf_document_spec_t *da = bf_scenario_document(a), *db = bf_scenario_document(b);
    assert_string_equal(da->source, db->source);
    assert_int_equal(da->action, db->action);
    assert_int_equal(bf_scenario_variable_count(a), bf_scenario_variable_count(b));
    for (size_t i = 0; i < bf_scenario_variable_count(a); i++) {
        const bf_var_spec_t *va = &bf_scenario_variables(a)[i], *vb = &bf_scenario_variables(b)[i];
        assert_string_equal(va->name, vb->name);
        assert_int_equal(va->type, vb->type);
        assert_int_equal(va->scope, vb->scope);
        assert_int_equal(va->nvalues, vb->nvalues);
    }
    const bf_index_spec_t *ia = bf_scenario_index(a), *ib = bf_scenario_index(b);
    assert_string_equal(ia->settings_json, ib->settings_json);
    if (ia->mappings_json)
        assert_string_equal(ia->mappings_json, ib->mappings_json);
    if (ia->template_json)
        assert_string_equal(ia->template_json, ib->template_json);
    assert_int_equal(bf_scenario_doc_bytes(a) > 0, 1);
    assert_string_equal(bf_scenario_resolved_text(a), bf_scenario_resolved_text(b));
    assert_string_equal(bf_scenario_redacted_text(a), bf_scenario_redacted_text(b));
}

static void round_trip(const char *path)
{
    bf_scenario_t *a = load_ok(path, NULL);
    const char *text = bf_scenario_resolved_text(a);
    assert_null(strstr(text, "${ES_PASSWORD}"));
    bf_load_opts_t o = {.file_provider = serve_files, .file_provider_ctx = a, .no_env = 1};
    bf_scenario_t *b = NULL;
    bf_diag_t d = {0};
    /* agents: no environment, no disk, only the shipped files */
    setenv("ES_PASSWORD", "a-different-one", 1);
    int rc = bf_scenario_load_text(text, strlen(text), "prepare", &o, &b, &d);
    if (rc != 0)
        fail_msg("%s: resolved text does not load: %s\n%s", path, d.msg, text);
    assert_same_scenario(a, b);
    bf_scenario_destroy(&b);
    bf_scenario_destroy(&a);
}

static void test_resolved_round_trip(void **state)
{
    (void)state;
    setenv("ES_PASSWORD", "pa'ss\"w:rd {x}", 1);
    round_trip(EXDIR "/quickstart.yaml");
    setenv("ES_PASSWORD", "pa'ss\"w:rd {x}", 1);
    round_trip(EXDIR "/nginx-logs.yaml");
    setenv("ES_PASSWORD", "#not a comment", 1);
    round_trip(EXDIR "/shard-study.yaml");
    unsetenv("ES_PASSWORD");
    round_trip(FIXDIR "/valid.yaml");
}

static void test_resolved_round_trip_env_edge_values(void **state)
{
    (void)state;
    /* values from the environment that YAML would read differently if written plain */
    const char *vals[] = {"true", "123", "", "- a", "a: b", "~", "'q'", "[x]", "#c", "@at",
                          "multi\nline", "tab\there", "  spaced  "};
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        setenv("BF_T_EDGE", vals[i], 1);
        const char *text = "name: edge\ntarget:\n  hosts: [http://127.0.0.1:9200]\n  headers:\n"
                           "    X-A: ${BF_T_EDGE}\n    X-B: \"${BF_T_EDGE}\"\n"
                           "document:\n  source: '{\"v\": \"x\"}'\n  pipeline: p${BF_T_EDGE}\n";
        bf_scenario_t *a = NULL;
        bf_diag_t d = {0};
        int rc = bf_scenario_load_text(text, strlen(text), "edge.yaml", NULL, &a, &d);
        if (strchr(vals[i], '\n')) {
            /* a header value cannot hold a line break: refused, not smuggled */
            assert_int_not_equal(rc, 0);
            continue;
        }
        if (rc != 0)
            fail_msg("value '%s': %s", vals[i], d.msg);
        bf_load_opts_t o = {.no_env = 1};
        bf_scenario_t *b = NULL;
        const char *rt = bf_scenario_resolved_text(a);
        rc = bf_scenario_load_text(rt, strlen(rt), "prepare", &o, &b, &d);
        if (rc != 0)
            fail_msg("value '%s': %s\n%s", vals[i], d.msg, rt);
        const bf_target_t *ta = bf_scenario_target(a), *tb = bf_scenario_target(b);
        assert_int_equal(ta->nheaders, tb->nheaders);
        for (size_t k = 0; k < ta->nheaders; k++)
            assert_string_equal(ta->headers[k], tb->headers[k]);
        assert_string_equal(bf_scenario_document(a)->pipeline, bf_scenario_document(b)->pipeline);
        assert_string_equal(rt, bf_scenario_resolved_text(b));
        bf_scenario_destroy(&a);
        bf_scenario_destroy(&b);
    }
    unsetenv("BF_T_EDGE");
}

static void test_redaction(void **state)
{
    (void)state;
    setenv("BF_T_PW", "hunter2-pw", 1);
    setenv("BF_T_KEY", "c2VjcmV0LWtleQ==", 1);
    const char *basic = "name: red\ntarget:\n  hosts: [\"https://user:urlpw99@h:9200\"]\n"
                        "  auth: {username: elastic, password: \"${BF_T_PW}\"}\n"
                        "  headers: {X-Token: tok-777, X-Other: \"${BF_T_KEY}\"}\n"
                        "document: {source: '{}'}\n";
    bf_scenario_t *sc = load_text_ok(basic, NULL);
    const char *res = bf_scenario_resolved_text(sc), *red = bf_scenario_redacted_text(sc);
    assert_non_null(strstr(res, "hunter2-pw"));
    assert_non_null(strstr(res, "tok-777"));
    assert_non_null(strstr(res, "urlpw99"));
    const char *secrets[] = {"hunter2-pw", "tok-777", "c2VjcmV0LWtleQ==", "urlpw99", "BF_T_PW"};
    for (size_t i = 0; i < 5; i++)
        if (strstr(red, secrets[i]))
            fail_msg("redacted text holds '%s':\n%s", secrets[i], red);
    assert_non_null(strstr(red, "<redacted>"));
    assert_non_null(strstr(red, "elastic")); /* user names are not secrets */
    assert_non_null(strstr(red, "https://user:<redacted>@h:9200"));
    bf_scenario_destroy(&sc);
    const char *keys[] = {"api_key: \"${BF_T_KEY}\"", "bearer: \"${BF_T_KEY}\""};
    for (size_t i = 0; i < 2; i++) {
        char text[512];
        snprintf(text, sizeof text, "name: red\ntarget:\n  hosts: [http://h:9200]\n  auth: {%s}\n"
                 "document: {source: '{}'}\n", keys[i]);
        sc = load_text_ok(text, NULL);
        assert_null(strstr(bf_scenario_redacted_text(sc), "c2VjcmV0LWtleQ=="));
        assert_non_null(strstr(bf_scenario_resolved_text(sc), "c2VjcmV0LWtleQ=="));
        assert_int_equal(bf_scenario_target(sc)->auth, i == 0 ? BF_AUTH_APIKEY : BF_AUTH_BEARER);
        bf_scenario_destroy(&sc);
    }
    unsetenv("BF_T_PW");
    unsetenv("BF_T_KEY");
}

static void test_load_file_errors(void **state)
{
    (void)state;
    bf_scenario_t *sc = NULL;
    bf_diag_t d = {0};
    assert_int_equal(bf_scenario_load_file(FIXDIR "/does-not-exist.yaml", NULL, &sc, &d),
                     BF_E_NOTFOUND);
    assert_non_null(strstr(d.msg, "does-not-exist.yaml"));
    bf_diag_t d2 = {0};
    assert_int_not_equal(bf_scenario_load_file(FIXDIR, NULL, &sc, &d2), 0); /* a directory */
    bf_scenario_destroy(&sc); /* NULL-safe */
    bf_scenario_destroy(NULL);
}

/* regression: a quoted "true" passed validation as the boolean but was sent as
 * ?filter_path=true, dropping items.*.status; quoted means the literal filter, like the parser */
static void test_quoted_filter_path_true_is_a_string(void **state)
{
    (void)state;
    load_text_err("name: fp\ntarget: {hosts: [http://127.0.0.1:9200]}\n"
                  "document: {source: '{\"a\": 1}'}\nrequest: {filter_path: \"true\"}\n",
                  "inline.yaml:4:", "drops items.*.status");
    bf_scenario_t *sc = load_text_ok("name: fp\ntarget: {hosts: [http://127.0.0.1:9200]}\n"
                                     "document: {source: '{\"a\": 1}'}\n"
                                     "request: {filter_path: true}\n", NULL);
    assert_non_null(strstr(bf_scenario_request(sc)->filter_path, "items.*.status"));
    bf_scenario_destroy(&sc);
}

/* ---- data streams -------------------------------------------------------------------------- */

#define DS_HEAD "name: ds\ntarget: {hosts: [\"http://127.0.0.1:9200\"]}\n"

static void test_data_stream(void **state)
{
    (void)state;
    /* a template body with data_stream: action index becomes create, with a warning */
    bf_scenario_t *sc = load_text_ok(
        DS_HEAD "index:\n  name: logs-a\n  template:\n    body: {index_patterns: [\"logs-*\"], "
        "data_stream: {timestamp_field: {name: ts}}}\n"
        "variables: [{name: t, type: now_utc_lite}]\n"
        "document: {action: index, source: '{\"ts\": \"$[[t]]\"}'}\n", NULL);
    assert_non_null(sc);
    assert_int_equal(bf_scenario_index(sc)->data_stream, 1);
    assert_string_equal(bf_scenario_index(sc)->timestamp_field, "ts");
    assert_int_equal(bf_scenario_document(sc)->action, BF_ACTION_CREATE);
    assert_int_equal(bf_scenario_warning_count(sc), 1);
    assert_non_null(strstr(bf_scenario_warning(sc, 0), "inline.yaml:8:20: "
                                                       "document.action: index"));
    bf_scenario_destroy(&sc);
    /* index.data_stream: true (the template is in the cluster); no @timestamp: a warning */
    sc = load_text_ok(DS_HEAD "index: {name: logs-a, data_stream: true}\n"
                      "document: {source: '{\"a\": 1}'}\n", NULL);
    assert_non_null(sc);
    assert_int_equal(bf_scenario_document(sc)->action, BF_ACTION_CREATE);
    assert_int_equal(bf_scenario_warning_count(sc), 1);
    assert_non_null(strstr(bf_scenario_warning(sc, 0), "no \"@timestamp\" field"));
    bf_scenario_destroy(&sc);
    /* a plain index: nothing changes */
    sc = load_text_ok(DS_HEAD "document: {source: '{\"a\": 1}'}\n", NULL);
    assert_int_equal(bf_scenario_index(sc)->data_stream, 0);
    assert_null(bf_scenario_index(sc)->timestamp_field);
    assert_int_equal(bf_scenario_document(sc)->action, BF_ACTION_INDEX);
    bf_scenario_destroy(&sc);
    /* a cell whose name the template's patterns do not match */
    load_text_err(DS_HEAD "index:\n  name: bench-{shards}\n  template:\n    body: {index_patterns: "
                  "[\"logs-*\", \"bench-1\"], data_stream: {}}\n"
                  "document: {source: '{\"@timestamp\": 1}'}\nmatrix: {shards: [1, 2]}\n",
                  "inline.yaml:6:5: index.template: cell ", "writes to data stream 'bench-2'");
    /* data_stream: false contradicts the template */
    load_text_err(DS_HEAD "index:\n  name: logs-a\n  data_stream: false\n  template:\n    body: "
                  "{index_patterns: [\"logs-*\"], data_stream: {}}\n"
                  "document: {source: '{\"@timestamp\": 1}'}\n",
                  "inline.yaml:5:16: index.data_stream: false", "remove one of the two");
    load_text_err(DS_HEAD "index:\n  name: logs-a\n  template:\n    body: "
                  "{index_patterns: [\"logs-*\"], data_stream: true}\n"
                  "document: {source: '{\"@timestamp\": 1}'}\n",
                  "inline.yaml:6:5: index.template: \"data_stream\" must be an object", "{}");
}

static void test_pipeline(void **state)
{
    (void)state;
    /* a shipped pipeline without request.pipeline: named bulkfleet-<name> */
    bf_scenario_t *sc = load_text_ok(
        "name: Pl\ntarget: {hosts: [\"http://127.0.0.1:9200\"]}\n"
        "index: {pipeline: {processors: [{set: {field: a, value: 1}}]}}\n"
        "document: {source: '{\"a\": 1}'}\n", NULL);
    assert_non_null(sc);
    assert_string_equal(bf_scenario_request(sc)->pipeline, "bulkfleet-pl");
    assert_string_equal(bf_scenario_index(sc)->pipeline_json,
                        "{\"processors\":[{\"set\":{\"field\":\"a\",\"value\":1}}]}");
    bf_scenario_destroy(&sc);
    sc = load_text_ok("name: pl\ntarget: {hosts: [\"http://127.0.0.1:9200\"]}\n"
                      "request: {pipeline: my-pipe}\ndocument: {source: '{\"a\": 1}'}\n", NULL);
    assert_string_equal(bf_scenario_request(sc)->pipeline, "my-pipe");
    assert_null(bf_scenario_index(sc)->pipeline_json);
    bf_scenario_destroy(&sc);
    load_text_err("name: pl\ntarget: {hosts: [\"http://127.0.0.1:9200\"]}\n"
                  "index: {pipeline: {description: x}}\ndocument: {source: '{\"a\": 1}'}\n",
                  "inline.yaml:3:19: index.pipeline: an ingest pipeline needs \"processors\"",
                  "a list");
    load_text_err("name: pl\ntarget: {hosts: [\"http://127.0.0.1:9200\"]}\n"
                  "request: {pipeline: 'a&b'}\ndocument: {source: '{\"a\": 1}'}\n",
                  "inline.yaml:3:21: request.pipeline: 'a&b' is not a pipeline name", "");
}

/* ---- the search section ------------------------------------------------------------------- */

#define SEARCH_BASE                                                                               \
    "name: s\ntarget: {hosts: [\"http://127.0.0.1:9\"]}\n"                                      \
    "variables:\n  - {name: st, type: list, data: [200, 404]}\n"                                \
    "  - {name: w, type: list, data: [alpha, beta]}\n"                                           \
    "document: {source: '{\"st\": $[[st]]}'}\n"

static void test_search_section(void **state)
{
    (void)state;
    bf_scenario_t *sc = load_text_ok(SEARCH_BASE
        "search:\n"
        "  clients: 3\n"
        "  prefill: 10k\n"
        "  queries:\n"
        "    - {name: by_st, body: '{\"query\": {\"term\": {\"st\": $[[st]]}}}', weight: 3}\n"
        "    - {name: cnt, method: GET, path: \"/{index}/_count\"}\n"
        "matrix:\n"
        "  concurrency: [0, 2]\n"
        "  search_clients: [2, 0]\n"
        "  search_rate: [0, 50]\n"
        "  exclude: [{concurrency: 0, search_clients: 0}]\n", NULL);
    assert_non_null(sc);
    const bf_search_spec_t *ss = bf_scenario_search(sc);
    assert_true(ss->enabled);
    assert_int_equal(ss->clients, 3);
    assert_int_equal(ss->prefill, 10000);
    assert_false(ss->recreate);
    assert_int_equal(ss->nqueries, 2);
    assert_string_equal(ss->queries[0].name, "by_st");
    assert_true(ss->queries[0].post);
    assert_string_equal(ss->queries[0].path, "/{index}/_search"); /* the default */
    assert_int_equal(ss->queries[0].weight, 3);
    assert_false(ss->queries[1].post);
    assert_null(ss->queries[1].body);
    /* 2 x 2 x 2 minus the two cells with neither */
    assert_int_equal(bf_scenario_cell_count(sc), 6);
    const bf_cell_t *c0 = bf_scenario_cell(sc, 0);
    assert_int_equal(c0->concurrency, 0);
    assert_int_equal(c0->search_clients, 2);
    assert_true(c0->search_rate == 0);
    assert_string_equal(c0->id, "i1-s1-r0-b1000-c0-q2-qr0");
    const bf_cell_t *c1 = bf_scenario_cell(sc, 1);
    assert_true(c1->search_rate == 50);
    /* what an agent loads keeps the section */
    const char *txt = bf_scenario_resolved_text(sc);
    bf_scenario_t *again = load_text_ok(txt, NULL);
    assert_int_equal(bf_scenario_search(again)->nqueries, 2);
    bf_scenario_destroy(&again);
    bf_scenario_destroy(&sc);
    /* without a search section: search_clients 0, ids unchanged */
    sc = load_text_ok(SEARCH_BASE "matrix: {concurrency: [2]}\n", NULL);
    assert_false(bf_scenario_search(sc)->enabled);
    assert_int_equal(bf_scenario_cell(sc, 0)->search_clients, 0);
    assert_string_equal(bf_scenario_cell(sc, 0)->id, "i1-s1-r0-b1000-c2");
    bf_scenario_destroy(&sc);
}

static void test_search_paging(void **state)
{
    (void)state;
    bf_scenario_t *sc =
        load_text_ok(SEARCH_BASE "search:\n  queries:\n"
                                 "    - {name: f, body: '{\"query\": {\"match_all\": {}}}', "
                                 "paging: {size: 50, depth: 500}}\n"
                                 "    - name: a\n      body: '{\"sort\": [{\"st\": \"asc\"}]}'\n"
                                 "      paging: {by: search_after, depth: 30, pit: false}\n"
                                 "    - {name: one, body: '{}'}\n",
                     NULL);
    const bf_search_spec_t *ss = bf_scenario_search(sc);
    assert_int_equal(ss->queries[0].paging, BF_PAGING_FROM);
    assert_int_equal(ss->queries[0].page_size, 50);
    assert_int_equal(ss->queries[0].depth, 500);
    assert_false(ss->queries[0].pit); /* only search_after uses a point in time */
    assert_int_equal(ss->queries[1].paging, BF_PAGING_SEARCH_AFTER);
    assert_int_equal(ss->queries[1].page_size, 10); /* the default */
    assert_int_equal(ss->queries[1].depth, 30);
    assert_false(ss->queries[1].pit);
    assert_int_equal(ss->queries[2].paging, BF_PAGING_NONE);
    bf_scenario_destroy(&sc);
    sc =
        load_text_ok(SEARCH_BASE "search:\n  queries:\n    - {name: a, body: '{\"sort\": \"st\"}', "
                                 "paging: {by: search_after, depth: 30}}\n",
                     NULL);
    assert_true(bf_scenario_search(sc)->queries[0].pit); /* default: a point in time */
    bf_scenario_destroy(&sc);
    load_text_err(SEARCH_BASE
                  "search:\n  queries:\n    - {name: a, body: '{}', paging: {size: 5}}\n",
                  "inline.yaml:9:", "search.queries[0].paging: missing required key 'depth'");
    load_text_err(SEARCH_BASE
                  "search:\n  queries:\n    - {name: a, body: '{}', paging: {by: after, "
                  "depth: 5}}\n",
                  "inline.yaml:9:", "search.queries[0].paging.by");
    load_text_err(SEARCH_BASE "search:\n  queries:\n    - {name: a, body: '{\"query\": {}}', "
                              "paging: {by: search_after, depth: 5}}\n",
                  "inline.yaml:9:", "paging by search_after needs a \"sort\" in the body");
    load_text_err(SEARCH_BASE "search:\n  queries:\n    - {name: a, paging: {depth: 5}}\n",
                  "inline.yaml:9:", "a paged query needs a body");
}

static void test_search_mistakes(void **state)
{
    (void)state;
    /* a query body naming no variable: position of the placeholder */
    load_text_err(SEARCH_BASE "search:\n  queries:\n    - {name: a, body: '{\"q\": $[[sx]]}'}\n",
                  "inline.yaml:9:", "search.queries[0].body: $[[sx]] names no variable; did you "
                  "mean $[[st]]?");
    /* not JSON once rendered */
    load_text_err(SEARCH_BASE "search:\n  queries:\n    - {name: a, body: '{\"q\": [1}'}\n",
                  "inline.yaml:9:", "search.queries[0].body does not render a JSON object");
    load_text_err(SEARCH_BASE "search:\n  queries:\n    - {name: a}\n    - {name: a}\n",
                  "inline.yaml:10:", "'a' is already the name of search.queries[0]");
    load_text_err(SEARCH_BASE "search:\n  queries:\n    - {name: a, path: _search}\n",
                  "inline.yaml:9:", "must start with '/'");
    load_text_err(SEARCH_BASE "search:\n  queries:\n    - {name: a, methd: GET}\n",
                  "inline.yaml:9:", "search.queries[0].methd: unknown key; did you mean 'method'?");
    load_text_err(SEARCH_BASE "search:\n  queries:\n    - {name: a, method: PUT}\n",
                  "inline.yaml:9:", "search.queries[0].method");
    load_text_err(SEARCH_BASE "search: {clients: 2}\n", "inline.yaml:7:",
                  "missing required key 'queries'");
    load_text_err(SEARCH_BASE "search:\n  queries: []\n",
                  "inline.yaml:8:", "search.queries: give 1 to 32 queries");
    load_text_err(SEARCH_BASE "matrix: {search_clients: [1, 2]}\n", "inline.yaml:7:",
                  "matrix.search_clients: there is no search section");
    load_text_err(SEARCH_BASE "matrix: {concurrency: [0, 1]}\n", "inline.yaml:7:",
                  "concurrency 0 and no search clients: nothing to send");
}

/* An _msearch query: the body is JSON lines in header/body pairs, kept as lines (one '\n'
 * each, the last included) and checked line by line; paging and profile are refused. */
static void test_search_msearch(void **state)
{
    (void)state;
    bf_scenario_t *sc = load_text_ok(
        SEARCH_BASE
        "search:\n"
        "  queries:\n"
        "    - name: multi\n"
        "      path: /{index}/_msearch\n"
        "      body: |\n"
        "        {}\n"
        "        {\"query\": {\"term\": {\"st\": $[[st]]}}}\n"
        "\n"
        "        {\"search_type\": \"query_then_fetch\"}\n"
        "        {\"query\": {\"match\": {\"w\": \"$[[w]] x\"}}}\n"
        "    - {name: other, path: \"/{index}/_msearch?max_concurrent_searches=2\", body: "
        "\"{\\\"index\\\": \\\"elsewhere\\\"}\\n{}\"}\n"
        "matrix: {concurrency: [1]}\n",
        NULL);
    assert_non_null(sc);
    const bf_search_spec_t *ss = bf_scenario_search(sc);
    assert_true(ss->queries[0].msearch);
    assert_false(ss->queries[0].msearch_retargets);
    assert_true(ss->queries[1].msearch);
    assert_true(ss->queries[1].msearch_retargets); /* a header names its own index */
    bf_tmpl_t *t = NULL;
    bf_diag_t d = {0};
    assert_int_equal(bf_tmpl_compile_ndjson_body(sc, ss->queries[0].body, "b", &t, &d), 0);
    bf_partition_t part = {0, 1, 7};
    bf_gen_t *g = bf_gen_new(t, &part);
    bf_buf_t b;
    bf_buf_init(&b, 0);
    assert_int_equal(bf_tmpl_render_body(t, g, &b), 0);
    /* four lines (the blank one dropped), each ending in '\n' */
    size_t nl = 0;
    for (size_t k = 0; k < b.len; k++)
        nl += b.data[k] == '\n';
    assert_int_equal(nl, 4);
    assert_int_equal(b.data[b.len - 1], '\n');
    static const char head[] = "{}\n{\"query\": {\"term\": {\"st\": ";
    assert_memory_equal(b.data, head, sizeof head - 1);
    bf_buf_cleanup(&b);
    bf_gen_destroy(&g);
    bf_tmpl_destroy(&t);
    /* the agent's copy keeps the lines */
    bf_scenario_t *again = load_text_ok(bf_scenario_resolved_text(sc), NULL);
    assert_string_equal(bf_scenario_search(again)->queries[0].body, ss->queries[0].body);
    assert_true(bf_scenario_search(again)->queries[0].msearch);
    bf_scenario_destroy(&again);
    bf_scenario_destroy(&sc);
    assert_true(bf_scenario_path_is_msearch("/_msearch"));
    assert_true(bf_scenario_path_is_msearch("/a,b/_msearch/template"));
    assert_false(bf_scenario_path_is_msearch("/{index}/_msearchx"));
    assert_false(bf_scenario_path_is_msearch("/{index}/_search"));
    /* three lines: not pairs */
    load_text_err(SEARCH_BASE "search:\n  queries:\n    - name: m\n      path: /_msearch\n"
                              "      body: |\n        {}\n        {}\n        {}\n",
                  "inline.yaml:",
                  "search.queries[0].body renders 3 lines; an _msearch body is "
                  "pairs of lines");
    /* a bad second line, at its position */
    load_text_err(SEARCH_BASE "search:\n  queries:\n    - name: m\n      path: /_msearch\n"
                              "      body: |\n        {}\n        {\"query\": [1}\n",
                  "inline.yaml:13:21:", "does not render JSON lines (one object per line)");
    load_text_err(SEARCH_BASE "search:\n  queries:\n    - name: m\n      path: /_msearch\n"
                              "      body: |\n        {}\n        [1]\n",
                  "inline.yaml:", "line 2 is not a JSON object");
    load_text_err(SEARCH_BASE "search:\n  queries:\n    - {name: m, path: /_msearch, paging: "
                              "{by: from, size: 10, depth: 20}, body: '{}'}\n",
                  "inline.yaml:9:", "an _msearch query is one request of several searches");
    load_text_err(SEARCH_BASE "search:\n  queries:\n    - {name: m, path: /_msearch, profile: "
                              "true, body: '{}'}\n",
                  "inline.yaml:9:", "profile its searches as _search queries");
    load_text_err(SEARCH_BASE "search:\n  queries:\n    - {name: m, path: /_msearch}\n",
                  "inline.yaml:9:", "an _msearch query needs a body of header/body line pairs");
}

/* Elastic Serverless found at run (GET / said build_flavor serverless): the scenario's target
 * and every named target (targets:, the same project) are marked, so a cell sent through a
 * named host set is held to the project's rules (no non-public API) as one through target. */
static void test_elastic_serverless_named_targets(void **state)
{
    (void)state;
    bf_scenario_t *sc = load_text_ok("name: t\n"
                                     "target: {hosts: [http://127.0.0.1:9200]}\n"
                                     "targets:\n"
                                     "  a: {hosts: [http://127.0.0.1:9200]}\n"
                                     "  b: {hosts: [http://127.0.0.2:9200]}\n"
                                     "index: {name: \"t-{target}\"}\n"
                                     "document: {source: '{\"a\": 1}'}\n"
                                     "matrix: {target: [a, b]}\n",
                                     NULL);
    assert_non_null(sc);
    assert_int_equal(bf_target_managed(bf_scenario_named_target(sc, 1, NULL)), 0);
    char err[2048] = "";
    assert_int_equal(bf_scenario_elastic_serverless(sc, NULL, err, sizeof err), BF_OK);
    assert_int_equal(bf_target_managed(bf_scenario_target(sc)), 1);
    for (size_t i = 0; i < bf_scenario_named_target_count(sc); i++)
        assert_int_equal(bf_target_managed(bf_scenario_named_target(sc, i, NULL)), 1);
    for (size_t k = 0; k < bf_scenario_cell_count(sc); k++)
        assert_int_equal(bf_target_managed(bf_scenario_cell(sc, k)->target), 1);
    bf_scenario_destroy(&sc);
}

/* targets: named host sets and the target / agents axes: each cell points at its host set
 * (auth shared with target), carries its agents, and has both in its id; mistakes are named
 * with their position. */
static void test_targets_and_agents_axes(void **state)
{
    (void)state;
    const char *base =
        "name: t\n"
        "target: {hosts: [http://127.0.0.1:9200], auth: {username: u, password: p}}\n"
        "targets:\n"
        "  direct: {hosts: [http://127.0.0.1:9200]}\n"
        "  gateway: {hosts: [\"http://127.0.0.1:8080/\", http://127.0.0.2:8080]}\n"
        "index: {name: \"t-{target}-{agents}\"}\n"
        "document: {source: '{\"a\": 1}'}\n"
        "run: {agents: 3}\n";
    char text[2048];
    snprintf(text, sizeof text,
             "%smatrix: {target: [direct, gateway], agents: [1, 2], "
             "concurrency: 2, include: [{concurrency: 4}]}\n",
             base);
    bf_scenario_t *sc = load_text_ok(text, NULL);
    assert_non_null(sc);
    assert_int_equal(bf_scenario_named_target_count(sc), 2);
    const char *nm = NULL;
    const bf_target_t *g = bf_scenario_named_target(sc, 1, &nm);
    assert_string_equal(nm, "gateway");
    assert_int_equal(g->nhosts, 2);
    assert_string_equal(g->hosts[0], "http://127.0.0.1:8080");
    assert_string_equal(g->username, "u"); /* auth is target's */
    assert_null(bf_scenario_named_target(sc, 2, NULL));
    assert_int_equal(bf_scenario_cell_count(sc), 5);
    const bf_cell_t *c = bf_scenario_cell(sc, 3);
    assert_string_equal(c->id, "i1-s1-r0-b1000-c2-gateway-a2");
    assert_ptr_equal(c->target, g);
    assert_string_equal(c->target_name, "gateway");
    assert_int_equal(c->agents, 2);
    assert_string_equal(c->index_names[0], "t-gateway-2");
    c = bf_scenario_cell(sc, 0);
    assert_string_equal(c->id, "i1-s1-r0-b1000-c2-direct-a1");
    assert_string_equal(c->target->hosts[0], "http://127.0.0.1:9200");
    /* the include entry: target's own hosts, run.agents */
    c = bf_scenario_cell(sc, 4);
    assert_ptr_equal(c->target, bf_scenario_target(sc));
    assert_null(c->target_name);
    assert_int_equal(c->agents, 3);
    bf_scenario_destroy(&sc);
    /* no axis: every cell uses target and run.agents */
    snprintf(text, sizeof text, "%smatrix: {concurrency: [1, 2]}\n", base);
    sc = load_text_ok(text, NULL);
    assert_ptr_equal(bf_scenario_cell(sc, 1)->target, bf_scenario_target(sc));
    assert_int_equal(bf_scenario_cell(sc, 1)->agents, 3);
    assert_string_equal(bf_scenario_cell(sc, 1)->id, "i1-s1-r0-b1000-c2");
    bf_scenario_destroy(&sc);

    snprintf(text, sizeof text, "%smatrix: {target: [direct, gatway]}\n", base);
    load_text_err(text, "inline.yaml:9:",
                  "matrix.target: 'gatway' is not a name under targets: (direct, gateway); did "
                  "you mean 'gateway'?");
    load_text_err("name: t\ntarget: {hosts: [http://127.0.0.1:9200]}\ndocument: {source: '{}'}\n"
                  "matrix: {target: [a]}\n",
                  "inline.yaml:4:19:", "matrix.target: there is no targets: section");
    load_text_err("name: t\ntarget: {hosts: [http://127.0.0.1:9200]}\ndocument: {source: '{}'}\n"
                  "targets: {gw: {hots: [http://127.0.0.1:1]}}\n",
                  "inline.yaml:4:16:", "targets.gw.hots: unknown key; did you mean 'hosts'?");
    load_text_err("name: t\ntarget: {hosts: [http://127.0.0.1:9200]}\ndocument: {source: '{}'}\n"
                  "targets: {gw: {hosts: [http://127.0.0.1:1], auth: {bearer: x}}}\n",
                  "inline.yaml:4:", "targets.gw.auth: every named target uses target.auth");
    load_text_err("name: t\ntarget: {hosts: [http://127.0.0.1:9200]}\ndocument: {source: '{}'}\n"
                  "targets: {gw: {hosts: [127.0.0.1:1]}}\n",
                  "inline.yaml:4:", "targets.gw.hosts: '127.0.0.1:1' is not a URL");
    load_text_err("name: t\ntarget: {hosts: [http://127.0.0.1:9200]}\ndocument: {source: '{}'}\n"
                  "targets: {\"g w\": {hosts: [http://127.0.0.1:1]}}\n",
                  "inline.yaml:4:", "a target name has 1 to 64 letters");
    load_text_err("name: t\ntarget: {hosts: [http://127.0.0.1:9200]}\ndocument: {source: '{}'}\n"
                  "targets: {gw: {}}\n",
                  "inline.yaml:4:", "targets.gw: missing required key 'hosts'");
    load_text_err("name: t\ntarget: {hosts: [http://127.0.0.1:9200]}\ndocument: {source: '{}'}\n"
                  "matrix: {agents: [0, 1]}\n",
                  "inline.yaml:4:19:", "matrix.agents: expected a whole number from 1 to 100000");
}

/* validate / plan without secrets (CI): an unset ${VAR} is a warning with a stand-in */
/* validate (opts.on_error): the key pass reports every mistake, in file order, not only the
 * first; without the callback the load stops at the first as before */
typedef struct errs {
    char msg[128][300];
    size_t n;
} errs;

static void on_err(void *ctx, const char *msg)
{
    errs *e = ctx;
    if (e->n < 128)
        snprintf(e->msg[e->n], sizeof e->msg[0], "%s", msg);
    e->n++;
}

/* e holds exactly n messages, the i-th starting with want[i] */
static void expect_prefixes(const errs *e, const char *const *want, size_t n)
{
    if (e->n != n)
        fail_msg("%zu mistakes reported, %zu expected; first: %s", e->n, n, e->msg[0]);
    for (size_t i = 0; i < n; i++)
        if (strncmp(e->msg[i], want[i], strlen(want[i])) != 0)
            fail_msg("mistake %zu: '%s', expected '%s...'", i, e->msg[i], want[i]);
}

/* validate: the checks of a group that need nothing of each other are said in one run, not
 * one more after each fix (a vector's element_type checks, run.until's bounds, find_max's
 * starts, an index name's case beside a key mistake of the index section); without the
 * callback the load stops at the first of them */
/* A YAML syntax error inside a flow collection names where the parser stopped and the
 * line:column of the '{' or '[' still open there (an unclosed one is noticed lines later, at
 * the next key), with what to do */
static void test_yaml_unclosed_flow(void **state)
{
    (void)state;
    load_text_err("name: t\ntarget: {hosts: [http://127.0.0.1:9200]\ndocument: {source: '{}'}\n",
                  "inline.yaml:3:1:",
                  "inside the '{' opened at 2:9, not closed before this point: close it with '}'");
    load_text_err("name: t\nmatrix: {batch_size: [10, 20}\n", "inline.yaml:2:29:",
                  "inside the '[' opened at 2:22, not closed before this point: close it with ']'");
    load_text_err("name: t\nindex: {name: logs-{shards}, recreate: true}\n",
                  "inline.yaml:2:", "inside the '{' opened at 2:8");
    /* not in a flow collection: no such note */
    bf_scenario_t *sc = NULL;
    bf_diag_t d = {0};
    const char *y = "name: t\n  bad: indent\n";
    assert_int_not_equal(bf_scenario_load_text(y, strlen(y), "b.yaml", NULL, &sc, &d), BF_OK);
    assert_non_null(strstr(d.msg, "YAML syntax error"));
    assert_null(strstr(d.msg, "opened at"));
}

static void test_stage_gates_collected(void **state)
{
    (void)state;
    static const struct {
        const char *yaml;
        const char *want[4];
        size_t n;
    } cases[] = {
        {"name: t\ntarget: {hosts: [http://127.0.0.1:9200]}\n"
         "variables:\n"
         "  - {name: v, type: vector, element_type: bit, dims: 12, precision: 3, byte_order: "
         "little}\n"
         "document: {source: '{\"v\": $[[v]]}'}\n",
         {"g.yaml:4:54: variables[0].dims: element_type bit needs dims a multiple of 8",
          "g.yaml:4:58: variables[0].precision: only float",
          "g.yaml:4:72: variables[0].byte_order: only float"},
         3},
        {"name: t\ntarget: {hosts: [http://127.0.0.1:9200]}\ndocument: {source: '{}'}\n"
         "run: {duration: 10s, repeat: auto, order: sequential,\n"
         "      until: {min_repeat: 5, max_repeat: 3, max_time: 1s}}\n",
         {"g.yaml:4:43: run.order: sequential", "g.yaml:5:42: run.until.max_repeat (3) is below",
          "g.yaml:5:55: run.until.max_time (1 s) is shorter"},
         3},
        {"name: t\ntarget: {hosts: [http://127.0.0.1:9200]}\ndocument: {source: '{}'}\n"
         "find_max: {batch_start: 500, batch_max: 100, concurrency_start: 8, "
         "concurrency_max: 2}\n",
         {"g.yaml:4:41: find_max.batch_max: must not be below",
          "g.yaml:4:85: find_max.concurrency_max: must not be below"},
         2},
        {"name: t\ntarget: {hosts: [http://127.0.0.1:9200]}\ndocument: {source: '{}'}\n"
         "index: {name: 'Logs-{shards}', settings: 5}\n",
         {"g.yaml:4:15: index.name: 'Logs-{shards}' must be lowercase",
          "g.yaml:4:42: index.settings: expected"},
         2},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        errs e = {0};
        bf_load_opts_t o = {.on_error = on_err, .on_error_ctx = &e};
        bf_diag_t d = {0};
        bf_scenario_t *sc = NULL;
        const char *y = cases[c].yaml;
        assert_int_not_equal(bf_scenario_load_text(y, strlen(y), "g.yaml", &o, &sc, &d), BF_OK);
        expect_prefixes(&e, cases[c].want, cases[c].n);
        /* without the callback: the first alone */
        bf_diag_t d1 = {0};
        assert_int_not_equal(bf_scenario_load_text(y, strlen(y), "g.yaml", NULL, &sc, &d1), BF_OK);
        assert_non_null(strstr(d1.msg, "g.yaml:"));
    }
}

static void test_all_key_errors(void **state)
{
    (void)state;
    const char *y = "name: t\n"
                    "target:\n"
                    "  hosts: [http://127.0.0.1:9200]\n"
                    "  colour: blue\n"
                    "variables:\n"
                    "  - {name: seq, type: sequence, form: 3}\n"
                    "  - {name: x, type: nosuchtype}\n"
                    "  - just-a-string\n"
                    "document: {source: '{\"s\": $[[seq]]}'}\n"
                    "run: {warmup: 5sec, duration: 10s, repeat: two}\n"
                    "index: {setings: {a: 1}}\n";
    errs e = {0};
    bf_load_opts_t o = {.on_error = on_err, .on_error_ctx = &e};
    bf_diag_t d = {0};
    bf_scenario_t *sc = NULL;
    assert_int_equal(bf_scenario_load_text(y, strlen(y), "s.yaml", &o, &sc, &d), BF_E_INVAL);
    assert_null(sc);
    static const char *want[] = {
        "s.yaml:4:3: target.colour: unknown key",
        "s.yaml:6:33: variables[0].form: unknown key; did you mean 'from'?",
        "s.yaml:7:21: variables[1].type: 'nosuchtype' is not one of",
        "s.yaml:8:5: variables[2]: expected a mapping",
        "s.yaml:10:15: run.warmup: expected a duration",
        "s.yaml:10:44: run.repeat: expected a whole number",
        "s.yaml:11:9: index.setings: unknown key; did you mean 'settings'?",
    };
    expect_prefixes(&e, want, sizeof want / sizeof want[0]);
    assert_string_equal(d.msg, e.msg[0]); /* the first is the load's error */
    /* without the callback: only the first, as run and plan see it */
    memset(&d, 0, sizeof d);
    assert_int_equal(bf_scenario_load_text(y, strlen(y), "s.yaml", NULL, &sc, &d), BF_E_INVAL);
    assert_string_equal(d.msg, "s.yaml:4:3: target.colour: unknown key");
    /* a clean key pass: every variable's own mistakes are reported too */
    const char *vars = "name: t\ntarget: {hosts: [http://127.0.0.1:9200]}\n"
                       "variables:\n"
                       "  - {name: a, type: file, path: ./no/such.log}\n"
                       "  - {name: b, type: sequence, data: [1, 2]}\n"
                       "  - {name: a, type: uuid}\n"
                       "  - {name: c, type: list}\n"
                       "document: {source: '{\"a\": \"$[[a]]\"}'}\n";
    static const char *want_vars[] = {
        "s.yaml:4:33: variables[0].path: cannot read dictionary",
        "s.yaml:5:31: variables[1].data: not used by type sequence",
        "s.yaml:6:12: variables[2].name: variable 'a' is already defined at line 4",
        "s.yaml:7:5: variables[3]: type list needs data",
    };
    memset(&e, 0, sizeof e);
    memset(&d, 0, sizeof d);
    bf_load_opts_t ov = {.on_error = on_err, .on_error_ctx = &e, .base_dir = "/nonexistent"};
    assert_int_not_equal(bf_scenario_load_text(vars, strlen(vars), "s.yaml", &ov, &sc, &d), 0);
    expect_prefixes(&e, want_vars, 4);
    /* a scenario in the current folder: a missing file is named as written, not './../' */
    memset(&d, 0, sizeof d);
    const char *here = "name: t\ntarget: {hosts: [http://127.0.0.1:9200]}\n"
                       "variables: [{name: a, type: file, path: ../no/such.log}]\n"
                       "document: {source: '{\"a\": \"$[[a]]\"}'}\n";
    bf_load_opts_t oh = {.base_dir = "."};
    assert_int_not_equal(bf_scenario_load_text(here, strlen(here), "s.yaml", &oh, &sc, &d), 0);
    if (strstr(d.msg, "cannot read dictionary '../no/such.log'") == NULL)
        fail_msg("%s", d.msg);
    /* a clean key pass goes on to the later checks, which report each mistake too */
    const char *later = "name: t\ntarget: {hosts: [http://127.0.0.1:9200]}\n"
                        "document: {source: '{\"s\": $[[nope]]}'}\n";
    memset(&e, 0, sizeof e);
    memset(&d, 0, sizeof d);
    int keys_failed = 0;
    o.keys_failed = &keys_failed;
    assert_int_equal(bf_scenario_load_text(later, strlen(later), "s.yaml", &o, &sc, &d),
                     BF_E_INVAL);
    assert_int_equal(e.n, 1);
    assert_int_equal(keys_failed, 0);
    assert_non_null(strstr(d.msg, "$[[nope]] names no variable"));
    /* the key pass's mistakes are flagged */
    memset(&e, 0, sizeof e);
    assert_int_equal(bf_scenario_load_text(y, strlen(y), "s.yaml", &o, &sc, &d), BF_E_INVAL);
    assert_int_equal(keys_failed, 1);
    /* key mistakes in index and run: the sections without one (variables, document, matrix)
     * are checked on in the same run, all in file order */
    const char *mix = "name: t\n"
                      "target: {hosts: [http://127.0.0.1:9200]}\n"
                      "index: {setings: {refresh_interval: 1s}}\n"
                      "variables:\n"
                      "  - {name: uuid, type: uuid}\n"
                      "document:\n"
                      "  id: $[[uid]]\n"
                      "  source: '{\"a\": $[[nope]]}'\n"
                      "run: {durration: 5s, repeat: two}\n"
                      "matrix:\n"
                      "  batch_size: [big, 500]\n"
                      "  compression: [zip]\n";
    static const char *want_mix[] = {
        "s.yaml:3:9: index.setings: unknown key; did you mean 'settings'?",
        "s.yaml:7:7: document.id: $[[uid]] names no variable; did you mean $[[uuid]]?",
        "s.yaml:8:18: document.source: $[[nope]] names no variable",
        "s.yaml:9:7: run.durration: unknown key; did you mean 'duration'?",
        "s.yaml:9:30: run.repeat: expected a whole number from 1 to 1000 or auto, got 'two'",
        "s.yaml:11:16: matrix.batch_size: expected a whole number from 1 to 10000000, got 'big'",
        "s.yaml:12:17: matrix.compression: 'zip' is not one of none, gzip",
    };
    memset(&e, 0, sizeof e);
    memset(&d, 0, sizeof d);
    keys_failed = 0;
    assert_int_equal(bf_scenario_load_text(mix, strlen(mix), "s.yaml", &o, &sc, &d), BF_E_INVAL);
    assert_int_equal(keys_failed, 1);
    expect_prefixes(&e, want_mix, sizeof want_mix / sizeof want_mix[0]);
    /* a required section missing: its checks wait (no crash on the unbuilt target), and the
     * matrix's own values are still checked in the same run (a new user's file: a
     * batch_size of 0 was said only after the target was fixed); the target axis's names wait
     * for the target(s) section, the search axes for a search section with a mistake */
    const char *notarget = "name: t\ndocument: {source: '{\"a\": $[[v]]}'}\nrun: {x: 1}\n"
                           "matrix: {target: [a], batch_size: [0], concurrency: [four]}\n";
    static const char *want_nt[] = {
        "s.yaml:1:1: missing required key 'target'",
        "s.yaml:2:27: document.source: $[[v]] names no variable",
        "s.yaml:3:7: run.x: unknown key",
        "s.yaml:4:36: matrix.batch_size: expected a whole number from 1 to 10000000, got '0'",
        "s.yaml:4:54: matrix.concurrency: expected a whole number from 0 to 1000000, got 'four'",
    };
    memset(&e, 0, sizeof e);
    memset(&d, 0, sizeof d);
    assert_int_equal(bf_scenario_load_text(notarget, strlen(notarget), "s.yaml", &o, &sc, &d),
                     BF_E_INVAL);
    expect_prefixes(&e, want_nt, sizeof want_nt / sizeof want_nt[0]);
    /* a value mistake in the target (no key mistake anywhere): the matrix is checked too */
    const char *badhost = "name: t\ntarget: {hosts: [notaurl]}\ndocument: {source: '{\"a\": 1}'}\n"
                          "search: {queries: [{name: q, bodi: {}}]}\n"
                          "matrix: {batch_size: [0], search_clients: [1]}\n";
    static const char *want_bh[] = {
        "s.yaml:2:18: target.hosts: 'notaurl' is not a URL",
        "s.yaml:4:",
        "s.yaml:5:23: matrix.batch_size: expected a whole number from 1 to 10000000, got '0'",
    };
    memset(&e, 0, sizeof e);
    memset(&d, 0, sizeof d);
    assert_int_equal(bf_scenario_load_text(badhost, strlen(badhost), "s.yaml", &o, &sc, &d),
                     BF_E_INVAL);
    expect_prefixes(&e, want_bh, sizeof want_bh / sizeof want_bh[0]);
}

/* validate after a clean key pass: every matrix value, include/exclude entry, unknown axis and
 * template placeholder in one list, in file order, each at its line:column with what to do;
 * run and plan (no callback) still stop at the first. */
static void test_all_later_mistakes(void **state)
{
    (void)state;
    const char *y = "name: t\n"
                    "target: {hosts: [http://127.0.0.1:9200]}\n"
                    "variables:\n"
                    "  - {name: uuid, type: uuid}\n"
                    "  - {name: n, type: range, from: 1, to: 9}\n"
                    "document:\n"
                    "  id: $[[uid]]\n"
                    "  source: '{\"a\": $[[nope]], \"b\": \"$[[n]]\", \"c\": "
                    "\"$[[alsonot]]\", \"d\": $[[n}'\n"
                    "matrix:\n"
                    "  shards: [1, 1]\n"
                    "  batch_size: [500, big, 0]\n"
                    "  compression: [gzip, zip]\n"
                    "  concurency: [2, 4]\n"
                    "  exclude:\n"
                    "    - {shards: 7}\n"
                    "  include:\n"
                    "    - {nosuch: 1}\n";
    static const char *want[] = {
        "s.yaml:7:7: document.id: $[[uid]] names no variable; did you mean $[[uuid]]?",
        "s.yaml:8:18: document.source: $[[nope]] names no variable; declare it under variables:",
        "s.yaml:8:50: document.source: $[[alsonot]] names no variable; declare it",
        "s.yaml:8:70: document.source: unclosed placeholder '$[[n': '}' follows where ']]' "
        "should; placeholders look like $[[name]]",
        "s.yaml:10:15: matrix.shards: value '1' is listed twice (first at 10:12); remove one",
        "s.yaml:11:21: matrix.batch_size: expected a whole number from 1 to 10000000, got 'big'",
        "s.yaml:11:26: matrix.batch_size: expected a whole number from 1 to 10000000, got '0'",
        "s.yaml:12:23: matrix.compression: 'zip' is not one of none, gzip; did you mean 'gzip'?",
        "s.yaml:13:3: matrix.concurency: unknown axis; did you mean 'concurrency'?",
        "s.yaml:15:16: matrix.exclude[0]: shards '7' is not among the axis values; exclude one",
        "s.yaml:17:8: matrix.include[0]: 'nosuch' is not an axis (axes: indices,",
    };
    errs e = {0};
    int keys_failed = 0;
    bf_load_opts_t o = {.on_error = on_err, .on_error_ctx = &e, .keys_failed = &keys_failed};
    bf_diag_t d = {0};
    bf_scenario_t *sc = NULL;
    assert_int_equal(bf_scenario_load_text(y, strlen(y), "s.yaml", &o, &sc, &d), BF_E_INVAL);
    assert_null(sc);
    assert_int_equal(keys_failed, 0);
    expect_prefixes(&e, want, sizeof want / sizeof want[0]);
    assert_string_equal(d.msg, e.msg[0]);
    /* run and plan: the first the loader meets (the matrix comes before the templates) */
    memset(&d, 0, sizeof d);
    assert_int_equal(bf_scenario_load_text(y, strlen(y), "s.yaml", NULL, &sc, &d), BF_E_INVAL);
    assert_string_equal(d.msg, "s.yaml:10:15: matrix.shards: value '1' is listed twice (first "
                               "at 10:12); remove one");
    /* a matrix mistake does not hide invalid JSON (rendered for a stand-in cell), nor a
     * targets: name; each too-big batch_size is said once, not once per cell */
    const char *y2 = "name: t\n"
                     "target: {hosts: [http://127.0.0.1:9200]}\n"
                     "document:\n"
                     "  source: '{\"a\": 1,, \"b\": 2}'\n"
                     "matrix:\n"
                     "  batch_size: [500, big]\n"
                     "  target: [direct]\n";
    static const char *want2[] = {
        "s.yaml:4:20: document.source does not render valid JSON",
        "s.yaml:6:21: matrix.batch_size: expected a whole number",
        "s.yaml:7:12: matrix.target: there is no targets: section to pick from; add targets:",
    };
    memset(&e, 0, sizeof e);
    assert_int_equal(bf_scenario_load_text(y2, strlen(y2), "s.yaml", &o, &sc, &d), BF_E_INVAL);
    expect_prefixes(&e, want2, 3);
    const char *y3 = "name: t\n"
                     "target: {hosts: [http://127.0.0.1:9200]}\n"
                     "document: {source: '{\"a\": \"0123456789012345678901234567890123456789\"}'}\n"
                     "matrix:\n"
                     "  shards: [1, 2, 3]\n"
                     "  batch_size: [500, 9000000, 8000000]\n";
    memset(&e, 0, sizeof e);
    assert_int_equal(bf_scenario_load_text(y3, strlen(y3), "s.yaml", &o, &sc, &d), BF_E_TOOBIG);
    if (e.n != 2)
        fail_msg("%zu mistakes reported, 2 expected; first: %s", e.n, e.msg[0]);
    assert_non_null(strstr(e.msg[0], "s.yaml:6:21: matrix.batch_size: 9000000 documents"));
    assert_non_null(strstr(e.msg[1], "s.yaml:6:30: matrix.batch_size: 8000000 documents"));
    assert_non_null(strstr(e.msg[1], "use a batch_size of at most"));
    /* more than the cap: the first 100 and one line with how many more */
    bf_buf_t b;
    bf_buf_init(&b, 0);
    bf_buf_appendz(&b, "name: t\ntarget: {hosts: [http://127.0.0.1:9200]}\n"
                       "document: {source: '{\"a\": 1}'}\nmatrix:\n  batch_size: [");
    for (int i = 0; i < 130; i++)
        bf_buf_appendf(&b, "%sx%d", i ? ", " : "", i);
    bf_buf_appendz(&b, "]\n");
    memset(&e, 0, sizeof e);
    assert_int_equal(bf_scenario_load_text(b.data, b.len, "s.yaml", &o, &sc, &d), BF_E_INVAL);
    assert_int_equal(e.n, 101);
    assert_string_equal(e.msg[100], "s.yaml: ... and 30 more mistakes");
    bf_buf_cleanup(&b);
}

/* an axis typo among key mistakes is listed with them on the first run (it was
 * reported only once the other keys were fixed); axes, include/exclude and settings axes are
 * not mistaken for typos, and without other key mistakes the later pass lists it once. */
static void test_axis_typo_with_key_mistakes(void **state)
{
    (void)state;
    const char *y = "name: t\n"
                    "target: {hosts: [http://127.0.0.1:9200]}\n"
                    "index:\n"
                    "  setings: {refresh_interval: 1s}\n"
                    "document: {source: '{\"a\": 1}'}\n"
                    "run:\n"
                    "  durration: 5s\n"
                    "matrix:\n"
                    "  shards: [1]\n"
                    "  settings.refresh_interval: [1s]\n"
                    "  settings: {translog.durability: [request]}\n"
                    "  concurency: [2]\n"
                    "  batchsize: [10]\n"
                    "  exclude: []\n";
    static const char *want[] = {
        "s.yaml:4:3: index.setings: unknown key; did you mean 'settings'?",
        "s.yaml:7:3: run.durration: unknown key; did you mean 'duration'?",
        "s.yaml:12:3: matrix.concurency: unknown axis; did you mean 'concurrency'?",
        "s.yaml:13:3: matrix.batchsize: unknown axis; did you mean 'batch_size'?",
    };
    size_t nw = sizeof want / sizeof want[0];
    errs e = {0};
    int keys_failed = 0;
    bf_load_opts_t o = {.on_error = on_err, .on_error_ctx = &e, .keys_failed = &keys_failed};
    bf_diag_t d = {0};
    bf_scenario_t *sc = NULL;
    assert_int_equal(bf_scenario_load_text(y, strlen(y), "s.yaml", &o, &sc, &d), BF_E_INVAL);
    assert_null(sc);
    assert_int_equal(keys_failed, 1);
    if (e.n != nw)
        fail_msg("%zu mistakes reported, %zu expected; first: %s", e.n, nw, e.msg[0]);
    for (size_t i = 0; i < nw; i++)
        if (strcmp(e.msg[i], want[i]) != 0)
            fail_msg("mistake %zu: '%s', expected '%s'", i, e.msg[i], want[i]);
    /* the axis typo alone: once, from the matrix step */
    const char *y2 = "name: t\n"
                     "target: {hosts: [http://127.0.0.1:9200]}\n"
                     "document: {source: '{\"a\": 1}'}\n"
                     "matrix:\n"
                     "  concurency: [2]\n";
    memset(&e, 0, sizeof e);
    keys_failed = 0;
    assert_int_equal(bf_scenario_load_text(y2, strlen(y2), "s.yaml", &o, &sc, &d), BF_E_INVAL);
    assert_int_equal(keys_failed, 0);
    assert_int_equal(e.n, 1);
    assert_string_equal(e.msg[0],
                        "s.yaml:5:3: matrix.concurency: unknown axis; did you mean 'concurrency'?");
    /* run and plan (no callback): the first key mistake only, as before */
    memset(&d, 0, sizeof d);
    assert_int_equal(bf_scenario_load_text(y, strlen(y), "s.yaml", NULL, &sc, &d), BF_E_INVAL);
    assert_string_equal(d.msg, want[0]);
}

/* an unclosed $[[ is said as what it is, at its own line:column, not as a variable
 * named by everything up to the next ]] ("$[[bytes], \"message\": \"$[[line]] names no
 * variable"); the placeholders after it are still checked. */
static void test_unclosed_placeholder(void **state)
{
    (void)state;
    const char *y = "name: t\n"
                    "target: {hosts: [http://127.0.0.1:9200]}\n"
                    "variables:\n"
                    "  - {name: bytes, type: range, from: 1, to: 9}\n"
                    "  - {name: line, type: list, data: [a]}\n"
                    "document:\n"
                    "  id: 'x-$[[bytes'\n"
                    "  source: '{\"b\": $[[bytes], \"m\": \"$[[line]]\", \"n\": \"$[[nope]]\", "
                    "\"o\": \"$[[line\"}'\n";
    static const char *want[] = {
        "s.yaml:7:10: document.id: unclosed placeholder '$[[bytes': no ']]' before the end of "
        "the text; placeholders look like $[[name]]",
        "s.yaml:8:18: document.source: unclosed placeholder '$[[bytes': ']' follows where ']]' "
        "should; placeholders look like $[[name]] (a name of letters, digits, '_', '-' and '.')",
        "s.yaml:8:53: document.source: $[[nope]] names no variable; declare it under variables:",
        "s.yaml:8:71: document.source: unclosed placeholder '$[[line': '\"' follows where ']]' "
        "should; placeholders look like $[[name]] (a name of letters, digits, '_', '-' and '.')",
    };
    size_t nw = sizeof want / sizeof want[0];
    errs e = {0};
    bf_load_opts_t o = {.on_error = on_err, .on_error_ctx = &e};
    bf_diag_t d = {0};
    bf_scenario_t *sc = NULL;
    assert_int_equal(bf_scenario_load_text(y, strlen(y), "s.yaml", &o, &sc, &d), BF_E_INVAL);
    assert_null(sc);
    for (size_t i = 0; i < e.n && i < nw; i++)
        if (strcmp(e.msg[i], want[i]) != 0)
            fail_msg("mistake %zu: '%s', expected '%s'", i, e.msg[i], want[i]);
    if (e.n != nw)
        fail_msg("%zu mistakes reported, %zu expected; first: %s", e.n, nw, e.msg[0]);
    /* run: the first one */
    memset(&d, 0, sizeof d);
    assert_int_equal(bf_scenario_load_text(y, strlen(y), "s.yaml", NULL, &sc, &d), BF_E_INVAL);
    assert_string_equal(d.msg, want[0]);
}

/* run.first_warmup: the first cell's warmup when longer than run.warmup (0s = none); a value
 * that is not longer is said to change nothing; `run --warmup` sets both (a smoke run). */
static void test_first_warmup(void **state)
{
    (void)state;
    const char *base = "name: t\ntarget: {hosts: [http://127.0.0.1:9200]}\n"
                       "document: {source: '{\"a\": 1}'}\n";
    char y[512];
    bf_diag_t d = {0};
    bf_scenario_t *sc = NULL;
    snprintf(y, sizeof y, "%srun: {warmup: 5s, duration: 10s}\n", base);
    assert_int_equal(bf_scenario_load_text(y, strlen(y), "s.yaml", NULL, &sc, &d), BF_OK);
    assert_int_equal(bf_scenario_run(sc)->first_warmup_ms, 0);
    assert_int_equal(bf_scenario_warning_count(sc), 0);
    bf_scenario_destroy(&sc);
    snprintf(y, sizeof y, "%srun: {warmup: 5s, first_warmup: 30s, duration: 10s}\n", base);
    assert_int_equal(bf_scenario_load_text(y, strlen(y), "s.yaml", NULL, &sc, &d), BF_OK);
    assert_int_equal(bf_scenario_run(sc)->warmup_ms, 5000);
    assert_int_equal(bf_scenario_run(sc)->first_warmup_ms, 30000);
    assert_int_equal(bf_scenario_warning_count(sc), 0);
    bf_scenario_set_warmup(sc, 30000); /* the campaign's first cell */
    assert_int_equal(bf_scenario_run(sc)->warmup_ms, 30000);
    assert_int_equal(bf_scenario_run(sc)->first_warmup_ms, 30000);
    bf_scenario_set_warmup(sc, 5000);
    /* a smoke run's --warmup sets run.warmup only: the first cell against a fresh cluster
     * keeps its longer warmup (it used to be cut to the smoke warmup too); --first-warmup
     * sets the other */
    uint64_t smoke = 1000, first = 20000, dur = 3000;
    bf_scenario_override_run(sc, &smoke, NULL, NULL);
    assert_int_equal(bf_scenario_run(sc)->warmup_ms, 1000);
    assert_int_equal(bf_scenario_run(sc)->first_warmup_ms, 30000);
    assert_int_equal(bf_scenario_run(sc)->duration_ms, 10000);
    bf_scenario_override_run(sc, NULL, &first, &dur);
    assert_int_equal(bf_scenario_run(sc)->warmup_ms, 1000);
    assert_int_equal(bf_scenario_run(sc)->first_warmup_ms, 20000);
    assert_int_equal(bf_scenario_run(sc)->duration_ms, 3000);
    bf_scenario_destroy(&sc);
    snprintf(y, sizeof y, "%srun: {warmup: 10s, first_warmup: 5s}\n", base);
    assert_int_equal(bf_scenario_load_text(y, strlen(y), "s.yaml", NULL, &sc, &d), BF_OK);
    assert_int_equal(bf_scenario_warning_count(sc), 1);
    assert_non_null(strstr(bf_scenario_warning(sc, 0),
                           "s.yaml:4:34: run.first_warmup is not longer than run.warmup"));
    bf_scenario_destroy(&sc);
    snprintf(y, sizeof y, "%srun: {first_warmup: 2 s}\n", base);
    assert_int_equal(bf_scenario_load_text(y, strlen(y), "s.yaml", NULL, &sc, &d), BF_E_INVAL);
    assert_non_null(strstr(d.msg, "run.first_warmup: expected a duration"));
    /* run.warmup: auto: agents plan run.warmup_max (default 60s), the coordinator ends it */
    snprintf(y, sizeof y, "%srun: {warmup: auto}\n", base);
    assert_int_equal(bf_scenario_load_text(y, strlen(y), "s.yaml", NULL, &sc, &d), BF_OK);
    assert_true(bf_scenario_run(sc)->warmup_auto);
    assert_int_equal(bf_scenario_run(sc)->warmup_ms, 60000);
    assert_int_equal(bf_scenario_run(sc)->warmup_max_ms, 60000);
    bf_scenario_override_run(sc, &smoke, NULL, NULL); /* --warmup 1s: a fixed warmup */
    assert_false(bf_scenario_run(sc)->warmup_auto);
    assert_int_equal(bf_scenario_run(sc)->warmup_ms, 1000);
    bf_scenario_destroy(&sc);
    snprintf(y, sizeof y, "%srun: {warmup: auto, warmup_max: 45s}\n", base);
    assert_int_equal(bf_scenario_load_text(y, strlen(y), "s.yaml", NULL, &sc, &d), BF_OK);
    assert_int_equal(bf_scenario_run(sc)->warmup_ms, 45000);
    assert_int_equal(bf_scenario_warning_count(sc), 0);
    bf_scenario_destroy(&sc);
    snprintf(y, sizeof y, "%srun: {warmup: 5s, warmup_max: 45s}\n", base);
    assert_int_equal(bf_scenario_load_text(y, strlen(y), "s.yaml", NULL, &sc, &d), BF_OK);
    assert_false(bf_scenario_run(sc)->warmup_auto);
    assert_int_equal(bf_scenario_run(sc)->warmup_ms, 5000);
    assert_int_equal(bf_scenario_warning_count(sc), 1);
    assert_non_null(strstr(bf_scenario_warning(sc, 0), "run.warmup_max applies only to"));
    bf_scenario_destroy(&sc);
    snprintf(y, sizeof y, "%srun: {warmup: automatic}\n", base);
    memset(&d, 0, sizeof d);
    assert_int_equal(bf_scenario_load_text(y, strlen(y), "s.yaml", NULL, &sc, &d), BF_E_INVAL);
    assert_non_null(strstr(d.msg, "or auto"));
    assert_null(strstr(d.msg, "run.warmup_max"));
    snprintf(y, sizeof y, "%srun: {first_warmup: auto}\n", base);
    assert_int_equal(bf_scenario_load_text(y, strlen(y), "s.yaml", NULL, &sc, &d), BF_E_INVAL);
}

static void test_env_warn_stand_ins(void **state)
{
    (void)state;
    unsetenv("BF_T_UNSET_URL");
    unsetenv("BF_T_UNSET_PW");
    unsetenv("BF_T_UNSET_C");
    const char *text =
        "name: s\ntarget:\n  hosts: [\"${BF_T_UNSET_URL}\"]\n"
        "  auth: {username: u, password: \"${BF_T_UNSET_PW}\"}\n"
        "document: {source: '{\"a\": 1}'}\nmatrix:\n  concurrency: ${BF_T_UNSET_C}\n";
    bf_load_opts_t o = {.base_dir = FIXDIR, .env_warn = 1};
    bf_scenario_t *sc = load_text_ok(text, &o);
    assert_non_null(sc);
    assert_string_equal(bf_scenario_target(sc)->hosts[0], "http://unset.invalid:9200");
    assert_string_equal(bf_scenario_target(sc)->password, "unset-bf_t_unset_pw");
    assert_int_equal(bf_scenario_cell(sc, 0)->concurrency, 1);
    assert_int_equal(bf_scenario_warning_count(sc), 3);
    assert_non_null(strstr(bf_scenario_warning(sc, 0), "inline.yaml:3:12: environment "
                                                       "variable BF_T_UNSET_URL is not set"));
    bf_scenario_destroy(&sc);
    /* without env_warn (run, validate --strict) it stays an error */
    load_text_err(text, "inline.yaml:3:12: environment variable BF_T_UNSET_URL is not set",
                  "export it");
}

/* findings.alpha and findings.noise_band: defaults 0.05 and 2 %, a share or a percentage, out
 * of range refused with the key's place */
static void test_findings_keys(void **state)
{
    (void)state;
    bf_scenario_t *sc = load_text_ok("name: d\ntarget: {hosts: http://127.0.0.1:9200/}\n"
                                     "document: {source: '{}'}\n",
                                     NULL);
    assert_true(fabs(bf_scenario_findings(sc)->alpha - 0.05) < 1e-12);
    assert_true(fabs(bf_scenario_findings(sc)->noise_band - 0.02) < 1e-12);
    bf_scenario_destroy(&sc);
    sc = load_text_ok("name: d\ntarget: {hosts: http://127.0.0.1:9200/}\n"
                      "document: {source: '{}'}\nfindings: {alpha: 1%, noise_band: 0.05}\n",
                      NULL);
    assert_true(fabs(bf_scenario_findings(sc)->alpha - 0.01) < 1e-12);
    assert_true(fabs(bf_scenario_findings(sc)->noise_band - 0.05) < 1e-12);
    bf_scenario_destroy(&sc);
    sc = load_text_ok("name: d\ntarget: {hosts: http://127.0.0.1:9200/}\n"
                      "document: {source: '{}'}\nfindings: {noise_band: 0}\n",
                      NULL);
    assert_true(bf_scenario_findings(sc)->noise_band == 0.0);
    bf_scenario_destroy(&sc);
    load_text_err("name: d\ntarget: {hosts: http://127.0.0.1:9200/}\n"
                  "document: {source: '{}'}\nfindings: {alpha: 0.5}\n",
                  "inline.yaml:4:", "findings.alpha: expected a share from 0.001 to 0.2");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_headers_owned_by_bulkfleet),
        cmocka_unit_test(test_examples_validate),
        cmocka_unit_test(test_quickstart_shape),
        cmocka_unit_test(test_sha256_known),
        cmocka_unit_test(test_target_env_override),
        cmocka_unit_test(test_err_unknown_key),
        cmocka_unit_test(test_err_wrong_type),
        cmocka_unit_test(test_err_bad_duration),
        cmocka_unit_test(test_err_bad_count),
        cmocka_unit_test(test_err_empty_axis),
        cmocka_unit_test(test_err_missing_dict),
        cmocka_unit_test(test_err_missing_mappings),
        cmocka_unit_test(test_err_tls_not_pem),
        cmocka_unit_test(test_big_integers),
        cmocka_unit_test(test_env_unset_stand_in),
        cmocka_unit_test(test_err_unknown_placeholder),
        cmocka_unit_test(test_err_invalid_json),
        cmocka_unit_test(test_err_duplicate_json_key),
        cmocka_unit_test(test_err_body_too_big),
        cmocka_unit_test(test_err_env_missing),
        cmocka_unit_test(test_err_yaml_syntax),
        cmocka_unit_test(test_err_missing_required),
        cmocka_unit_test(test_err_bad_enum),
        cmocka_unit_test(test_err_filter_path),
        cmocka_unit_test(test_err_mappings_json),
        cmocka_unit_test(test_err_duplicate_variable),
        cmocka_unit_test(test_err_exclude_value),
        cmocka_unit_test(test_err_unknown_axis),
        cmocka_unit_test(test_err_index_name_rules),
        cmocka_unit_test(test_err_index_placeholder),
        cmocka_unit_test(test_err_key_not_for_type),
        cmocka_unit_test(test_err_duplicate_yaml_key),
        cmocka_unit_test(test_err_source_file_json),
        cmocka_unit_test(test_err_range_bounds),
        cmocka_unit_test(test_err_bad_url),
        cmocka_unit_test(test_err_bad_url_bracket),
        cmocka_unit_test(test_warn_replicas),
        cmocka_unit_test(test_inline_errors),
        cmocka_unit_test(test_env_set_and_defaults),
        cmocka_unit_test(test_env_missing_position),
        cmocka_unit_test(test_env_no_env_keeps_text),
        cmocka_unit_test(test_matrix_include_exclude_settings),
        cmocka_unit_test(test_matrix_defaults_no_matrix),
        cmocka_unit_test(test_request_and_target_options),
        cmocka_unit_test(test_metrics_store_section),
        cmocka_unit_test(test_filter_path_patterns),
        cmocka_unit_test(test_resolved_round_trip),
        cmocka_unit_test(test_resolved_round_trip_env_edge_values),
        cmocka_unit_test(test_redaction),
        cmocka_unit_test(test_load_file_errors),
        cmocka_unit_test(test_quoted_filter_path_true_is_a_string),
        cmocka_unit_test(test_data_stream),
        cmocka_unit_test(test_pipeline),
        cmocka_unit_test(test_env_warn_stand_ins),
        cmocka_unit_test(test_all_key_errors),
        cmocka_unit_test(test_stage_gates_collected),
        cmocka_unit_test(test_yaml_unclosed_flow),
        cmocka_unit_test(test_all_later_mistakes),
        cmocka_unit_test(test_axis_typo_with_key_mistakes),
        cmocka_unit_test(test_unclosed_placeholder),
        cmocka_unit_test(test_first_warmup),
        cmocka_unit_test(test_targets_and_agents_axes),
        cmocka_unit_test(test_elastic_serverless_named_targets),
        cmocka_unit_test(test_search_section),
        cmocka_unit_test(test_search_paging),
        cmocka_unit_test(test_search_mistakes),
        cmocka_unit_test(test_search_msearch),
        cmocka_unit_test(test_findings_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
