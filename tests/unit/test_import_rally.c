/* SPDX-License-Identifier: MIT */
/* test_import_rally.c — import-rally's checks of a track's input (notes3/nu3.md F2.3, F3.4, F3.5).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "bf_import_rally.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[512];

static void write_file(const char *name, const char *text)
{
    char p[700];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* a one-index, one-file track whose bulk task and operation get the given extra members
 * (JSON text, each ending in a comma or empty); line 9 holds the task, line 7 the operation */
static void track(const char *name, const char *task_extra, const char *op_extra, const char *count)
{
    char t[2048];
    snprintf(t, sizeof t,
             "{\n"
             "  \"version\": 2,\n"
             "  \"indices\": [{\"name\": \"t-logs\"}],\n"
             "  \"corpora\": [{\"name\": \"c\", \"documents\": [\n"
             "    {\"source-file\": \"docs.json\", \"document-count\": %s, \"target-index\": "
             "\"t-logs\"}]}],\n"
             "  \"operations\": [\n"
             "    {\"name\": \"bulk-op\", %s\"operation-type\": \"bulk\"}],\n"
             "  \"schedule\": [\n"
             "    {%s\"operation\": \"bulk-op\"}]\n"
             "}\n",
             count, op_extra, task_extra);
    write_file(name, t);
}

static int setup(void **state)
{
    (void)state;
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(dir, sizeof dir, "%s/bf-import-rally.XXXXXX", tmp);
    assert_non_null(mkdtemp(dir));
    write_file("docs.json", "{\"n\": 1}\n{\"n\": 2}\n{\"n\": 3}\n");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* rc and the message of importing `name`; *yaml freed */
static int import(const char *name, char *msg, size_t size)
{
    char p[700];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    char *yaml = NULL;
    bf_diag_t d = {0};
    bf_rally_opts_t o = {.name = "t"};
    int rc = bf_import_rally(p, &o, &yaml, &d);
    snprintf(msg, size, "%s", rc == BF_OK ? (yaml ? yaml : "") : d.msg);
    free(yaml);
    return rc;
}

static void expect_error(const char *name, const char *where, const char *const *words)
{
    char msg[4096];
    assert_int_equal(import(name, msg, sizeof msg), BF_E_INVAL);
    char at[700];
    snprintf(at, sizeof at, "%s/%s:%s: ", dir, name, where);
    if (strstr(msg, at) != msg)
        fail_msg("%s: expected the message at %s, got: %s", name, at, msg);
    for (size_t i = 0; words[i]; i++)
        if (strstr(msg, words[i]) == NULL)
            fail_msg("%s: '%s' not in: %s", name, words[i], msg);
}

static void test_good_track_imports(void **state)
{
    (void)state;
    track("ok.json", "\"clients\": 2, \"warmup-time-period\": 2, \"time-period\": 8, ",
          "\"bulk-size\": 250, ", "3");
    char msg[4096];
    assert_int_equal(import("ok.json", msg, sizeof msg), BF_OK);
    assert_non_null(strstr(msg, "batch_size: [250]"));
    assert_non_null(strstr(msg, "concurrency: [2]"));
    assert_non_null(strstr(msg, "warmup: 2s"));
    assert_non_null(strstr(msg, "duration: 8s"));
    /* no target-throughput: no note about it */
    assert_null(strstr(msg, "target-throughput"));
}

/* wrong values: never a silent default ("clients": "two" became 1, "2s" 0 s) */
static void test_wrong_values_are_errors(void **state)
{
    (void)state;
    track("clients.json", "\"clients\": \"two\", ", "\"bulk-size\": 250, ", "3");
    expect_error("clients.json", "9:6",
                 (const char *[]){"bulk task 'bulk-op'", "\"clients\" is \"two\"",
                                  "not a whole number of at least 1", "\"clients\": 2", NULL});
    track("clients0.json", "\"clients\": 0, ", "\"bulk-size\": 250, ", "3");
    expect_error("clients0.json", "9:6", (const char *[]){"\"clients\" is 0", NULL});
    track("clients15.json", "\"clients\": 1.5, ", "\"bulk-size\": 250, ", "3");
    expect_error("clients15.json", "9:6", (const char *[]){"\"clients\" is 1.5", NULL});
    track("warmup.json", "\"warmup-time-period\": \"2s\", ", "\"bulk-size\": 250, ", "3");
    expect_error(
        "warmup.json", "9:6",
        (const char *[]){"\"warmup-time-period\" is \"2s\"", "(seconds)", "write a number", NULL});
    track("period.json", "\"clients\": 1, \"time-period\": -3, ", "\"bulk-size\": 250, ", "3");
    expect_error("period.json", "9:20", (const char *[]){"\"time-period\" is -3", NULL});
    track("tp.json", "\"target-throughput\": \"ten\", ", "\"bulk-size\": 250, ", "3");
    expect_error(
        "tp.json", "9:6",
        (const char *[]){"\"target-throughput\" is \"ten\"", "bulk requests per second", NULL});
    track("bs.json", "", "\"bulk-size\": \"500\", ", "3");
    expect_error("bs.json", "7:25", (const char *[]){"\"bulk-size\" is \"500\"", NULL});
}

/* a misspelt key is an error that names the right one ("bulk operation '?' has no
 * numeric bulk-size", no position; F3.5: time_period silently made another benchmark) */
static void test_misspelt_keys_are_errors(void **state)
{
    (void)state;
    track("bulk_size.json", "", "\"bulk_size\": 500, ", "3");
    expect_error("bulk_size.json", "7:25",
                 (const char *[]){"bulk task 'bulk-op'", "unknown key 'bulk_size'",
                                  "did you mean 'bulk-size'?", NULL});
    track("time_period.json", "\"time_period\": 8, ", "\"bulk-size\": 250, ", "3");
    expect_error(
        "time_period.json", "9:6",
        (const char *[]){"unknown key 'time_period'", "did you mean 'time-period'?", NULL});
    track("clinets.json", "\"clinets\": 2, ", "\"bulk-size\": 250, ", "3");
    expect_error("clinets.json", "9:6", (const char *[]){"did you mean 'clients'?", NULL});
    /* no bulk-size at all: where the operation is, and what to add */
    track("nobs.json", "", "", "3");
    expect_error(
        "nobs.json", "7:5",
        (const char *[]){"bulk task 'bulk-op' has no \"bulk-size\"", "\"bulk-size\": 1000", NULL});
}

/* a key that is no Rally key and no misspelling: a warning (Rally passes unknown parameters
 * to the operation, which ignores them), said in the scenario's header notes */
static void test_unknown_keys_warn(void **state)
{
    (void)state;
    track("foo.json", "\"my-param\": 1, ", "\"bulk-size\": 250, \"custom-thing\": true, ", "3");
    char msg[4096];
    assert_int_equal(import("foo.json", msg, sizeof msg), BF_OK);
    assert_non_null(
        strstr(msg, "foo.json:9:6: bulk task 'bulk-op': 'my-param' is not a Rally key"));
    assert_non_null(
        strstr(msg, "foo.json:7:43: bulk task 'bulk-op': 'custom-thing' is not a Rally key"));
}

/* document-count against the file (9999 for a 3-line file passed without a word) */
static void test_document_count_checked(void **state)
{
    (void)state;
    track("count.json", "", "\"bulk-size\": 250, ", "9999");
    expect_error("count.json", "5:34",
                 (const char *[]){"corpus 'c': \"document-count\" is 9999", "holds 3 documents",
                                  "\"document-count\": 3", NULL});
    track("countstr.json", "", "\"bulk-size\": 250, ", "\"3\"");
    expect_error("countstr.json", "5:34", (const char *[]){"\"document-count\" is \"3\"", NULL});
}

/* the command: exit 2 for each, the scenario not written */
static void test_cli_exit_codes(void **state)
{
    (void)state;
    const char *bad[] = {"clients.json", "warmup.json", "time_period.json", "bulk_size.json",
                         "count.json"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char p[700], out[700];
        snprintf(p, sizeof p, "%s/%s", dir, bad[i]);
        snprintf(out, sizeof out, "%s/out-%zu.yaml", dir, i);
        char *argv[] = {"import-rally", p, "-o", out, NULL};
        assert_int_equal(bf_cmd_import_rally(4, argv), BF_EXIT_INPUT);
        assert_int_not_equal(access(out, F_OK), 0);
    }
    char p[700], out[700];
    snprintf(p, sizeof p, "%s/ok.json", dir);
    snprintf(out, sizeof out, "%s/out-ok.yaml", dir);
    char *argv[] = {"import-rally", p, "-o", out, NULL};
    assert_int_equal(bf_cmd_import_rally(4, argv), BF_EXIT_OK);
    assert_int_equal(access(out, F_OK), 0);
}

/* ---- bf_import_rally's steps, each policy by a table (split into steps) --------------- */

/* the output (or the error) of importing the track text `json` (written as name) with the
 * --challenge `challenge` (NULL: none); returns rc */
static int import_text(const char *name, const char *json, const char *challenge, size_t *missing,
                       char *msg, size_t size)
{
    write_file(name, json);
    char p[700];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    char *yaml = NULL;
    bf_diag_t d = {0};
    bf_rally_opts_t o = {.name = "t", .challenge = challenge, .corpus_missing = missing};
    int rc = bf_import_rally(p, &o, &yaml, &d);
    snprintf(msg, size, "%s", rc == BF_OK ? (yaml ? yaml : "") : d.msg);
    free(yaml);
    return rc;
}

#define T_HEAD                                                                                     \
    "{\"indices\": [{\"name\": \"ix\"}], \"corpora\": [{\"name\": \"c\", \"documents\": "          \
    "[{\"source-file\": \"docs.json\"}]}], \"operations\": [{\"name\": \"b\", "                    \
    "\"operation-type\": \"bulk\", \"bulk-size\": 10}], "
#define T_SCHED(bs) "\"schedule\": [{\"operation\": \"b\", \"clients\": " bs "}]"

/* rally_schedule: --challenge by name, else the default challenge, else the first; OpenSearch
 * Benchmark's test_procedures and a single challenge / test_procedure object; the track's own
 * schedule without one; an unknown name or no schedule at all is an error */
static void test_step_schedule(void **state)
{
    (void)state;
    static const struct {
        const char *body, *challenge, *want;
        int rc;
    } cases[] = {
        {"\"challenges\": [{\"name\": \"a\", " T_SCHED("1") "}, {\"name\": \"b\", \"default\": "
                                                            "true, " T_SCHED("2") "}]}",
         NULL, "import-rally (challenge b).\n", BF_OK},
        {"\"challenges\": [{\"name\": \"a\", " T_SCHED("1") "}, {\"name\": \"b\", \"default\": "
                                                            "true, " T_SCHED("2") "}]}",
         "a", "concurrency: [1]", BF_OK},
        {"\"challenges\": [{\"name\": \"a\", " T_SCHED("3") "}, {\"name\": \"b\", " T_SCHED(
             "2") "}]}",
         NULL, "concurrency: [3]", BF_OK},
        {"\"test_procedures\": [{\"name\": \"p\", " T_SCHED("4") "}]}", NULL,
         "import-rally (challenge p).\n", BF_OK},
        {"\"test_procedure\": {\"name\": \"one\", " T_SCHED("5") "}}", NULL, "concurrency: [5]",
         BF_OK},
        {"\"challenge\": {\"name\": \"solo\", " T_SCHED("6") "}}", NULL,
         "import-rally (challenge solo).\n", BF_OK},
        {T_SCHED("7") "}", NULL, "import-rally.\n", BF_OK},
        {"\"challenges\": [{\"name\": \"a\", " T_SCHED("1") "}]}", "zz",
         "no challenge named 'zz'; the track has 1", BF_E_INVAL},
        {"\"test_procedures\": [{\"name\": \"a\", " T_SCHED("1") "}]}", "zz",
         "no test procedure named 'zz'", BF_E_INVAL},
        {"\"x\": 1}", NULL, "no schedule (neither", BF_E_INVAL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char json[2048], msg[8192];
        snprintf(json, sizeof json, "%s%s", T_HEAD, cases[i].body);
        int rc = import_text("sched.json", json, cases[i].challenge, NULL, msg, sizeof msg);
        if (rc != cases[i].rc || strstr(msg, cases[i].want) == NULL)
            fail_msg("case %zu: rc %d (want %d), '%s' not in:\n%s", i, rc, cases[i].rc,
                     cases[i].want, msg);
    }
}

/* rally_corpora / rally_corpus_file: the bulk operation's corpora and indices filter the
 * files; one format for all; a file not downloaded is a note and counted, not an error; a
 * documents entry without source-file and a corpus without any file are errors */
static void test_step_corpora(void **state)
{
    (void)state;
    static const struct {
        const char *corpora, *op_extra, *want;
        int rc;
        size_t missing;
    } cases[] = {
        {"[{\"name\": \"c\", \"documents\": [{\"source-file\": \"docs.json\", \"target-index\": "
         "\"ix\"}, {\"source-file\": \"gone.json\", \"target-index\": \"ix\"}]}]",
         "", "corpus file not downloaded yet: ", BF_OK, 1},
        {"[{\"name\": \"c\", \"documents\": [{\"source-file\": \"docs.json\", \"target-index\": "
         "\"ix\"}]}, {\"name\": \"d\", \"documents\": [{\"source-file\": \"gone.json\"}]}]",
         "\"corpora\": [\"c\"], ", "    path: \"", BF_OK, 0},
        {"[{\"name\": \"c\", \"documents\": [{\"source-file\": \"docs.json\", \"target-index\": "
         "\"ix\"}, {\"source-file\": \"gone.json\", \"target-index\": \"other\"}]}]",
         "\"indices\": [\"ix\"], ", "index:\n  name: ix\n", BF_OK, 0},
        {"[{\"name\": \"c\", \"documents\": [{\"source-file\": \"docs.json\"}, "
         "{\"source-file\": \"b.json\", \"includes-action-and-meta-data\": true}]}]",
         "", "one scenario corpus has one format", BF_E_INVAL, 0},
        {"[{\"name\": \"c\", \"documents\": [{\"target-index\": \"ix\"}]}]", "",
         "corpus 'c', documents entry 1 has no source-file", BF_E_INVAL, 0},
        {"[{\"name\": \"c\", \"documents\": [{\"source-file\": \"docs.json\", \"target-index\": "
         "\"ix\"}]}]",
         "\"indices\": [\"nope\"], ", "have no documents file for its indices", BF_E_INVAL, 0},
        /* each file its own target (http_logs' days): each into its index, by the track's name */
        {"[{\"name\": \"c\", \"documents\": [{\"source-file\": \"docs.json\", \"target-index\": "
         "\"ix\"}, {\"source-file\": \"docs2.json\", \"target-index\": \"iy\"}]}]",
         "", "  names: [ix, iy]\n", BF_OK, 1},
        {"[{\"name\": \"c\", \"documents\": [{\"source-file\": \"docs.json\", \"target-index\": "
         "\"ix\"}, {\"source-file\": \"docs2.json\", \"target-index\": \"iy\"}]}]",
         "", "    indices: by_file   # each file into its own index", BF_OK, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char json[2048], msg[8192];
        snprintf(json, sizeof json,
                 "{\"indices\": [{\"name\": \"ix\"}], \"corpora\": %s, \"operations\": "
                 "[{\"name\": \"b\", %s\"operation-type\": \"bulk\", \"bulk-size\": 10}], "
                 "\"schedule\": [{\"operation\": \"b\"}]}",
                 cases[i].corpora, cases[i].op_extra);
        size_t missing = 99;
        int rc = import_text("corp.json", json, NULL, &missing, msg, sizeof msg);
        if (rc != cases[i].rc || strstr(msg, cases[i].want) == NULL)
            fail_msg("case %zu: rc %d (want %d), '%s' not in:\n%s", i, rc, cases[i].rc,
                     cases[i].want, msg);
        if (rc == BF_OK && missing != cases[i].missing)
            fail_msg("case %zu: %zu files missing, want %zu", i, missing, cases[i].missing);
    }
}

/* the searches as Rally runs them: one whose request comes from a param-source of the track's
 * Python is named as not imported, never imported as another query under its name (it was
 * match_all); a "search" with "pages" (Rally scrolls then), a scroll-search and a
 * paginated-search are page sequences of search_after, "pages": "all" bounded and said */
static void test_step_searches(void **state)
{
    (void)state;
    static const struct {
        const char *op, *want, *absent;
    } cases[] = {
        {"{\"name\": \"large_terms\", \"operation-type\": \"search\", \"param-source\": "
         "\"pure-terms-query-source\"}",
         "#  - not imported: task large_terms (search: its request comes from the param-source "
         "'pure-terms-query-source' of the track's track.py, which bulkfleet does not run (and "
         "track.py is not beside the track))\n",
         "name: large_terms"},
        {"{\"name\": \"ps\", \"operation-type\": \"search\", \"param-source\": \"x\", \"body\": "
         "{\"query\": {\"term\": {\"a\": 1}}}}",
         "not imported: task ps (search: its request comes from the param-source 'x'", "name: ps"},
        {"{\"name\": \"scroll\", \"operation-type\": \"search\", \"pages\": 25, "
         "\"results-per-page\": 1000, \"body\": {\"query\": {\"match_all\": {}}}}",
         "    - name: scroll   # Rally search\n      path: \"/{index}/_search\"\n      body: "
         "\"{\\\"query\\\":{\\\"match_all\\\":{}},\\\"sort\\\":[\\\"_doc\\\"]}\"\n      paging: "
         "{by: search_after, size: 1000, depth: 25000, pit: true}\n",
         "match_all\\\":{}}}\"\n"},
        {"{\"name\": \"sc\", \"operation-type\": \"scroll-search\", \"pages\": \"all\", "
         "\"results-per-page\": 500, \"body\": {\"query\": {\"term\": {\"a\": 1}}, \"sort\": "
         "[{\"t\": \"desc\"}], \"size\": 7}}",
         "body: \"{\\\"query\\\":{\\\"term\\\":{\\\"a\\\":1}},\\\"sort\\\":[{\\\"t\\\":"
         "\\\"desc\\\"}]}\"\n      paging: {by: search_after, size: 500, depth: 10000000, pit: "
         "true}\n",
         "size\\\":7"},
        {"{\"name\": \"sc\", \"operation-type\": \"scroll-search\", \"pages\": \"all\", "
         "\"results-per-page\": 500}",
         "Rally scrolls pages: all, until a page has no hit (bounded at 10,000,000 hits) of 500 "
         "hits",
         NULL},
        {"{\"name\": \"pg\", \"operation-type\": \"paginated-search\", \"pages\": 3, "
         "\"results-per-page\": 20, \"body\": {\"query\": {\"match_all\": {}}, \"sort\": [\"n\"]}}",
         "paging: {by: search_after, size: 20, depth: 60, pit: false}\n", NULL},
        {"{\"name\": \"pg\", \"operation-type\": \"paginated-search\", \"pages\": 3, "
         "\"results-per-page\": 20, \"with-point-in-time-from\": \"open-pit\", \"body\": "
         "{\"query\": {\"match_all\": {}}, \"sort\": [\"n\"]}}",
         "paging: {by: search_after, size: 20, depth: 60, pit: true}\n", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char json[4096], msg[16384];
        snprintf(json, sizeof json,
                 "{\"indices\": [{\"name\": \"ix\"}], \"corpora\": [{\"name\": \"c\", "
                 "\"documents\": [{\"source-file\": \"docs.json\"}]}], \"operations\": "
                 "[{\"name\": \"b\", \"operation-type\": \"bulk\", \"bulk-size\": 10}, %s], "
                 "\"schedule\": [{\"operation\": \"b\"}, {\"operation\": \"%s\"}]}",
                 cases[i].op,
                 strstr(cases[i].op, "large_terms") ? "large_terms"
                 : strstr(cases[i].op, "\"ps\"")    ? "ps"
                 : strstr(cases[i].op, "\"sc\"")    ? "sc"
                 : strstr(cases[i].op, "\"pg\"")    ? "pg"
                                                    : "scroll");
        int rc = import_text("search.json", json, NULL, NULL, msg, sizeof msg);
        if (rc != BF_OK || strstr(msg, cases[i].want) == NULL)
            fail_msg("case %zu: rc %d, '%s' not in:\n%s", i, rc, cases[i].want, msg);
        if (cases[i].absent && strstr(msg, cases[i].absent))
            fail_msg("case %zu: '%s' in:\n%s", i, cases[i].absent, msg);
    }
    /* a track.py whose class is not the published one: named, not guessed */
    write_file("track.py",
               "class Mine:\n    pass\n\ndef register(registry):\n"
               "    registry.register_param_source(\"pure-terms-query-source\", Mine)\n");
    char json[2048], msg[16384];
    snprintf(
        json, sizeof json,
        "{\"indices\": [{\"name\": \"ix\"}], \"corpora\": [{\"name\": \"c\", \"documents\": "
        "[{\"source-file\": \"docs.json\"}]}], \"operations\": [{\"name\": \"b\", "
        "\"operation-type\": \"bulk\", \"bulk-size\": 10}, %s], \"schedule\": [{\"operation\": "
        "\"b\"}, {\"operation\": \"large_terms\"}]}",
        cases[0].op);
    assert_int_equal(import_text("search.json", json, NULL, NULL, msg, sizeof msg), BF_OK);
    char p[700];
    snprintf(p, sizeof p, "%s/track.py", dir);
    remove(p);
    if (strstr(msg, "which bulkfleet does not run (its class is not geonames' "
                    "PureTermsQueryParamSource as published, which bulkfleet can write as a "
                    "query))") == NULL)
        fail_msg("another class is not named:\n%s", msg);
}

/* the corpus caches: OpenSearch Benchmark 2.x's ~/.osb/benchmarks/data/<corpus>/, and the
 * folder a tool's ini file names as its [benchmarks] local.dataset.cache */
static void test_corpus_caches(void **state)
{
    (void)state;
    const char *home = getenv("HOME");
    char *saved = home ? strdup(home) : NULL;
    char h[700], cmd[2400];
    snprintf(h, sizeof h, "%s/home", dir);
    snprintf(
        cmd, sizeof cmd,
        "mkdir -p '%s/.osb/benchmarks/data/cc' '%s/elsewhere/data/cd' && printf '{\"n\": 1}\\n' "
        "> '%s/.osb/benchmarks/data/cc/cc.json' && printf '{\"n\": 1}\\n' > "
        "'%s/elsewhere/data/cd/cd.json' && printf '[node]\\nroot.dir = ~/elsewhere\\n\\n"
        "[benchmarks]\\nlocal.dataset.cache = ${node:root.dir}/data\\n' > "
        "'%s/.benchmark.ini.tmp' && mkdir -p '%s/.rally' && mv '%s/.benchmark.ini.tmp' "
        "'%s/.rally/rally.ini'",
        h, h, h, h, h, h, h, h);
    assert_int_equal(system(cmd), 0);
    setenv("HOME", h, 1);
    for (int k = 0; k < 2; k++) {
        const char *cn = k == 0 ? "cc" : "cd";
        char json[1024], msg[8192], want[900];
        snprintf(json, sizeof json,
                 "{\"indices\": [{\"name\": \"ix\"}], \"corpora\": [{\"name\": \"%s\", "
                 "\"documents\": [{\"source-file\": \"%s.json\"}]}], \"operations\": "
                 "[{\"name\": \"b\", \"operation-type\": \"bulk\", \"bulk-size\": 10}], "
                 "\"schedule\": [{\"operation\": \"b\"}]}",
                 cn, cn);
        size_t missing = 99;
        int rc = import_text("cache.json", json, NULL, &missing, msg, sizeof msg);
        snprintf(want, sizeof want, "    path: \"%s/%s/%s/%s.json\"\n", h,
                 k == 0 ? ".osb/benchmarks/data" : "elsewhere/data", cn, cn);
        if (rc != BF_OK || missing != 0 || strstr(msg, want) == NULL)
            fail_msg("%s: rc %d, %zu missing, '%s' not in:\n%s", cn, rc, missing, want, msg);
    }
    if (saved)
        setenv("HOME", saved, 1);
    else
        unsetenv("HOME");
    free(saved);
}

/* the schedule's order (rally_account, rally_write_*): searches after the bulk task run in a
 * search-only cell after the load cells, which have no search client; searches in a parallel
 * block with the bulk task run beside it, in matrix order even with repetitions (run.order:
 * sequential: rounds would shuffle the search-only cell before the load); a corpus read once
 * gets no duration that cuts it
 * (the searches' time-period was the load's before: 105,000 of 200,000 documents) */
static void test_step_order(void **state)
{
    (void)state;
    static const struct {
        const char *sched, *want[4], *absent;
    } cases[] = {
        {"{\"operation\": \"b\", \"clients\": 2}, {\"operation\": \"q\", \"clients\": 3, "
         "\"time-period\": 30}, {\"operation\": \"q2\"}",
         {"(this is only a bound)\n  order: sequential   # the load, then the searches",
          "  clients: 4\n  warmup: 10s   # the search-only cell's (run.warmup is the load's)\n"
          "  duration: 30s   # the searches' longest time-period\n",
          "  concurrency: [2]\n  search_clients: [0]   # the load alone, as Rally's bulk task\n"
          "  include:   # then the searches, on the index the load left\n"
          "    - {shards: 1, replicas: 0, concurrency: 0, search_clients: 4}\n",
          "Rally runs them after the load, one task after the other"},
         NULL},
        {"{\"parallel\": {\"tasks\": [{\"operation\": \"b\", \"clients\": 2}, {\"operation\": "
         "\"q\", \"clients\": 3}]}}",
         {"  duration: 86400s   # no time-period", "search:\n  clients: 3\n  queries:\n",
          "Rally runs it in a parallel block with the bulk task, so here it is one mix beside "
          "the load",
          "  concurrency: [2]\n"},
         "search_clients"},
        {"{\"operation\": \"b\", \"time-period\": 20}, {\"parallel\": {\"tasks\": [{\"operation\": "
         "\"q\"}, {\"operation\": \"q2\", \"warmup-time-period\": 5}]}}",
         {"run:\n  warmup: 0s\n  duration: 20s\n", "  warmup: 5s   # the search-only cell's",
          "  duration: 60s   # Rally's searches count iterations",
          "    - {shards: 1, replicas: 0, concurrency: 0, search_clients: 2}\n"},
         NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char json[4096], msg[16384];
        snprintf(json, sizeof json,
                 "{\"indices\": [{\"name\": \"ix\"}], \"corpora\": [{\"name\": \"c\", "
                 "\"documents\": [{\"source-file\": \"docs.json\"}]}], \"operations\": "
                 "[{\"name\": \"b\", \"operation-type\": \"bulk\", \"bulk-size\": 10}, "
                 "{\"name\": \"q\", \"operation-type\": \"search\", \"body\": {\"query\": "
                 "{\"match_all\": {}}}}, {\"name\": \"q2\", \"operation-type\": \"search\"}], "
                 "\"schedule\": [%s]}",
                 cases[i].sched);
        int rc = import_text("order.json", json, NULL, NULL, msg, sizeof msg);
        for (size_t k = 0; k < 4 && cases[i].want[k]; k++)
            if (rc != BF_OK || strstr(msg, cases[i].want[k]) == NULL)
                fail_msg("case %zu: rc %d, '%s' not in:\n%s", i, rc, cases[i].want[k], msg);
        if (cases[i].absent && strstr(msg, cases[i].absent))
            fail_msg("case %zu: '%s' in:\n%s", i, cases[i].absent, msg);
    }
}

/* every search up to search.queries' limit is imported (16 before: geonames' 28 lost 12), and
 * each one past it is named */
static void test_many_searches(void **state)
{
    (void)state;
    for (int n = 20; n <= 34; n += 14) {
        char ops[8192] = "", sched[4096] = "", json[16384], msg[65536];
        for (int i = 0; i < n; i++) {
            size_t lo = strlen(ops), ls = strlen(sched);
            snprintf(ops + lo, sizeof ops - lo,
                     ", {\"name\": \"q%d\", \"operation-type\": \"search\", \"body\": {\"query\": "
                     "{\"term\": {\"n\": %d}}}}",
                     i, i);
            snprintf(sched + ls, sizeof sched - ls, ", {\"operation\": \"q%d\"}", i);
        }
        snprintf(json, sizeof json,
                 "{\"indices\": [{\"name\": \"ix\"}], \"corpora\": [{\"name\": \"c\", "
                 "\"documents\": [{\"source-file\": \"docs.json\"}]}], \"operations\": "
                 "[{\"name\": \"b\", \"operation-type\": \"bulk\", \"bulk-size\": 10}%s], "
                 "\"schedule\": [{\"operation\": \"b\"}%s]}",
                 ops, sched);
        assert_int_equal(import_text("many.json", json, NULL, NULL, msg, sizeof msg), BF_OK);
        int imported = 0;
        for (const char *p = msg; (p = strstr(p, "    - name: q")) != NULL; p++)
            imported++;
        assert_int_equal(imported, n < 32 ? n : 32);
        if (n > 32 && (strstr(msg, "#  - not imported: task q32 (search: search.queries holds "
                                   "at most 32)\n") == NULL ||
                       strstr(msg, "#  - not imported: task q33 (search: ") == NULL))
            fail_msg("the searches past the 32nd are not named:\n%s", msg);
    }
}

/* searches that all have a target-throughput run as one mix at the sum of their rates, each
 * weighted by its own rate, so each query runs at its own rate (weight 1 each gave geonames'
 * 3-per-second aggregation the 100-per-second term query's share) */
static void test_mix_weights(void **state)
{
    (void)state;
    char json[2048], msg[16384];
    snprintf(json, sizeof json,
             "{\"indices\": [{\"name\": \"ix\"}], \"corpora\": [{\"name\": \"c\", \"documents\": "
             "[{\"source-file\": \"docs.json\"}]}], \"operations\": [{\"name\": \"b\", "
             "\"operation-type\": \"bulk\", \"bulk-size\": 10}, {\"name\": \"t\", "
             "\"operation-type\": \"search\", \"body\": {\"query\": {\"term\": {\"n\": 1}}}}, "
             "{\"name\": \"agg\", \"operation-type\": \"search\", \"body\": {\"size\": 0}}], "
             "\"schedule\": [{\"operation\": \"b\"}, {\"operation\": \"t\", \"target-throughput\": "
             "100}, {\"operation\": \"agg\", \"target-throughput\": 0.8}]}");
    assert_int_equal(import_text("mix.json", json, NULL, NULL, msg, sizeof msg), BF_OK);
    const char *want[] = {
        "  target_rate: 101\n", "      weight: 1000   # target-throughput 100 x 10\n",
        "      weight: 8   # target-throughput 0.8 x 10\n",
        "each query's weight its target-throughput x 10, so each runs at its own rate"};
    for (size_t i = 0; i < 4; i++)
        if (strstr(msg, want[i]) == NULL)
            fail_msg("'%s' not in:\n%s", want[i], msg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_track_imports),
        cmocka_unit_test(test_wrong_values_are_errors),
        cmocka_unit_test(test_misspelt_keys_are_errors),
        cmocka_unit_test(test_unknown_keys_warn),
        cmocka_unit_test(test_document_count_checked),
        cmocka_unit_test(test_cli_exit_codes),
        cmocka_unit_test(test_step_schedule),
        cmocka_unit_test(test_step_corpora),
        cmocka_unit_test(test_step_searches),
        cmocka_unit_test(test_corpus_caches),
        cmocka_unit_test(test_step_order),
        cmocka_unit_test(test_many_searches),
        cmocka_unit_test(test_mix_weights),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
