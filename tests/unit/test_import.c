/* SPDX-License-Identifier: MIT */
/* test_import.c — import-loadgen on the seed studies' loadgen configs (000, 003): the output
 * loads as a scenario with the same workload; plus the CLI commands end to end. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "bf_buf.h"
#include "bf_cmd_scenario.h"
#include "bf_mem.h"
#include "bf_scenario.h"
#include "bf_import_loadgen.h"
#include "bf_import_yaml.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LGDIR BF_SOURCE_DIR "/tests/fixtures/loadgen"

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    bf_buf_t b;
    bf_buf_init(&b, 0);
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        bf_buf_append(&b, chunk, n);
    fclose(f);
    return bf_buf_steal(&b);
}

static char *import_file(const char *name, const bf_import_opts_t *o)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", LGDIR, name);
    char *text = slurp(path), *yaml = NULL;
    bf_diag_t d = {0};
    int rc = bf_import_loadgen(text, strlen(text), name, o, &yaml, &d);
    free(text);
    if (rc != 0)
        fail_msg("import %s: %s", name, d.msg);
    return yaml;
}

static bf_scenario_t *load_yaml(const char *yaml, bf_diag_t *d)
{
    bf_load_opts_t lo = {.base_dir = LGDIR};
    bf_scenario_t *sc = NULL;
    bf_scenario_load_text(yaml, strlen(yaml), "imported.yaml", &lo, &sc, d);
    return sc;
}

static const bf_var_spec_t *var(const bf_scenario_t *sc, const char *name)
{
    long i = bf_scenario_variable_find(sc, name);
    assert_true(i >= 0);
    return &bf_scenario_variables(sc)[i];
}

static void test_seed000_dedup_validates(void **state)
{
    (void)state;
    setenv("ES_PASSWORD", "from-the-environment", 1);
    bf_import_opts_t o = {.concurrency = 100, .duration_s = 6000, .compress = 1};
    char *yaml = import_file("000-loadgen-dedup.yml", &o);
    /* the literal password of the config is never copied */
    assert_null(strstr(yaml, "REPLACED-not-the-real-password"));
    assert_non_null(strstr(yaml, "${ES_PASSWORD}"));
    /* statsd: is converted to the coordinator flag, not dropped */
    assert_non_null(strstr(yaml, "statsd: disabled in loadgen; live metrics are a coordinator "
                                 "flag: run with --statsd 192.168.3.98:8125 (UDP; keys start "
                                 "with bulkfleet., not the namespace 'loadgen.'"));
    bf_diag_t d = {0};
    bf_scenario_t *sc = load_yaml(yaml, &d);
    if (sc == NULL)
        fail_msg("%s\n%s", d.msg, yaml);
    assert_string_equal(bf_scenario_name(sc), "000-loadgen-dedup");
    const bf_target_t *t = bf_scenario_target(sc);
    assert_string_equal(t->hosts[0], "https://xxx.elasticsearch.xxx.cn:9243");
    assert_int_equal(t->auth, BF_AUTH_BASIC);
    assert_string_equal(t->username, "elastic");
    assert_string_equal(t->password, "from-the-environment");
    assert_int_equal(t->tls_insecure, 1);
    assert_string_equal(bf_scenario_index(sc)->name, "idx-xxxxxx-xxxxxx");
    assert_int_equal(bf_scenario_index(sc)->recreate, 0);
    assert_int_equal(bf_scenario_cell_count(sc), 1);
    const bf_cell_t *c = bf_scenario_cell(sc, 0);
    assert_int_equal(c->batch_size, 50);
    assert_int_equal(c->concurrency, 100);
    assert_int_equal(c->compression, BF_COMPRESS_GZIP);
    assert_int_equal(bf_scenario_run(sc)->duration_ms, 6000000);
    const bf_document_spec_t *doc = bf_scenario_document(sc);
    assert_int_equal(doc->action, BF_ACTION_CREATE);
    assert_string_equal(doc->id, "$[[uuid]]");
    assert_string_equal(doc->routing, "$[[routing_no]]");
    assert_int_equal(var(sc, "uuid")->type, BF_VAR_SORTABLE_ID);
    assert_int_equal(var(sc, "routing_no")->type, BF_VAR_SORTABLE_ID);
    assert_int_equal(var(sc, "routing_no")->scope, BF_VAR_SCOPE_DOCUMENT);
    assert_int_equal(var(sc, "id")->type, BF_VAR_SEQUENCE);
    assert_int_equal(var(sc, "id")->from, 1); /* loadgen's first value is from + 1 */
    assert_int_equal(var(sc, "bool")->type, BF_VAR_RANGE);
    assert_int_equal(bf_scenario_variable_find(sc, "message"), -1); /* unused: left out */
    assert_true(bf_scenario_doc_bytes(sc) > 1500);
    bf_scenario_destroy(&sc);
    free(yaml);
    unsetenv("ES_PASSWORD");
}

static void test_seed000_verbatim_duplicate_keys_caught(void **state)
{
    (void)state;
    setenv("ES_PASSWORD", "x", 1);
    bf_import_opts_t o = {.concurrency = 100, .duration_s = 6000, .compress = 1};
    char *yaml = import_file("000-loadgen.yml", &o);
    bf_diag_t d = {0};
    bf_scenario_t *sc = load_yaml(yaml, &d);
    /* the report's x-masked field names collide; OpenSearch would reject every document */
    assert_null(sc);
    assert_non_null(strstr(d.msg, "duplicate object key near '\"conxxxxxx\"'"));
    /* the position is that of the second "conxxxxxx" in the source line of the output */
    const char *src = strstr(yaml, "  source: ");
    assert_non_null(src);
    int line = 1;
    for (const char *p = yaml; p < src; p++)
        line += *p == '\n';
    const char *first = strstr(src, "\"conxxxxxx\"");
    const char *second = strstr(first + 1, "\"conxxxxxx\"");
    char want[64];
    snprintf(want, sizeof want, "imported.yaml:%d:%d: ", line, (int)(second - src) + 1);
    assert_memory_equal(d.msg, want, strlen(want));
    free(yaml);
    /* the import itself lists every duplicate, not only the first */
    char path[512];
    snprintf(path, sizeof path, "%s/000-loadgen.yml", LGDIR);
    char *text = slurp(path);
    bf_diag_t di = {0};
    yaml = NULL;
    assert_int_equal(bf_import_loadgen(text, strlen(text), "000-loadgen.yml", &o, &yaml, &di), 0);
    assert_non_null(yaml);
    assert_non_null(strstr(di.msg, "000-loadgen.yml:48:13: body: the source line has 3 duplicate "
                                   "keys"));
    assert_non_null(strstr(di.msg, "\"conxxxxxx\" (characters 161 and 1871)"));
    assert_non_null(strstr(di.msg, "\"contxxxxxx\" (characters 79 and 1921)"));
    assert_non_null(strstr(di.msg, "\"contxxxxxxe\" (characters 1826 and 1970)"));
    assert_non_null(strstr(yaml, "# Notes:"));
    assert_non_null(strstr(yaml, "the body's source line repeats 3 keys"));
    free(text);
    free(yaml);
    unsetenv("ES_PASSWORD");
}

static char *import_text(const char *text, const bf_import_opts_t *o, bf_diag_t *d);

/* duplicate keys at any depth, in the action line too; a config without any leaves diag empty */
static void test_import_lists_every_duplicate_key(void **state)
{
    (void)state;
    const char *lg =
        "variables:\n  - {name: n, type: range, from: 0, to: 1}\n"
        "requests:\n  - request:\n      url: http://127.0.0.1:9200/_bulk\n"
        "      body: |\n        {\"index\": {\"_index\": \"lg-$[[n]]\"}}\n"
        "        {\"a\": 1, \"b\": {\"x\": $[[n]], \"x\": 2, \"y\": [{\"z\": 1, \"z\": 2}]}, "
        "\"a\": \"$[[n]]\", \"c\": \"\\\"a\\\"\"}\n";
    bf_diag_t d = {0};
    char *yaml = import_text(lg, NULL, &d);
    assert_non_null(yaml);
    assert_string_equal(d.msg, "lg.yml:6:13: body: the source line has 3 duplicate keys, which "
                               "OpenSearch refuses (every document would fail): \"b.x\" "
                               "(characters 16 and 29), \"b.y[].z\" (characters 44 and 52), "
                               "\"a\" (characters 2 and 63); keep one of each (the characters "
                               "count from the line's first)");
    /* range from 0: plain {i}, lg-0 and lg-1 */
    assert_non_null(strstr(yaml, "name: 'lg-{i}'"));
    free(yaml);
    /* {i+N} in the loader: numbered from N; anything else after i is refused with its place */
    const char *sc_ok = "name: t\ntarget: {hosts: ['http://127.0.0.1:9200']}\n"
                        "index: {name: 'x-{i+7}', count: 2}\n"
                        "document: {source: '{\"a\": 1}'}\n";
    memset(&d, 0, sizeof d);
    bf_scenario_t *sc = load_yaml(sc_ok, &d);
    if (sc == NULL)
        fail_msg("%s", d.msg);
    assert_string_equal(bf_scenario_cell(sc, 0)->index_names[0], "x-7");
    assert_string_equal(bf_scenario_cell(sc, 0)->index_names[1], "x-8");
    bf_scenario_destroy(&sc);
    const char *sc_bad = "name: t\ntarget: {hosts: ['http://127.0.0.1:9200']}\n"
                         "index: {name: 'x-{i+k}', count: 2}\n"
                         "document: {source: '{\"a\": 1}'}\n";
    memset(&d, 0, sizeof d);
    assert_null(load_yaml(sc_bad, &d));
    assert_non_null(strstr(d.msg, "imported.yaml:3:"));
    assert_non_null(strstr(d.msg, "index.name: {i+k}: expected {i} or {i+N}"));
    const char *act = "requests:\n  - request:\n      url: http://127.0.0.1:9200/_bulk\n"
                      "      body: |\n        {\"index\": {\"_index\": \"i\", \"_index\": \"j\"}}\n"
                      "        {\"a\": 1}\n";
    memset(&d, 0, sizeof d);
    yaml = import_text(act, NULL, &d);
    assert_non_null(yaml);
    assert_non_null(strstr(d.msg, "the action line has 1 duplicate key, "));
    if (strstr(d.msg, "\"index._index\" (characters 12 and 27)") == NULL)
        fail_msg("%s", d.msg);
    free(yaml);
    const char *clean = "requests:\n  - request:\n      url: http://127.0.0.1:9200/i/_bulk\n"
                        "      body: |\n        {\"index\": {}}\n        {\"a\": {\"a\": 1}}\n";
    memset(&d, 0, sizeof d);
    yaml = import_text(clean, NULL, &d);
    assert_non_null(yaml);
    assert_string_equal(d.msg, "");
    free(yaml);
}

static void test_seed003_validates(void **state)
{
    (void)state;
    setenv("ES_PASSWORD", "x", 1);
    unsetenv("BF_TARGET");
    bf_import_opts_t o = {.concurrency = 200, .duration_s = 60000, .compress = 1};
    char *yaml = import_file("003-loadgen.yml", &o);
    bf_diag_t d = {0};
    bf_scenario_t *sc = load_yaml(yaml, &d);
    if (sc == NULL)
        fail_msg("%s\n%s", d.msg, yaml);
    assert_string_equal(bf_scenario_target(sc)->hosts[0], "http://127.0.0.1:9200");
    const bf_cell_t *c = bf_scenario_cell(sc, 0);
    assert_int_equal(c->batch_size, 5000);
    assert_int_equal(c->concurrency, 200);
    /* test-$[[suffix]] with suffix 10..13: the names loadgen wrote into */
    assert_int_equal(c->indices, 4);
    assert_string_equal(c->index_names[0], "test-10");
    assert_string_equal(c->index_names[1], "test-11");
    assert_string_equal(c->index_names[3], "test-13");
    assert_non_null(strstr(yaml, "named test-{i+10}: test-10 .. test-13 as in loadgen"));
    assert_int_equal(var(sc, "batch_no")->scope, BF_VAR_SCOPE_REQUEST);
    assert_int_equal(var(sc, "batch_no")->type, BF_VAR_SEQUENCE);
    assert_int_equal(var(sc, "routing_no")->scope, BF_VAR_SCOPE_DOCUMENT);
    assert_int_equal(var(sc, "message")->type, BF_VAR_FILE);
    assert_string_equal(var(sc, "message")->path, "nginx.log");
    assert_int_equal(var(sc, "suffix")->from, 10);
    assert_int_equal(var(sc, "suffix")->to, 13);
    assert_int_equal(bf_scenario_variable_find(sc, "user"), -1);
    /* variables keep loadgen's order */
    assert_string_equal(bf_scenario_variables(sc)[0].name, "ip");
    assert_null(bf_scenario_document(sc)->routing);
    bf_scenario_destroy(&sc);
    free(yaml);
    /* the second host's config: 10000 per bulk */
    bf_import_opts_t o2 = {.concurrency = 100, .duration_s = 66000};
    yaml = import_file("003-loadgen2.yml", &o2);
    sc = load_yaml(yaml, &d);
    if (sc == NULL)
        fail_msg("%s\n%s", d.msg, yaml);
    assert_int_equal(bf_scenario_cell(sc, 0)->batch_size, 10000);
    assert_int_equal(bf_scenario_cell(sc, 0)->compression, BF_COMPRESS_NONE);
    assert_int_equal(bf_scenario_run(sc)->duration_ms, 66000000);
    bf_scenario_destroy(&sc);
    free(yaml);
    unsetenv("ES_PASSWORD");
}

static char *import_text(const char *text, const bf_import_opts_t *o, bf_diag_t *d)
{
    char *yaml = NULL;
    bf_import_loadgen(text, strlen(text), "lg.yml", o, &yaml, d);
    return yaml;
}

/* a loadgen request that is a search becomes a named query; the bulk index becomes {index} */
static void test_import_search_requests(void **state)
{
    (void)state;
    const char *lg =
        "variables:\n  - {name: id, type: sequence}\n  - {name: st, type: list, data: [200, 404]}\n"
        "requests:\n  - request:\n      method: POST\n      url: http://127.0.0.1:9200/lg/_bulk\n"
        "      body: |\n        {\"index\": {\"_index\": \"lg\"}}\n        {\"id\": $[[id]]}\n"
        "  - request:\n      method: GET\n      url: http://127.0.0.1:9200/lg/_search?size=5\n"
        "      body: '{\"query\": {\"term\": {\"st\": $[[st]]}}}'\n"
        "  - request:\n      method: POST\n      url: http://127.0.0.1:9200/other/_count\n"
        "  - request:\n      method: GET\n      url: http://127.0.0.1:9200/_cat/indices\n"
        "  - request:\n      method: POST\n      url: http://127.0.0.1:9200/lg/_msearch\n"
        "      body: |\n        {}\n        {\"query\": {\"term\": {\"st\": $[[st]]}}}\n"
        "        {\"index\": \"other\"}\n        {\"size\": 0}\n";
    bf_import_opts_t o = {.concurrency = 2, .duration_s = 5};
    bf_diag_t d = {0};
    char *yaml = import_text(lg, &o, &d);
    if (yaml == NULL)
        fail_msg("%s", d.msg);
    assert_non_null(strstr(yaml, "the bulk request and 3 search requests were imported"));
    bf_scenario_t *sc = load_yaml(yaml, &d);
    if (sc == NULL)
        fail_msg("%s\n%s", d.msg, yaml);
    const bf_search_spec_t *ss = bf_scenario_search(sc);
    assert_true(ss->enabled);
    assert_int_equal(ss->nqueries, 3);
    /* an _msearch request: its NDJSON body kept line by line, validated as header/body pairs */
    assert_string_equal(ss->queries[2].path, "/{index}/_msearch");
    assert_true(ss->queries[2].msearch);
    assert_true(ss->queries[2].msearch_retargets); /* a header names "other" */
    assert_non_null(strstr(ss->queries[2].body, "{}\n{\"query\""));
    assert_string_equal(ss->queries[0].path, "/{index}/_search?size=5");
    assert_false(ss->queries[0].post);
    assert_string_equal(ss->queries[0].body, "{\"query\": {\"term\": {\"st\": $[[st]]}}}");
    assert_string_equal(ss->queries[1].path, "/other/_count"); /* another index: as written */
    assert_true(ss->queries[1].post);
    assert_null(ss->queries[1].body);
    /* the search body's variable is imported although the bulk body does not use it */
    assert_true(bf_scenario_variable_find(sc, "st") >= 0);
    bf_scenario_destroy(&sc);
    free(yaml);
}

static void test_import_env_formats_and_rate(void **state)
{
    (void)state;
    const char *text =
        "env:\n  ES_ENDPOINT: http://127.0.0.1:9200\n"
        "variables:\n"
        "  - {name: ts, type: now_with_format, format: \"2006-01-02T15:04:05.000Z07:00\"}\n"
        "  - {name: ms, type: now_unix_in_ms}\n"
        "  - {name: tags, type: list, data: [a, b]}\n"
        "  - {name: arr, type: random_array, variable_key: tags, size: 2, variable_type: string, "
        "square_bracket: true}\n"
        "  - {name: n, type: sequence64, from: 10, to: 99}\n"
        "requests:\n"
        "  - request:\n"
        "      method: GET\n      url: $[[env.ES_ENDPOINT]]/_cluster/health\n"
        "  - request:\n"
        "      method: POST\n      url: $[[env.ES_ENDPOINT]]/logs/_bulk\n"
        "      headers:\n        - X-Tenant: $[[env.TENANT]]\n"
        "      basic_auth:\n        username: bench\n        password: $[[env.BENCH_PW]]\n"
        "      body_repeat_times: 20\n"
        "      body: |\n"
        "        {\"index\": {\"_id\": \"$[[n]]\"}}\n"
        "        {\"ts\": \"$[[ts]]\", \"ms\": $[[ms]], \"tags\": $[[arr]], \"cost\": \"${x}\"}\n";
    bf_import_opts_t o = {.qps = 5};
    bf_diag_t d = {0};
    char *yaml = import_text(text, &o, &d);
    if (yaml == NULL)
        fail_msg("%s", d.msg);
    assert_non_null(strstr(yaml, "hosts: ['${ES_ENDPOINT:-http://127.0.0.1:9200}']"));
    assert_non_null(strstr(yaml, "password: '${BENCH_PW}'"));
    assert_non_null(strstr(yaml, "format: '%Y-%m-%dT%H:%M:%S%z'"));
    assert_non_null(strstr(yaml, "fractional seconds"));
    assert_non_null(strstr(yaml, "type: now_unix_ms"));
    assert_non_null(strstr(yaml, "target_rate: 100"));
    setenv("BENCH_PW", "pw", 1);
    setenv("TENANT", "t1", 1);
    unsetenv("ES_ENDPOINT");
    bf_scenario_t *sc = load_yaml(yaml, &d);
    if (sc == NULL)
        fail_msg("%s\n%s", d.msg, yaml);
    assert_string_equal(bf_scenario_index(sc)->name, "logs");
    assert_string_equal(bf_scenario_target(sc)->headers[0], "X-Tenant: t1");
    assert_string_equal(bf_scenario_target(sc)->password, "pw");
    assert_true(bf_scenario_run(sc)->target_rate == 100.0);
    assert_int_equal(bf_scenario_cell(sc, 0)->batch_size, 20);
    /* "${x}" in the loadgen body is text, not an environment variable */
    assert_non_null(strstr(bf_scenario_document(sc)->source, "\"cost\": \"${x}\""));
    assert_int_equal(var(sc, "n")->from, 11);
    assert_int_equal(var(sc, "n")->to, 99);
    bf_scenario_destroy(&sc);
    free(yaml);
    unsetenv("BENCH_PW");
    unsetenv("TENANT");
}

/* loadgen's own example config, as shipped (written for this test with the
 * constructs of infinilabs/loadgen's loadgen.yml, not copied): $[[env.X]] in
 * runner.default_endpoint and default_basic_auth with the env: section's defaults, a secret
 * without its default, runner keys, a body with two documents for two indices, a search with a
 * full $[[env.X]] URL, assert and register beside a request. The import's own check loads the
 * result as validate does: an unset variable is a stand-in and a warning, never a failure. */
static void test_import_as_shipped(void **state)
{
    (void)state;
    const char *text =
        "env:\n  LG_USER: bench\n  LG_PASSWORD: secret-in-the-file\n"
        "  LG_ENDPOINT: http://127.0.0.1:9200\n"
        "runner:\n  no_warm: true\n  valid_status_codes_during_warmup: [200, 201]\n"
        "  log_status_codes: [0, 500]\n  assert_error: false\n  reset_context: false\n"
        "  default_endpoint: $[[env.LG_ENDPOINT]]\n"
        "  default_basic_auth:\n    username: $[[env.LG_USER]]\n"
        "    password: $[[env.LG_PASSWORD]]\n"
        "variables:\n  - {name: id, type: sequence}\n  - {name: u, type: uuid}\n"
        "  - {name: tag, type: list, data: [a, b]}\n"
        "  - {name: ids, type: random_array, variable_type: number, variable_key: id, size: 3}\n"
        "requests:\n"
        "  - request:\n      method: POST\n      url: /_bulk\n      body: |\n"
        "        {\"index\": {\"_index\": \"lg-one\", \"_id\": \"$[[u]]\"}}\n"
        "        {\"id\": \"$[[id]]\", \"tag\": \"$[[tag]]\"}\n"
        "        {\"index\": {\"_index\": \"lg-two\", \"_id\": \"$[[u]]\"}}\n"
        "        {\"id\": \"$[[id]]\", \"tag\": \"$[[tag]]\"}\n"
        "    assert:\n      _ctx.response.status: 200\n"
        "  - request:\n      method: POST\n      url: $[[env.LG_ENDPOINT]]/lg-one/_search\n"
        "      body: '{\"query\": {\"terms\": {\"id\": [ $[[ids]] ]}}}'\n"
        "    register:\n      - hits: _ctx.response.body_json.hits.total\n"
        "  - request:\n      method: DELETE\n      url: /lg-one\n";
    bf_diag_t d = {0};
    char *yaml = import_text(text, NULL, &d);
    if (yaml == NULL)
        fail_msg("%s", d.msg);
    assert_string_equal(d.msg, "");
    assert_non_null(strstr(yaml, "hosts: ['${LG_ENDPOINT:-http://127.0.0.1:9200}']"));
    assert_non_null(strstr(yaml, "username: '${LG_USER:-bench}'"));
    /* a secret: never its value from the file, and a note to export it */
    assert_non_null(strstr(yaml, "password: '${LG_PASSWORD}'"));
    assert_null(strstr(yaml, "secret-in-the-file"));
    assert_non_null(strstr(yaml, "LG_PASSWORD looks like a secret: its value in the env: "
                                 "section is not copied; export LG_PASSWORD"));
    assert_non_null(strstr(yaml, "#  - runner.no_warm: not imported"));
    assert_non_null(strstr(yaml, "#  - runner.valid_status_codes_during_warmup: not imported"));
    assert_non_null(strstr(yaml, "#  - runner.log_status_codes: not imported"));
    assert_non_null(strstr(yaml, "#  - runner.reset_context: not imported"));
    assert_null(strstr(yaml, "runner.default_endpoint")); /* converted, not a note */
    assert_non_null(strstr(yaml, "request 1: assert not imported; bulkfleet checks every bulk "
                                 "answer item by item"));
    assert_non_null(strstr(yaml, "request 2: register not imported"));
    assert_non_null(strstr(yaml, "request 3 (DELETE /lg-one) not imported"));
    assert_non_null(strstr(yaml, "document 2 of the body goes to index 'lg-two' in loadgen; "
                                 "bulkfleet sends every document to 'lg-one'"));
    assert_non_null(strstr(yaml, "path: '/{index}/_search'"));
    /* as validate loads it: LG_PASSWORD unset is a warning with a stand-in, not an error */
    unsetenv("LG_PASSWORD");
    unsetenv("LG_ENDPOINT");
    bf_load_opts_t lo = {.base_dir = LGDIR, .env_warn = 1};
    bf_scenario_t *sc = NULL;
    if (bf_scenario_load_text(yaml, strlen(yaml), "imported.yaml", &lo, &sc, &d) != 0)
        fail_msg("%s\n%s", d.msg, yaml);
    assert_string_equal(bf_scenario_target(sc)->password, "unset-lg_password");
    int warned = 0;
    for (size_t i = 0; i < bf_scenario_warning_count(sc); i++)
        warned |= strstr(bf_scenario_warning(sc, i), "environment variable LG_PASSWORD is not "
                                                     "set") != NULL;
    assert_true(warned);
    assert_int_equal(bf_scenario_cell(sc, 0)->batch_size, 2);
    bf_scenario_destroy(&sc);
    free(yaml);
}

/* loadgen's DSL (its current format: loadgen.dsl, -run), written for this test with the
 * constructs of infinilabs/loadgen's loadgen.dsl and bulk-testing-example.dsl: "# key: {JSON5}"
 * blocks with // comments and trailing commas, request lines with bodies, "# request:" merged
 * into its request, "# 200" expected answers; the config's sections from -config loadgen.yml. */
static void test_import_dsl(void **state)
{
    (void)state;
    const char *dsl =
        "# // How to use: ES_ENDPOINT=http://127.0.0.1:9200 loadgen -run bulk.dsl\n"
        "\n"
        "# runner: {\n#   // rounds\n#   total_rounds: 10,\n#   no_warm: true,\n# },\n"
        "# variables: [\n#   {name: \"id\", type: \"sequence\",},\n"
        "#   {name: \"u\", type: \"uuid\"}, // the document id\n# ],\n"
        "\n"
        "PUT /dsl-index\n"
        "# 200\n"
        "# {\"acknowledged\":true}\n"
        "\n"
        "POST /_bulk\n"
        "{\"index\": {\"_index\": \"dsl-index\", \"_id\": \"$[[u]]\"}}\n"
        "{\"id\": \"$[[id]]\", \"note\": \"a // is text here\"}\n"
        "# request: {\n#   body_repeat_times: 50,\n#   basic_auth: {\n"
        "#     username: \"$[[env.LG_USER]]\",\n#     password: \"$[[env.LG_PASSWORD]]\",\n"
        "#   },\n# }\n"
        "\n"
        "GET /dsl-index/_count\n"
        "# 200\n";
    const char *cfg = "env:\n  LG_USER: dsluser\n  LG_ENDPOINT: http://127.0.0.1:9201\n"
                      "runner:\n  default_endpoint: $[[env.LG_ENDPOINT]]\n";
    bf_import_opts_t o = {.config_text = cfg, .config_origin = "loadgen.yml"};
    bf_diag_t d = {0};
    char *yaml = NULL;
    if (bf_import_loadgen(dsl, strlen(dsl), "bulk.dsl", &o, &yaml, &d) != 0)
        fail_msg("%s", d.msg);
    assert_non_null(strstr(yaml, "# Imported from bulk.dsl (in its YAML form)"));
    assert_non_null(strstr(yaml, "read from loadgen's DSL"));
    /* the endpoint and the user from -config's runner and env, the DSL's own runner noted */
    assert_non_null(strstr(yaml, "hosts: ['${LG_ENDPOINT:-http://127.0.0.1:9201}']"));
    assert_non_null(strstr(yaml, "username: '${LG_USER:-dsluser}', password: '${LG_PASSWORD}'"));
    assert_non_null(strstr(yaml, "runner.total_rounds: not imported"));
    assert_non_null(strstr(yaml, "request 1 (PUT /dsl-index) not imported"));
    assert_non_null(strstr(yaml, "request 3: assert not imported; search answers"));
    assert_null(strstr(yaml, "request 1: assert")); /* PUT: named as not imported */
    assert_non_null(strstr(yaml, "a // is text here"));
    assert_non_null(strstr(yaml, "batch_size: [50]"));
    assert_non_null(strstr(yaml, "path: '/{index}/_count'"));
    free(yaml);
    /* the DSL without -config: its variables are its own; no endpoint -> ${BF_TARGET} */
    if (bf_import_loadgen(dsl, strlen(dsl), "bulk.dsl", NULL, &yaml, &d) != 0)
        fail_msg("%s", d.msg);
    assert_non_null(strstr(yaml, "${BF_TARGET:-http://127.0.0.1:9200}"));
    free(yaml);
    /* detected without the .dsl name (a first request line); mistakes name the DSL's line */
    const char *open_block = "# runner: {\n#   no_warm: true,\n\nPOST /_bulk\n";
    assert_int_not_equal(
        bf_import_loadgen(open_block, strlen(open_block), "x.txt", NULL, &yaml, &d), 0);
    assert_string_equal(d.msg, "x.txt:1: the '# runner:' block does not close its brackets "
                               "before line 3 (every line of it starts with '#')");
    const char *stray = "GET /\n\nnot a request\n";
    d = (bf_diag_t){0};
    assert_int_not_equal(bf_import_loadgen(stray, strlen(stray), "s.dsl", NULL, &yaml, &d), 0);
    assert_non_null(strstr(d.msg, "s.dsl:3: 'not a request' is neither a request line"));
    /* loadgen's own loadgen.dsl is an API test: no bulk request, each request named */
    const char *api = "DELETE /medcl\n\nPUT /medcl\n\nPOST /medcl/_doc/1\n{\n \"name\": \"m\"\n}\n";
    d = (bf_diag_t){0};
    assert_int_not_equal(bf_import_loadgen(api, strlen(api), "api.dsl", NULL, &yaml, &d), 0);
    assert_non_null(strstr(d.msg, "api.dsl (in its YAML form):"));
    assert_non_null(strstr(d.msg, "no bulk request (a request with a body and a URL ending in "
                                  "/_bulk) among the 3 requests (DELETE /medcl, PUT /medcl, "
                                  "POST /medcl/_doc/1)"));
}

static void expect_import_error(const char *text, const char *prefix, const char *sub)
{
    bf_diag_t d = {0};
    char *yaml = import_text(text, NULL, &d);
    assert_null(yaml);
    if (strncmp(d.msg, prefix, strlen(prefix)) != 0 || !strstr(d.msg, sub))
        fail_msg("got '%s', want '%s' ... '%s'", d.msg, prefix, sub);
}

static void test_import_errors(void **state)
{
    (void)state;
    expect_import_error("variables: []\n", "lg.yml:1:1: ", "no requests");
    expect_import_error("requests:\n  - request: {method: GET, url: 'http://h/_cat/indices'}\n",
                        "lg.yml:2:", "no bulk request");
    expect_import_error("requests:\n  - request: {url: 'http://h/_bulk', body: '{\"index\":{}}'}\n",
                        "lg.yml:2:", "action line and a source line");
    expect_import_error("requests:\n  - request: {url: 'http://h/i/_bulk', body: "
                        "\"{\\\"delete\\\":{}}\\n{}\\n\"}\n",
                        "lg.yml:2:", "not an index or create action");
    expect_import_error("requests:\n  - request: {url: 'http://h/i/_bulk', body: "
                        "\"{\\\"index\\\":{}}\\n{\\\"a\\\": \\\"$[[nope]]\\\"}\\n\"}\n",
                        "lg.yml:2:", "$[[nope]] in the body names no variable");
    expect_import_error("variables:\n  - {name: bm, type: int_array_bitmap, from: 1, to: 9, size: 3}\n"
                        "requests:\n  - request: {url: 'http://h/i/_bulk', body: "
                        "\"{\\\"index\\\":{}}\\n{\\\"a\\\": \\\"$[[bm]]\\\"}\\n\"}\n",
                        "lg.yml:2:", "int_array_bitmap");
    expect_import_error("requests: [\n", "lg.yml:", "YAML syntax error");
}

/* ---- the import's steps, each policy by a table (import() split into steps) --------------- */

static char *import_as(const char *yaml, const char *origin, const bf_import_opts_t *o)
{
    char *out = NULL;
    bf_diag_t d = {0};
    int rc = bf_import_loadgen(yaml, strlen(yaml), origin, o, &out, &d);
    if (rc != 0)
        fail_msg("import %s: %s", origin, d.msg);
    return out;
}

#define ONE_BULK                                                                                   \
    "requests:\n  - request: {url: 'http://h/i/_bulk', body: "                                     \
    "\"{\\\"index\\\":{}}\\n{\\\"a\\\": 1}\\n\"}\n"

/* scenario_name: the file name without its extension, other characters than [A-Za-z0-9._-]
 * made '-', "imported" before a name that would be empty or start with '.' or '-'; --name
 * as given */
static void test_import_step_name(void **state)
{
    (void)state;
    static const struct {
        const char *origin, *given, *want;
    } cases[] = {
        {"dir/lg.yml", NULL, "\nname: lg\n"},
        {"/a.b/seed 000+x.yaml", NULL, "\nname: seed-000-x\n"},
        {"noext", NULL, "\nname: noext\n"},
        {"d/.hidden.yml", NULL, "\nname: imported.hidden\n"},
        {"d/-dash.yml", NULL, "\nname: imported-dash\n"},
        {"d/v1.2.yml", NULL, "\nname: v1.2\n"},
        {"d/x.yml", "given-name", "\nname: given-name\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        bf_import_opts_t o = {.name = cases[i].given};
        char *y = import_as(ONE_BULK, cases[i].origin, &o);
        if (strstr(y, cases[i].want) == NULL)
            fail_msg("origin '%s': want '%s' in:\n%s", cases[i].origin, cases[i].want, y);
        free(y);
    }
}

/* index_pattern: a $[[var]] in _index is a name pattern over index.count indices: a range's
 * own values ({i+from}, from > 0), a list's length (0-based {i}), 1 for other variables,
 * at most 10000; the URL's index when the action line names none */
static void test_import_step_index(void **state)
{
    (void)state;
    static const struct {
        const char *var, *index, *url, *name, *count;
    } cases[] = {
        {"{name: v, type: range, from: 3, to: 7}", "l-$[[v]]", "http://h/_bulk", "'l-{i+3}'",
         "  count: 5\n"},
        {"{name: v, type: range, from: 0, to: 2}", "l-$[[v]]-x", "http://h/_bulk", "'l-{i}-x'",
         "  count: 3\n"},
        {"{name: v, type: range, from: 1, to: 99999}", "$[[v]]", "http://h/_bulk", "'{i+1}'",
         "  count: 10000\n"},
        {"{name: v, type: range, from: 9, to: 2}", "l$[[v]]", "http://h/_bulk", "'l{i}'", NULL},
        {"{name: v, type: list, data: [a, b]}", "l-$[[v]]", "http://h/_bulk", "'l-{i}'",
         "  count: 2\n"},
        {"{name: v, type: uuid}", "l-$[[v]]", "http://h/_bulk", "'l-{i}'", NULL},
        {"{name: v, type: uuid}", "plain", "http://h/_bulk", "plain", NULL},
        {"{name: v, type: uuid}", NULL, "http://h/fromurl/_bulk", "fromurl", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *y = NULL;
        if (cases[i].index)
            y = bf_asprintf(
                "variables:\n  - %s\nrequests:\n  - request: {url: '%s', body: "
                "\"{\\\"index\\\":{\\\"_index\\\":\\\"%s\\\"}}\\n{\\\"a\\\": 1}\\n\"}\n",
                cases[i].var, cases[i].url, cases[i].index);
        else
            y = bf_asprintf("variables:\n  - %s\nrequests:\n  - request: {url: '%s', body: "
                            "\"{\\\"index\\\":{}}\\n{\\\"a\\\": 1}\\n\"}\n",
                            cases[i].var, cases[i].url);
        char *out = import_as(y, "lg.yml", NULL);
        /* imported_name: the same text, so validate leaves the name to the import's note */
        char *want =
            bf_asprintf("index:\n  name: %s\n  imported_name: %s\n%s  recreate: false\n",
                        cases[i].name, cases[i].name, cases[i].count ? cases[i].count : "");
        if (strstr(out, want) == NULL)
            fail_msg("case %zu: want\n%s\nin:\n%s", i, want, out);
        free(want);
        free(out);
        free(y);
    }
}

/* is_search_url: the other requests with _search, _count or _msearch in the URL become
 * search.queries (search_1.., the bulk index as {index}); any other request is counted in
 * the note and left out */
static void test_import_step_searches(void **state)
{
    (void)state;
    const char *yaml =
        "requests:\n"
        "  - request: {url: 'http://h/_cat/indices', method: GET}\n"
        "  - request: {url: 'http://h/i/_bulk', body: \"{\\\"index\\\":{}}\\n{\\\"a\\\": 1}\\n\"}\n"
        "  - request: {url: 'http://h/i/_search', method: get, body: '{\"size\":0}'}\n"
        "  - request: {url: 'http://h/other/_count'}\n"
        "  - request: {url: 'http://h/_msearch', method: POST}\n"
        "  - request: {url: 'http://h/i/_refresh'}\n";
    char *out = import_as(yaml, "lg.yml", NULL);
    assert_non_null(strstr(out, "6 requests in the config; the bulk request and 3 search "
                                "requests were imported"));
    assert_non_null(strstr(out, "    - name: search_1\n      method: GET\n      path: "
                                "'/{index}/_search'\n      body: '{\"size\":0}'\n"
                                "    - name: search_2\n      path: /other/_count\n"
                                "    - name: search_3\n      path: /_msearch\nrun:\n"));
    free(out);
}

/* ---- the CLI ------------------------------------------------------------------------------- */

static int run_cmd(int (*fn)(int, char **), const char *const *args, int n)
{
    char *argv[16];
    for (int i = 0; i < n; i++)
        argv[i] = (char *)args[i];
    argv[n] = NULL;
    fflush(stdout);
    return fn(n, argv);
}

static void test_cli_commands(void **state)
{
    (void)state;
    setenv("ES_PASSWORD", "x", 1);
    /* the imported scenario names its dictionaries relative to itself: write it into a scratch
     * folder (TMPDIR: the build folder under ctest) holding links to the fixture's, never into
     * the source tree */
    const char *tmpdir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/bf-import-XXXXXX", tmpdir);
    assert_non_null(mkdtemp(dir));
    char link_dict[4200], link_log[4200];
    snprintf(link_dict, sizeof link_dict, "%s/dict", dir);
    snprintf(link_log, sizeof link_log, "%s/nginx.log", dir);
    assert_int_equal(symlink(LGDIR "/dict", link_dict), 0);
    assert_int_equal(symlink(LGDIR "/nginx.log", link_log), 0);
    char out[4200];
    snprintf(out, sizeof out, "%s/tmp-import-XXXXXX.yaml", dir);
    int fd = mkstemps(out, 5);
    assert_true(fd >= 0);
    close(fd);
    const char *imp[] = {"import-loadgen", LGDIR "/003-loadgen.yml", "-c", "200", "-d", "60000",
                         "--compress", "-o", out};
    assert_int_equal(run_cmd(bf_cmd_import_loadgen, imp, 9), 0);
    /* seed 000's config has duplicate keys in its body (masked field names): loadgen sent it,
     * bulkfleet refuses it, and the import says so at once (exit 2) instead of at the run */
    char out0[4200];
    snprintf(out0, sizeof out0, "%s/tmp-import0-XXXXXX.yaml", dir);
    int fd0 = mkstemps(out0, 5);
    assert_true(fd0 >= 0);
    close(fd0);
    const char *imp0[] = {"import-loadgen", LGDIR "/000-loadgen.yml", "-o", out0};
    assert_int_equal(run_cmd(bf_cmd_import_loadgen, imp0, 4), 2);
    unlink(out0);
    const char *val[] = {"validate", out};
    assert_int_equal(run_cmd(bf_cmd_validate, val, 2), 0);
    const char *plan[] = {"plan", out, "--agents", "2"};
    assert_int_equal(run_cmd(bf_cmd_plan, plan, 4), 0);
    unlink(out);
    unlink(link_dict);
    unlink(link_log);
    rmdir(dir);
    const char *ex[] = {"plan", BF_SOURCE_DIR "/examples/shard-study.yaml", "--agents", "4",
                        "--cluster-nodes", "1"};
    assert_int_equal(run_cmd(bf_cmd_plan, ex, 6), 0);
    const char *bad[] = {"validate", BF_SOURCE_DIR "/tests/fixtures/scenarios/err_enum.yaml"};
    assert_int_equal(run_cmd(bf_cmd_validate, bad, 2), 2);
    const char *missing[] = {"validate", "/nonexistent/scenario.yaml"};
    assert_int_equal(run_cmd(bf_cmd_validate, missing, 2), 2);
    const char *usage[] = {"plan"};
    assert_int_equal(run_cmd(bf_cmd_plan, usage, 1), 2);
    const char *badopt[] = {"plan", BF_SOURCE_DIR "/examples/quickstart.yaml", "--agents", "x"};
    assert_int_equal(run_cmd(bf_cmd_plan, badopt, 4), 2);
    const char *noimp[] = {"import-loadgen", LGDIR "/does-not-exist.yml"};
    assert_int_equal(run_cmd(bf_cmd_import_loadgen, noimp, 2), 2);
    unsetenv("ES_PASSWORD");
}

/* The shared scenario writer, byte for byte: comments, notes, nested maps, key/value lines with
 * each quoting (a YAML 1.1 boolean word quoted as a key and as a value), block and flow lists,
 * flow maps. */
static void test_yaml_writer(void **state)
{
    (void)state;
    bf_buf_t b;
    bf_buf_init(&b, 0);
    bf_yaml_comment(&b, "Imported from %s.", "x.yml");
    bf_yaml_note(&b, "%d notes", 2);
    bf_yaml_kv(&b, 0, "name", "it's", BF_YQ_SCALAR);
    bf_yaml_map(&b, 0, "index");
    bf_yaml_kv(&b, 1, "on", "yes", BF_YQ_SCALAR);
    bf_yaml_kvf(&b, 1, "count", "%u   # two", 2u);
    bf_yaml_kv(&b, 1, "source", "${A}\n", BF_YQ_DQ_ENV);
    bf_yaml_kv(&b, 1, "plain", "${A}", BF_YQ_DQ);
    bf_yaml_map(&b, 1, "files");
    bf_yaml_item(&b, 2, "a b", BF_YQ_DQ);
    bf_yaml_key(&b, 1, "hosts");
    bf_yaml_put_list(&b, (const char *const[]){"h:1", "-x"}, 2, BF_YQ_SCALAR);
    bf_buf_appendz(&b, "\n");
    bf_yaml_item_kvf(&b, 1, "name", "q%d", 1);
    bf_yaml_flow_t f;
    bf_yaml_flow_open(&f, &b, 1, NULL);
    bf_yaml_flow_kv(&f, "name", "n", BF_YQ_SCALAR);
    bf_yaml_flow_kvf(&f, "to", "%d", 9);
    bf_yaml_flow_key(&f, "data");
    bf_yaml_put_list(&b, (const char *const[]){""}, 1, BF_YQ_SCALAR);
    bf_yaml_flow_close(&f);
    bf_yaml_flow_open(&f, &b, 0, "auth");
    bf_yaml_flow_kv(&f, "user", "u", BF_YQ_RAW);
    bf_yaml_flow_close(&f);
    assert_string_equal(b.data, "# Imported from x.yml.\n"
                                "#  - 2 notes\n"
                                "name: 'it''s'\n"
                                "index:\n"
                                "  'on': 'yes'\n"
                                "  count: 2   # two\n"
                                "  source: \"$${A}\\n\"\n"
                                "  plain: \"${A}\"\n"
                                "  files:\n"
                                "    - \"a b\"\n"
                                "  hosts: [h:1, '-x']\n"
                                "  - name: q1\n"
                                "  - {name: 'n', to: 9, data: [\"\"]}\n"
                                "auth: {user: u}\n");
    bf_buf_cleanup(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seed000_dedup_validates),
        cmocka_unit_test(test_seed000_verbatim_duplicate_keys_caught),
        cmocka_unit_test(test_seed003_validates),
        cmocka_unit_test(test_import_lists_every_duplicate_key),
        cmocka_unit_test(test_import_env_formats_and_rate),
        cmocka_unit_test(test_import_search_requests),
        cmocka_unit_test(test_import_as_shipped),
        cmocka_unit_test(test_import_dsl),
        cmocka_unit_test(test_import_errors),
        cmocka_unit_test(test_import_step_name),
        cmocka_unit_test(test_import_step_index),
        cmocka_unit_test(test_import_step_searches),
        cmocka_unit_test(test_cli_commands),
        cmocka_unit_test(test_yaml_writer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
