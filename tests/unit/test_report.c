/* SPDX-License-Identifier: MIT */
/* test_report.c — unit tests for bf_report on the fixture results directories: the page is
 * self-contained, has every chart, and the data drawn (embedded JSON and SVG attributes)
 * equals matrix.json. */
#include "bf_buf.h"
#include "bf_error.h"
#include "bf_mem.h"
#include "bf_report.h"
#include "bf_results.h"

#include <jansson.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#define FIXTURES BF_SOURCE_DIR "/tests/fixtures/results"

static char *render(const char *dir)
{
    bf_buf_t b;
    bf_buf_init(&b, 0);
    bf_diag_t d = {0};
    int rc = bf_report_render(dir, &b, &d);
    if (rc != BF_OK)
        fprintf(stderr, "%s\n", d.msg);
    assert_int_equal(rc, BF_OK);
    /* every field the report showed came through the row codec by a name the table has */
    assert_int_equal(bf_report_unknown_fields(), 0);
    return bf_buf_steal(&b);
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

static json_t *embedded_data(const char *html)
{
    static const char open[] = "<script type=\"application/json\" id=\"bf-data\">";
    const char *s = strstr(html, open);
    assert_non_null(s);
    s += sizeof open - 1;
    const char *e = strstr(s, "</script>");
    assert_non_null(e);
    json_error_t err;
    json_t *j = json_loadb(s, (size_t)(e - s), 0, &err);
    if (j == NULL)
        fprintf(stderr, "bf-data: %s at %d\n", err.text, err.position);
    assert_non_null(j);
    return j;
}

static json_t *row_of(json_t *matrix, const char *cell)
{
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(matrix, "rows"), i, r) {
        if (strcmp(json_string_value(json_object_get(r, "cell")), cell) == 0)
            return r;
    }
    return NULL;
}

static void test_self_contained_page(void **state)
{
    (void)state;
    char *html = render(FIXTURES "/shard-study-base");
    assert_true(strncmp(html, "<!DOCTYPE html>", 15) == 0);
    /* no network: nothing is loaded from anywhere (the SVG namespace is a name, not a fetch) */
    assert_int_equal(count(html, "src="), 0);
    assert_int_equal(count(html, "<link"), 0);
    assert_int_equal(count(html, "url(http"), 0);
    assert_int_equal(count(html, "@import"), 0);
    assert_int_equal(count(html, "http://") , count(html, "xmlns=\"http://www.w3.org/2000/svg\""));
    assert_int_equal(count(html, "https://"), 0);
    /* no JavaScript: the one script element is data */
    assert_int_equal(count(html, "<script"), 1);
    assert_int_equal(count(html, "<script type=\"application/json\" id=\"bf-data\">"), 1);
    /* charts: 2 throughput panels (50, 850 shards), 12 per-second, 1 latency, 12 x 2 telemetry */
    assert_int_equal(count(html, "data-chart=\"throughput\""), 2);
    assert_int_equal(count(html, "data-chart=\"per_second\""), 12);
    assert_int_equal(count(html, "data-chart=\"latency\""), 1);
    assert_int_equal(count(html, "data-chart=\"write_queue\""), 12);
    assert_int_equal(count(html, "data-chart=\"write_rejected\""), 12);
    assert_non_null(strstr(html, "<rect class=\"warmup\""));
    assert_non_null(strstr(html, "<li>850 shards: best without rejections or errors is 98,869 docs/s with batch "
                                 "5000 at concurrency 100.</li>"));
    free(html);
}

static void test_embedded_data_equals_matrix(void **state)
{
    (void)state;
    char *html = render(FIXTURES "/shard-study-base");
    json_t *data = embedded_data(html);
    json_t *m = json_load_file(FIXTURES "/shard-study-base/matrix.json", 0, NULL);
    assert_non_null(m);
    assert_true(json_equal(json_object_get(data, "matrix"), m));
    json_t *charts = json_object_get(data, "charts");

    /* docs/s against concurrency: every point is its row's docs/s */
    size_t i, k, npts = 0;
    json_t *panel, *line, *pt;
    json_array_foreach(json_object_get(charts, "throughput"), i, panel) {
        json_array_foreach(json_object_get(panel, "lines"), k, line) {
            size_t q;
            json_array_foreach(json_object_get(line, "points"), q, pt) {
                json_t *r = row_of(m, json_string_value(json_object_get(pt, "cell")));
                assert_non_null(r);
                assert_true(json_equal(json_object_get(pt, "docs_per_s"), json_object_get(r, "docs_per_s")));
                assert_true(json_equal(json_object_get(pt, "concurrency"), json_object_get(r, "concurrency")));
                assert_true(json_equal(json_object_get(panel, "shards"), json_object_get(r, "shards")));
                npts++;
            }
        }
    }
    assert_int_equal(npts, json_array_size(json_object_get(m, "rows")));

    /* per-second: the window's mean is the row's docs/s (repeat 1: one series per cell) */
    json_t *ps;
    json_array_foreach(json_object_get(charts, "per_second"), i, ps) {
        json_t *r = row_of(m, json_string_value(json_object_get(ps, "cell")));
        json_int_t W = json_integer_value(json_object_get(ps, "warmup_s"));
        json_int_t D = json_integer_value(json_object_get(ps, "duration_s"));
        assert_true(json_equal(json_object_get(ps, "warmup_s"), json_object_get(r, "warmup_s")));
        double sum = 0;
        for (json_int_t s = W; s < W + D; s++)
            sum += (double)json_integer_value(json_array_get(json_object_get(ps, "docs_ok"), (size_t)s));
        assert_true(sum / (double)D == json_real_value(json_object_get(r, "docs_per_s")));
    }
    assert_int_equal(json_array_size(json_object_get(charts, "per_second")), 12);

    /* latency: the row's percentiles, nulls included */
    json_t *lat;
    json_array_foreach(json_object_get(charts, "latency"), i, lat) {
        json_t *r = row_of(m, json_string_value(json_object_get(lat, "cell")));
        static const char *keys[] = {"service_p50_ms", "service_p90_ms", "service_p99_ms",
                                     "service_p99_9_ms", "service_max_ms"};
        for (k = 0; k < 5; k++)
            assert_true(json_equal(json_object_get(lat, keys[k]), json_object_get(r, keys[k])));
    }
    /* telemetry: the file's summary is what the row says */
    json_t *te;
    json_array_foreach(json_object_get(charts, "telemetry"), i, te) {
        json_t *r = row_of(m, json_string_value(json_object_get(te, "cell")));
        json_t *sum = json_object_get(te, "summary");
        static const char *keys[] = {"write_queue_max", "write_rejected", "hot_spot_ratio",
                                     "cluster_docs_per_s"};
        for (k = 0; k < 4; k++)
            assert_true(json_equal(json_object_get(sum, keys[k]), json_object_get(r, keys[k])));
        assert_int_equal(json_object_size(json_object_get(te, "nodes")), 3);
    }
    assert_int_equal(json_array_size(json_object_get(charts, "telemetry")), 12);
    json_decref(m);
    json_decref(data);
    free(html);
}

/* every throughput marker's data-y equals its row's docs/s exactly (%.17g round trip) */
static void test_svg_markers_carry_exact_values(void **state)
{
    (void)state;
    char *html = render(FIXTURES "/shard-study-base");
    json_t *m = json_load_file(FIXTURES "/shard-study-base/matrix.json", 0, NULL);
    size_t markers = 0;
    const char *chart = strstr(html, "data-chart=\"throughput\"");
    const char *end = strstr(html, "data-chart=\"per_second\"");
    for (const char *p = strstr(chart, "<circle"); p && p < end; p = strstr(p + 1, "<circle")) {
        const char *c = strstr(p, "data-cell=\"");
        const char *y = strstr(p, "data-y=\"");
        assert_non_null(c);
        assert_non_null(y);
        char cell[256];
        const char *q = strchr(c + 11, '"');
        snprintf(cell, sizeof cell, "%.*s", (int)(q - (c + 11)), c + 11);
        double v = strtod(y + 8, NULL);
        json_t *r = row_of(m, cell);
        assert_non_null(r);
        assert_true(v == json_real_value(json_object_get(r, "docs_per_s")));
        int rej = strstr(p, "class=\"pt rej\"") == p + 8;
        int want = json_integer_value(json_object_get(r, "http_429")) > 0 ||
                   json_integer_value(json_object_get(r, "docs_rejected")) > 0 ||
                   json_integer_value(json_object_get(r, "write_rejected")) > 0;
        assert_int_equal(rej, want);
        markers++;
    }
    assert_int_equal(markers, 12);
    json_decref(m);
    free(html);
}

static void test_repeated_cells_draw_every_run(void **state)
{
    (void)state;
    char *html = render(FIXTURES "/shard-study-contender");
    json_t *data = embedded_data(html);
    json_t *charts = json_object_get(data, "charts");
    /* 4 cells x 3 repetitions */
    assert_int_equal(json_array_size(json_object_get(charts, "per_second")), 12);
    assert_int_equal(json_array_size(json_object_get(charts, "telemetry")), 12);
    assert_int_equal(count(html, "data-chart=\"per_second\""), 4);
    assert_non_null(strstr(html, "cells/i1-s850-r1-b5000-c200-r3.ndjson"));
    assert_non_null(strstr(html, "<span class=\"lt\">run 3</span>")); /* the HTML legend */
    json_decref(data);
    free(html);
}

/* each cell's interval of docs/s is drawn as whiskers on its point (and given in the chart
 * data), and each tested finding leads with its verdict */
static void test_whiskers_and_verdicts(void **state)
{
    (void)state;
    char *html = render(FIXTURES "/shard-study-contender");
    json_t *data = embedded_data(html);
    json_t *m = json_load_file(FIXTURES "/shard-study-contender/matrix.json", 0, NULL);
    assert_non_null(m);
    size_t nrows = json_array_size(json_object_get(m, "rows"));
    assert_int_equal(count(html, "<path class=\"ci\""), nrows); /* 4 cells, 3 runs each */
    size_t i, j, k, seen = 0;
    json_t *panel, *line, *pt;
    json_array_foreach(json_object_get(json_object_get(data, "charts"), "throughput"), i, panel)
        json_array_foreach(json_object_get(panel, "lines"), j, line)
            json_array_foreach(json_object_get(line, "points"), k, pt)
    {
        const char *cell = json_string_value(json_object_get(pt, "cell"));
        size_t r;
        json_t *row;
        json_array_foreach(json_object_get(m, "rows"), r, row)
        {
            if (strcmp(json_string_value(json_object_get(row, "cell")), cell) != 0)
                continue;
            assert_true(json_real_value(json_object_get(pt, "ci_low")) ==
                        json_real_value(json_object_get(row, "docs_per_s_ci_low")));
            assert_true(json_real_value(json_object_get(pt, "ci_high")) ==
                        json_real_value(json_object_get(row, "docs_per_s_ci_high")));
            seen++;
        }
    }
    assert_int_equal(seen, nrows);
    size_t tested = 0;
    json_t *it;
    json_array_foreach(json_object_get(json_object_get(m, "findings"), "items"), i, it) tested +=
        json_object_get(it, "verdict") != NULL;
    assert_true(tested > 0);
    assert_int_equal(count(html, "<span class=\"verdict v-"), tested);
    json_decref(m);
    json_decref(data);
    free(html);
}

static void test_errors_and_escaping(void **state)
{
    (void)state;
    bf_buf_t b;
    bf_buf_init(&b, 0);
    bf_diag_t d = {0};
    assert_int_equal(bf_report_render("/nonexistent/results-dir", &b, &d), BF_E_NOTFOUND);
    assert_non_null(strstr(d.msg, "/nonexistent/results-dir/matrix.json"));

    char tmpl[1024]; /* under TMPDIR: the build folder under ctest */

    snprintf(tmpl, sizeof tmpl, "%s/bf-report-test.XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    char *dir = mkdtemp(tmpl);
    assert_non_null(dir);
    char *path = bf_asprintf("%s/matrix.json", dir);
    FILE *f = fopen(path, "w");
    fputs("{\"scenario\":", f);
    fclose(f);
    bf_diag_t d2 = {0};
    assert_int_equal(bf_report_render(dir, &b, &d2), BF_E_PARSE);
    /* a matrix without cell files: the page still renders, markup in names is escaped */
    f = fopen(path, "w");
    fputs("{\"scenario\":\"a<b>&\\\"</script>\",\"rows\":[{\"cell\":\"c<1>\",\"indices\":1,"
          "\"shards\":2,\"replicas\":0,\"batch_size\":10,\"concurrency\":4,\"docs_per_s\":12.5,"
          "\"service_p50_ms\":3.5,\"service_p99_ms\":null}]}", f);
    fclose(f);
    bf_diag_t d3 = {0};
    assert_int_equal(bf_report_write(dir, &d3), BF_OK);
    char *out = bf_asprintf("%s/report.html", dir);
    f = fopen(out, "r");
    assert_non_null(f);
    char *html = bf_calloc(1, 1 << 20);
    size_t n = fread(html, 1, (1 << 20) - 1, f);
    fclose(f);
    assert_true(n > 0);
    assert_non_null(strstr(html, "<h1>a&lt;b&gt;&amp;&quot;&lt;/script&gt;</h1>"));
    assert_null(strstr(html, "<b>"));
    assert_int_equal(count(html, "</script>"), 1); /* the data block escapes '<' */
    json_t *data = embedded_data(html);
    assert_string_equal(json_string_value(json_object_get(json_object_get(data, "matrix"), "scenario")),
                        "a<b>&\"</script>");
    json_decref(data);
    assert_non_null(strstr(html, "data-cell=\"c&lt;1&gt;\""));
    assert_non_null(strstr(html, "No telemetry in this results directory."));
    free(html);
    unlink(out);
    unlink(path);
    rmdir(dir);
    free(out);
    free(path);
    bf_buf_cleanup(&b);
}

/* find-max: with DIR/findmax.json the page has the path table (every step, its verdict), the
 * result line, docs/s by step and the throughput-latency curve with the knee and the
 * sustained point; without it, no find-max section at all */
/* Issue #10 item 6: the matrix table shows each row's failed documents by error type with the
 * first reason, escaped (the golden fixture's first row). */
/* agent CPU % was 0.3 in matrix.md and 0 in report.html; both now round it as the
 * row table says (bf_row_field_decimals), so every row's figure reads the same in both */
static void test_agent_cpu_same_as_matrix_md(void **state)
{
    (void)state;
    int dec = bf_row_field_decimals("agent_cpu_pct");
    assert_int_equal(dec, 1);
    char *html = render(FIXTURES "/golden");
    FILE *f = fopen(FIXTURES "/golden/matrix.md", "r");
    assert_non_null(f);
    char md[65536];
    size_t n = fread(md, 1, sizeof md - 1, f);
    md[n] = '\0';
    fclose(f);
    json_t *m = json_load_file(FIXTURES "/golden/matrix.json", 0, NULL);
    assert_non_null(m);
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(m, "rows"), i, r)
    {
        char want_html[64], want_md[64];
        double v = json_number_value(json_object_get(r, "agent_cpu_pct"));
        snprintf(want_html, sizeof want_html, "<td>%.*f</td>", dec, v);
        snprintf(want_md, sizeof want_md, "| %.*f |", dec, v);
        if (strstr(html, want_html) == NULL || strstr(md, want_md) == NULL)
            fail_msg("row %zu: agent CPU %% %g is not %s in report.html and %s in matrix.md", i, v,
                     want_html, want_md);
    }
    json_decref(m);
    free(html);
}

static void test_errors_by_type_column(void **state)
{
    (void)state;
    char *html = render(FIXTURES "/golden");
    assert_non_null(strstr(html, "<th>errors by type</th>"));
    assert_non_null(strstr(html, "<td class=\"types\">es_rejected_execution_exception 480: "
                                 "<span class=\"reason\">rejected execution of coordinating "
                                 "operation</span><br>mapper_parsing_exception 2: <span "
                                 "class=\"reason\">failed to parse field [n] of type [long], "
                                 "&quot;x&quot;</span></td>"));
    assert_non_null(strstr(html, "<th>429 docs</th>"));
    free(html);
}

/* a degraded row (an agent lost: 18k -> 33k looked like a concurrency gain)
 * is drawn hollow, dashed, struck and labelled "left out", off the line, with the findings'
 * reason in its tooltip and in the chart data */
/* A resumed campaign's sentence on which run measured which cells (matrix.json's findings
 * item of kind "runs", said in matrix.md and the findings) is in report.html's findings too */
static void test_resumed_runs_sentence(void **state)
{
    (void)state;
    char tmpl[1024];
    snprintf(tmpl, sizeof tmpl, "%s/bf-report-runs.XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    char *dir = mkdtemp(tmpl);
    assert_non_null(dir);
    char *mpath = bf_asprintf("%s/matrix.json", dir);
    static const char note[] = "Measured in 2 runs (the campaign was resumed): run 1 c1, run 2 "
                               "c2 (started 3.0 h later)";
    FILE *f = fopen(mpath, "w");
    assert_non_null(f);
    fprintf(f,
            "{\"scenario\":\"rs\",\"runs\":[{\"started_at_ms\":1},{\"started_at_ms\":10800001}],"
            "\"rows\":["
            "{\"cell\":\"c1\",\"indices\":1,\"shards\":1,\"replicas\":0,\"batch_size\":500,"
            "\"concurrency\":1,\"docs_per_s\":10000,\"verified\":true},"
            "{\"cell\":\"c2\",\"indices\":1,\"shards\":1,\"replicas\":0,\"batch_size\":500,"
            "\"concurrency\":2,\"docs_per_s\":18000,\"verified\":true}],"
            "\"findings\":{\"lines\":[\"%s\"],\"items\":[{\"kind\":\"runs\",\"axis\":null,"
            "\"at\":{},\"figures\":{\"runs\":2},\"text\":\"%s\"}]}}",
            note, note);
    fclose(f);
    char *html = render(dir);
    char *li = bf_asprintf("<li>%s</li>", note);
    const char *fs = strstr(html, "<h2 id=\"findings\">");
    assert_non_null(fs);
    if (strstr(fs, li) == NULL)
        fail_msg("report.html's findings lack the resumed campaign's sentence");
    json_t *data = embedded_data(html);
    json_t *items = json_object_get(json_object_get(data, "findings"), "items");
    size_t i, nruns = 0;
    json_t *it;
    json_array_foreach(items, i, it)
    {
        const char *kind = json_string_value(json_object_get(it, "kind"));
        nruns += kind && strcmp(kind, "runs") == 0;
    }
    assert_int_equal(nruns, 1);
    json_decref(data);
    free(li);
    free(html);
    char *rp = bf_asprintf("%s/report.html", dir);
    unlink(rp);
    free(rp);
    unlink(mpath);
    free(mpath);
    rmdir(dir);
}

static void test_left_out_points(void **state)
{
    (void)state;
    char tmpl[1024];
    snprintf(tmpl, sizeof tmpl, "%s/bf-report-lo.XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    char *dir = mkdtemp(tmpl);
    assert_non_null(dir);
    char *mpath = bf_asprintf("%s/matrix.json", dir);
    FILE *f = fopen(mpath, "w");
    assert_non_null(f);
    fputs("{\"scenario\":\"lo\",\"rows\":["
          "{\"cell\":\"c1\",\"indices\":1,\"shards\":1,\"replicas\":0,\"batch_size\":500,"
          "\"concurrency\":1,\"docs_per_s\":10000,\"verified\":true},"
          "{\"cell\":\"c2\",\"indices\":1,\"shards\":1,\"replicas\":0,\"batch_size\":500,"
          "\"concurrency\":2,\"docs_per_s\":18000,\"verified\":true},"
          "{\"cell\":\"c4\",\"indices\":1,\"shards\":1,\"replicas\":0,\"batch_size\":500,"
          "\"concurrency\":4,\"docs_per_s\":33000,\"verified\":true,\"degraded\":true}]}",
          f);
    fclose(f);
    char *html = render(dir);
    const char *chart = strstr(html, "data-chart=\"throughput\"");
    assert_non_null(chart);
    const char *end = strstr(chart, "</svg>");
    char *svg = bf_asprintf("%.*s", (int)(end - chart), chart);
    assert_int_equal(count(svg, "class=\"pt left\""), 1);
    assert_int_equal(count(svg, "class=\"strike\""), 1);
    assert_int_equal(count(svg, ">left out</text>"), 1);
    const char *lo = strstr(svg, "class=\"pt left\"");
    assert_non_null(strstr(lo, "data-cell=\"c4\""));
    assert_non_null(strstr(lo, "stroke-dasharray"));
    assert_non_null(strstr(lo, "(left out of the findings: degraded: an agent was lost)"));
    /* the line joins c1 and c2 only: two points, not three */
    const char *pl = strstr(svg, "points=\"");
    assert_non_null(pl);
    size_t pairs = 0;
    for (const char *q = pl + 8; *q && *q != '"'; q++)
        pairs += *q == ',';
    assert_int_equal(pairs, 2);
    json_t *data = embedded_data(html);
    json_t *pts = json_object_get(
        json_array_get(
            json_object_get(
                json_array_get(json_object_get(json_object_get(data, "charts"), "throughput"), 0),
                "lines"),
            0),
        "points");
    assert_int_equal(json_array_size(pts), 3);
    size_t i;
    json_t *p;
    json_array_foreach(pts, i, p)
    {
        const char *cell = json_string_value(json_object_get(p, "cell"));
        json_t *why = json_object_get(p, "left_out");
        if (strcmp(cell, "c4") == 0)
            assert_string_equal(json_string_value(why), "degraded: an agent was lost");
        else
            assert_true(json_is_null(why));
    }
    json_decref(data);
    free(svg);
    free(html);
    char *rp = bf_asprintf("%s/report.html", dir);
    unlink(rp);
    free(rp);
    unlink(mpath);
    free(mpath);
    rmdir(dir);
}

static void test_findmax_section(void **state)
{
    (void)state;
    char tmpl[1024]; /* under TMPDIR: the build folder under ctest */
    snprintf(tmpl, sizeof tmpl, "%s/bf-report-fm.XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    char *dir = mkdtemp(tmpl);
    assert_non_null(dir);
    char *mpath = bf_asprintf("%s/matrix.json", dir);
    char *fpath = bf_asprintf("%s/findmax.json", dir);
    FILE *f = fopen(mpath, "w");
    fputs("{\"scenario\":\"fm\",\"rows\":[{\"cell\":\"fm1-01-batch-b100-c1\",\"indices\":1,"
          "\"shards\":1,\"replicas\":0,\"batch_size\":100,\"concurrency\":1,\"docs_per_s\":1600}]}",
          f);
    fclose(f);
    char *html = render(dir);
    assert_null(strstr(html, "find-max"));
    free(html);
    f = fopen(fpath, "w");
    fputs("{\"scenario\":\"fm\",\"data_nodes\":1,\"combinations\":[{\"combination\":\"shards=1\","
          "\"found\":true,\"max_sustainable_docs_per_s\":2000.0,\"measured_docs_per_s\":1990.0,"
          "\"batch_size\":200,\"concurrency\":4,\"latency_p99_ms\":257.4,"
          "\"knee\":{\"batch_size\":200,\"concurrency\":2,\"docs_per_s\":2000.0,\"latency_p99_ms\":"
          "254.5},"
          "\"steps\":["
          "{\"step\":1,\"phase\":\"batch\",\"cell\":\"fm1-01-batch-b100-c1\",\"batch_size\":100,"
          "\"concurrency\":1,\"target_rate\":0.0,\"docs_per_s\":1600.0,\"latency_p99_ms\":104.9,"
          "\"docs_rejected\":0,\"write_rejected\":null,\"verdict\":\"gain\"},"
          "{\"step\":2,\"phase\":\"batch\",\"cell\":\"fm1-02-batch-b200-c1\",\"batch_size\":200,"
          "\"concurrency\":1,\"target_rate\":0.0,\"docs_per_s\":1733.0,\"latency_p99_ms\":122.8,"
          "\"docs_rejected\":0,\"write_rejected\":null,\"verdict\":\"gain\"},"
          "{\"step\":3,\"phase\":\"concurrency\",\"cell\":\"fm1-03-concurrency-b200-c2\","
          "\"batch_size\":200,\"concurrency\":2,\"target_rate\":0.0,\"docs_per_s\":2000.0,"
          "\"latency_p99_ms\":254.5,\"docs_rejected\":0,\"write_rejected\":null,\"verdict\":"
          "\"gain\"},"
          "{\"step\":4,\"phase\":\"concurrency\",\"cell\":\"fm1-04-concurrency-b200-c4\","
          "\"batch_size\":200,\"concurrency\":4,\"target_rate\":0.0,\"docs_per_s\":2010.0,"
          "\"latency_p99_ms\":401.9,\"docs_rejected\":120,\"write_rejected\":7,\"verdict\":"
          "\"rejected\"},"
          "{\"step\":5,\"phase\":\"sustain\",\"cell\":\"fm1-05-sustain-b200-c4-r2000\","
          "\"batch_size\":200,\"concurrency\":4,\"target_rate\":2000.0,\"docs_per_s\":1990.0,"
          "\"latency_p99_ms\":257.4,\"docs_rejected\":0,\"write_rejected\":0,\"verdict\":\"held\"}"
          "]}]}",
          f);
    fclose(f);
    html = render(dir);
    assert_non_null(strstr(html, "find-max: the search"));
    assert_non_null(
        strstr(html, "max sustainable: 2000 docs/s at batch 200, concurrency 4 (p99 257.4 ms)"));
    /* the path table: one row per step, verdicts as given */
    assert_int_equal(count(html, "<td>gain</td>"), 3);
    assert_int_equal(count(html, "<td>rejected</td>"), 1);
    assert_int_equal(count(html, "<td>held</td>"), 1);
    assert_non_null(strstr(html, "<td>120</td><td>7</td><td>rejected</td>"));
    /* both charts; the steps chart rings the rejected step; the curve marks knee and sustained */
    assert_int_equal(count(html, "data-chart=\"find_max_steps\""), 1);
    assert_int_equal(count(html, "data-chart=\"find_max_curve\""), 1);
    assert_non_null(strstr(html, "knee (best closed loop)"));
    assert_non_null(strstr(html, "sustained"));
    assert_non_null(strstr(html, "data-cell=\"fm1-04-concurrency-b200-c4\""));
    json_t *data = embedded_data(html);
    json_t *fm = json_object_get(json_object_get(data, "charts"), "find_max");
    assert_int_equal(json_array_size(fm), 1);
    assert_int_equal(json_array_size(json_object_get(json_array_get(fm, 0), "steps")), 5);
    json_decref(data);
    free(html);
    unlink(fpath);
    unlink(mpath);
    rmdir(dir);
    free(fpath);
    free(mpath);
}

/* The search parts of the report read a row's queries through the codec too: a
 * matrix.json written by the writers from a typed row with one named query renders the
 * query ladder and the mixed-workload charts with the row's own numbers, and no field name
 * the report uses is missing from the tables. */
/* DIR/matrix.json of scenario with rows (taken); returns its path (caller frees) */
static char *write_matrix(const char *dir, const char *scenario, json_t *rows)
{
    json_t *m = json_object();
    json_object_set_new(m, "scenario", json_string(scenario));
    json_object_set_new(m, "rows", rows);
    char *path = bf_asprintf("%s/matrix.json", dir);
    assert_int_equal(json_dump_file(m, path, 0), 0);
    json_decref(m);
    return path;
}

/* A matrix whose only varying axis is text (the gateway study: target direct vs gateway) is
 * drawn as bars side by side, one per value, each with its exact docs/s; not as points stacked
 * on the one concurrency there is. A numeric axis that varies keeps its line chart. */
static void test_text_axis_bars(void **state)
{
    (void)state;
    char tmpl[1024];
    snprintf(tmpl, sizeof tmpl, "%s/bf-report-bars.XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    char *dir = mkdtemp(tmpl);
    assert_non_null(dir);
    static const bf_axis_value_t ax[2][1] = {{{"target", "direct"}}, {{"target", "gateway"}}};
    static const double dps[2] = {9285.5, 10823.25};
    json_t *rows = json_array();
    for (int i = 0; i < 2; i++) {
        bf_cell_t cell = {.id = i ? "i4-s3-r0-b500-c4-gateway" : "i4-s3-r0-b500-c4-direct",
                          .indices = 4,
                          .shards = 3,
                          .batch_size = 500,
                          .concurrency = 4,
                          .target_name = ax[i][0].value,
                          .axes = ax[i],
                          .naxes = 1};
        bf_row_t row;
        memset(&row, 0, sizeof row);
        row.cell = &cell;
        row.docs_per_s = dps[i];
        row.service.p50_ms = 20.0 + i;
        row.service.p99_ms = 80.0 + i;
        row.service.count = 400;
        row.verified = 1;
        json_array_append_new(rows, bf_row_encode(&row));
    }
    char *path = write_matrix(dir, "gateway", rows);
    char *html = render(dir);
    assert_non_null(strstr(html, "<h2 id=\"throughput\">docs/s by target (batch 500)</h2>"));
    assert_non_null(strstr(html, "<h2 id=\"service-time\">Service time by target (batch "
                                 "500)</h2>"));
    /* one bar per value, its label under it, its exact value, its cell */
    const char *tp = strstr(html, "data-chart=\"throughput\"");
    assert_non_null(tp);
    const char *end = strstr(tp, "</svg>");
    assert_non_null(end);
    char *chart = bf_strndup(tp, (size_t)(end - tp));
    assert_int_equal(count(chart, "<rect class=\"bar"), 2);
    assert_int_equal(count(chart, "<polyline"), 0);
    assert_non_null(strstr(chart, "data-cell=\"i4-s3-r0-b500-c4-direct\" data-y=\"9285.5\""));
    assert_non_null(strstr(chart, "data-cell=\"i4-s3-r0-b500-c4-gateway\" data-y=\"10823.25\""));
    const char *d = strstr(chart, ">direct</text>"), *g = strstr(chart, ">gateway</text>");
    assert_true(d != NULL && g != NULL && d < g); /* side by side, in the matrix's order */
    assert_non_null(strstr(chart, ">target (batch 500)</text>")); /* the x axis names it */
    free(chart);
    json_t *data = embedded_data(html);
    json_t *panel =
        json_array_get(json_object_get(json_object_get(data, "charts"), "throughput"), 0);
    assert_true(json_is_true(json_object_get(panel, "bars")));
    assert_int_equal(json_array_size(json_object_get(panel, "lines")), 2);
    json_decref(data);
    free(html);
    unlink(path);
    free(path);
    rmdir(dir);
    /* a numeric main axis (the golden fixture's) stays a line chart */
    html = render(FIXTURES "/golden");
    assert_null(strstr(html, "<rect class=\"bar"));
    assert_non_null(strstr(html, "<h2 id=\"throughput\">docs/s against "));
    free(html);
}

static void test_search_rows_through_the_codec(void **state)
{
    (void)state;
    char tmpl[1024];
    snprintf(tmpl, sizeof tmpl, "%s/bf-report-q.XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    char *dir = mkdtemp(tmpl);
    assert_non_null(dir);
    bf_cell_t cell = {.id = "i1-s1-r0-b10-c2-q1",
                      .indices = 1,
                      .shards = 1,
                      .batch_size = 10,
                      .concurrency = 2,
                      .search_clients = 1};
    bf_row_t row;
    memset(&row, 0, sizeof row);
    row.cell = &cell;
    row.docs_per_s = 4321.5;
    row.service.p50_ms = 3.25;
    row.service.p99_ms = NAN;
    row.verified = 1;
    row.nqueries = 1;
    row.queries[0].name = "term_status";
    row.queries[0].ops_per_s = 12.5;
    row.queries[0].service.p50_ms = 7.75;
    row.queries[0].service.p90_ms = 9.5;
    row.queries[0].service.p99_ms = NAN;
    row.queries[0].service.p999_ms = NAN;
    row.queries[0].service.max_ms = 11.0;
    row.queries[0].prof_service_ms = NAN;
    json_t *rows = json_array();
    json_array_append_new(rows, bf_row_encode(&row));
    char *path = write_matrix(dir, "q", rows);
    char *html = render(dir);
    assert_non_null(strstr(html, "data-chart=\"query_latency\""));
    assert_non_null(strstr(html, "data-pct=\"service_p90_ms\" data-y=\"9.5\""));
    assert_non_null(strstr(html, "<td>4322</td>") ? strstr(html, "<td>4322</td>")
                                                  : strstr(html, "<td>4321</td>"));
    assert_non_null(strstr(html, "\"queries_per_s\": 12.5")
                        ? strstr(html, "\"queries_per_s\": 12.5")
                        : strstr(html, "\"queries_per_s\":12.5"));
    free(html);
    unlink(path);
    free(path);
    rmdir(dir);
}

/* The y axis's top tick label of the SVG starting at svg (its last <text class="yt">), into
 * out; "" when it has none. */
static void top_tick(const char *svg, char *out, size_t n)
{
    const char *end = strstr(svg, "</svg>");
    out[0] = '\0';
    for (const char *p = strstr(svg, "class=\"yt\""); p && p < end;
         p = strstr(p + 1, "class=\"yt\"")) {
        const char *gt = strchr(p, '>'), *lt = gt ? strchr(gt, '<') : NULL;
        if (gt && lt && (size_t)(lt - gt) < n)
            snprintf(out, n, "%.*s", (int)(lt - gt - 1), gt + 1);
    }
}

/* Every panel of kind (data-chart) has the same top tick: one y scale; returns the panels. */
static size_t same_scale(const char *html, const char *kind)
{
    char needle[64], first[32] = "", t[32];
    snprintf(needle, sizeof needle, "data-chart=\"%s\"", kind);
    size_t n = 0;
    for (const char *p = strstr(html, needle); p; p = strstr(p + 1, needle), n++) {
        top_tick(p, t, sizeof t);
        assert_true(t[0] != '\0');
        if (n == 0)
            snprintf(first, sizeof first, "%s", t);
        else if (strcmp(first, t) != 0)
            fail_msg("%s panel %zu tops at %s, the first at %s", kind, n, t, first);
    }
    return n;
}

/* Panels that share an axis share their y scale (the 850-shard p99 panel topped at 1.5k beside
 * the 50-shard one's 20k); a line whose percentile needs more requests than its cells had says
 * so in its legend instead of vanishing; the ladder's legend says which percentiles are missing
 * and where. */
static void test_shared_scales_and_missing_percentiles(void **state)
{
    (void)state;
    char *html = render(FIXTURES "/shard-study-base");
    assert_int_equal(same_scale(html, "throughput"), 2);
    assert_int_equal(same_scale(html, "service_p50"), 2);
    assert_int_equal(same_scale(html, "service_p99"), 2);
    assert_int_equal(same_scale(html, "per_second"), 12);
    assert_int_equal(same_scale(html, "write_queue"), 12);
    assert_int_equal(same_scale(html, "write_rejected"), 12);
    char t[32];
    top_tick(strstr(html, "data-chart=\"service_p99\""), t, sizeof t);
    assert_string_equal(t, "20k"); /* the largest p99, 18.5 s at 50 shards */
    /* 850 shards, batch 5000: every cell under 100 responses, so no p99 point at all */
    const char *p99 = strstr(html, "service p99, 850 shards");
    assert_non_null(p99);
    const char *leg = strstr(p99, "<ul class=\"legend\">");
    assert_non_null(leg);
    assert_non_null(strstr(leg, "batch 5000: <span class=\"few-note\">too few requests for p99 "
                                "(it needs 100 in the window)</span>"));
    assert_true(strstr(leg, "batch 5000") < strstr(leg, "</ul>"));
    /* the ladder's legend: p99 missing in 3 of the 12 cells, p99.9 in 6 */
    assert_non_null(strstr(html, "p99: <span class=\"few-note\">too few requests in 3 of 12 (it "
                                 "needs 100)</span>"));
    assert_non_null(strstr(html, "p99.9: <span class=\"few-note\">too few requests in 6 of 12 "
                                 "(it needs 1000)</span>"));
    free(html);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_self_contained_page),
        cmocka_unit_test(test_embedded_data_equals_matrix),
        cmocka_unit_test(test_svg_markers_carry_exact_values),
        cmocka_unit_test(test_repeated_cells_draw_every_run),
        cmocka_unit_test(test_whiskers_and_verdicts),
        cmocka_unit_test(test_errors_and_escaping),
        cmocka_unit_test(test_findmax_section),
        cmocka_unit_test(test_left_out_points),
        cmocka_unit_test(test_resumed_runs_sentence),
        cmocka_unit_test(test_search_rows_through_the_codec),
        cmocka_unit_test(test_text_axis_bars),
        cmocka_unit_test(test_errors_by_type_column),
        cmocka_unit_test(test_agent_cpu_same_as_matrix_md),
        cmocka_unit_test(test_shared_scales_and_missing_percentiles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
