/* SPDX-License-Identifier: MIT */
/* bf_report.c — report.html from a results directory: inline SVG charts, embedded data.
 *
 * Reading: matrix.json (the rows), cells/<cell>[-r<rep>].ndjson ("row" and "second" lines),
 * telemetry/<cell>[-r<rep>].ndjson ("info" and "tick" lines). Drawing: a small generic line
 * plot (linear or log2 x, linear y from 0, shaded warmup, hatched tail, legend) and a dot
 * plot for percentiles. Every number drawn is also put into the bf-data JSON block.
 */
#include "bf_report.h"
#include "bf_report_int.h"

#include "bf_atomic.h"
#include "bf_matrixfile.h"

#include "bf_findings.h"
#include "bf_log.h"
#include "bf_mem.h"
#include "bf_results.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- search ------------------------------------------------------------------------------- */

static int has_queries(const rowinfo *r)
{
    return r->rec.row.nqueries > 0;
}

/* Queries answered per second, latency per query, and the mixed-workload charts. */
static void section_search(bf_buf_t *b, rowinfo *ri, size_t n, json_t *charts)
{
    size_t nq = 0;
    for (size_t i = 0; i < n; i++)
        nq += ri[i].rec.row.nqueries;
    if (nq == 0)
        return;
    json_t *lat = json_array(), *per = json_array();
    json_object_set_new(charts, "query_latency", lat);
    json_object_set_new(charts, "query_per_second", per);
    /* the ladder: one line per cell and query */
    bf_buf_appendz(b, "<h2 id=\"query-latency\">Query service time per cell</h2>\n<p class=\"note\">"
                      "Send to answer of each named query, histograms of all agents merged; log "
                      "scale (latency from the intended time is in matrix.json).</p>\n");
    char **labels = bf_calloc(nq + 1, sizeof *labels);
    double(*vals)[5] = bf_calloc(nq + 1, sizeof *vals);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        for (uint32_t j = 0; j < ri[i].rec.row.nqueries; j++) {
            const bf_qrow_t *q = &ri[i].rec.row.queries[j];
            const char *qn = q->name ? q->name : "";
            labels[k] = bf_asprintf("%s %s", ri[i].cell, qn);
            json_t *o = json_object();
            json_object_set_new(o, "cell", json_string(ri[i].cell));
            json_object_set_new(o, "query", json_string(qn));
            for (size_t p = 0; p < 5; p++) {
                json_object_set_new(o, bf__pct_keys[p], bf__qval(q, bf__pct_keys[p]));
                vals[k][p] = bf__qnum(q, bf__pct_keys[p]);
            }
            json_array_append_new(lat, o);
            k++;
        }
    }
    bf__ladder(b, (const char *const *)labels, (const double(*)[5])vals, k, "query_latency",
               "query service-time", "query service time (ms, log scale)");
    for (size_t i = 0; i < k; i++)
        free(labels[i]);
    free(labels);
    free(vals);
    /* answered queries each second, one line per query */
    bf_buf_appendz(b, "<h2 id=\"query-per-second\">Queries answered each second, per cell</h2>\n"
                      "<p class=\"note\">2xx answers per second of each named query, all agents "
                      "merged. Grey: warmup; hatched: tail. One y scale for every cell.</p>\n"
                      "<div class=\"charts\">\n");
    double qmax = 0; /* one y scale for every panel */
    for (size_t i = 0; i < n; i++) {
        if (ri[i].nruns == 0 || !has_queries(&ri[i]))
            continue;
        const char *qn0;
        json_t *arr0;
        json_object_foreach(ri[i].runs[0].query_ops, qn0, arr0)
        {
            size_t t;
            json_t *v;
            json_array_foreach(arr0, t, v) if ((double)json_integer_value(v) > qmax) qmax =
                (double)json_integer_value(v);
        }
    }
    for (size_t i = 0; i < n; i++) {
        if (ri[i].nruns == 0 || !has_queries(&ri[i]))
            continue;
        run *rn = &ri[i].runs[0];
        uint32_t W = rn->warmup_s, D = rn->duration_s;
        size_t nsec = json_array_size(rn->docs_ok);
        double xmax = (double)nsec > (double)(W + D) ? (double)nsec : (double)(W + D);
        plot p = {.w = 430,
                  .h = 210,
                  .title = ri[i].cell,
                  .xlabel = "second of the cell",
                  .ylabel = "queries/s",
                  .kind = "query_per_second",
                  .fixed_x = 1,
                  .xmin = 0,
                  .xmax = xmax > 0 ? xmax : 1,
                  .shade_to = W,
                  .tail_from = (double)(W + D),
                  .ymax = qmax};
        const char *qn;
        json_t *arr;
        json_object_foreach(rn->query_ops, qn, arr) {
            pseries *sr = bf__plot_add_series(&p, qn, 0);
            size_t t;
            json_t *v;
            json_array_foreach(arr, t, v)
                bf__series_add(sr, (double)t + 0.5, (double)json_integer_value(v), NULL, 0);
        }
        json_t *o = json_object();
        json_object_set_new(o, "cell", json_string(ri[i].cell));
        json_object_set(o, "query_ops", rn->query_ops);
        json_array_append_new(per, o);
        bf__plot_draw(b, &p);
        bf__plot_free(&p);
    }
    bf_buf_appendz(b, "</div>\n");
    /* the Profile API summary of each profiled query (seed 002's table) */
    int profiled = 0;
    for (size_t i = 0; i < n; i++)
        for (uint32_t j = 0; j < ri[i].rec.row.nqueries; j++)
            profiled |= isfinite(bf__qnum(&ri[i].rec.row.queries[j], "profile_service_ms"));
    if (profiled) {
        static const char *const pk[] = {
            "profile_service_ms", "profile_query_ms", "profile_collectors_ms", "profile_rewrite_ms",
            "profile_fetch_ms",   "profile_rest_ms",  "profile_rest_pct"};
        bf_buf_appendz(
            b, "<h2 id=\"profile\">Profile of the slowest sampled request</h2>\n<p "
               "class=\"note\">Per query with profile: true, the slowest of the requests "
               "sent with \"profile\": true (1 in 8), on its slowest shard; rest = service "
               "time minus that shard's phases: the coordinating node's work and the "
               "transfer. The whole answer: profiles/&lt;cell&gt;-&lt;query&gt;.json.</p>\n"
               "<div class=\"tscroll\"><table><thead><tr><th>cell</th><th>query</th><th>service "
               "ms</th><th>query "
               "ms</th><th>collectors ms</th><th>rewrite ms</th><th>fetch ms</th><th>rest ms"
               "</th><th>rest %</th></tr></thead><tbody>\n");
        for (size_t i = 0; i < n; i++) {
            for (uint32_t j = 0; j < ri[i].rec.row.nqueries; j++) {
                const bf_qrow_t *q = &ri[i].rec.row.queries[j];
                if (!isfinite(bf__qnum(q, "profile_service_ms")))
                    continue;
                bf_buf_appendz(b, "<tr><td>");
                bf__html_esc(b, ri[i].cell);
                bf_buf_appendz(b, "</td><td>");
                bf__html_esc(b, q->name);
                bf_buf_appendz(b, "</td>");
                for (size_t k2 = 0; k2 < 7; k2++) {
                    char t[32];
                    json_t *v = bf__qval(q, pk[k2]);
                    bf_buf_appendf(b, "<td class=\"n\">%s</td>",
                                   bf__num_or_dash(v, k2 == 0 || k2 >= 5 ? 1 : 2, t, sizeof t));
                    json_decref(v);
                }
                bf_buf_appendz(b, "</tr>\n");
            }
        }
        bf_buf_appendz(b, "</tbody></table></div>\n");
    }
    /* mixed workload: indexing docs/s and query p90 against the measured query rate */
    json_t *mix = json_array();
    json_object_set_new(charts, "mixed", mix);
    bf_buf_appendz(b, "<h2 id=\"mixed\">Indexing and searching together</h2>\n<p class=\"note\">"
                      "x: queries answered per second in the cell (all named queries, measured); "
                      "left: docs/s of the cells that index, one line per concurrency; right: "
                      "service p90 of each query, alone (concurrency 0) and beside indexing.</p>\n"
                      "<div class=\"charts\">\n");
    plot pd = {.w = 430, .h = 240, .title = "docs/s against search load", .xlabel = "queries/s",
               .ylabel = "docs/s", .kind = "mixed_docs"};
    plot pq = {.w = 430, .h = 240, .title = "query p90 against search load", .xlabel = "queries/s",
               .ylabel = "service p90 ms", .kind = "mixed_p90"};
    for (size_t i = 0; i < n; i++) {
        const bf_row_t *row = &ri[i].rec.row;
        if (!ri[i].rec.searches || row->failed)
            continue;
        double qps = 0;
        for (uint32_t j = 0; j < row->nqueries; j++) {
            double v = bf__qnum(&row->queries[j], "ops_per_s");
            qps += isfinite(v) ? v : 0;
        }
        long long conc = (long long)row->cell->concurrency;
        char label[300];
        json_t *o = json_object();
        json_object_set_new(o, "cell", json_string(ri[i].cell));
        json_object_set_new(o, "queries_per_s", json_real(qps));
        json_object_set_new(o, "concurrency", json_integer(conc));
        json_object_set_new(o, "docs_per_s", bf__rval(&ri[i], "docs_per_s"));
        json_array_append_new(mix, o);
        if (conc > 0) {
            snprintf(label, sizeof label, "concurrency %lld", conc);
            pseries *sr = NULL;
            for (size_t s2 = 0; s2 < pd.ns; s2++)
                if (strcmp(pd.s[s2].label, label) == 0)
                    sr = &pd.s[s2];
            if (sr == NULL)
                sr = bf__plot_add_series(&pd, label, 1);
            bf__series_add(sr, qps, bf__rnum(&ri[i], "docs_per_s"), ri[i].cell, 0);
        }
        for (uint32_t j = 0; j < row->nqueries; j++) {
            const bf_qrow_t *q = &row->queries[j];
            const char *qn = q->name;
            snprintf(label, sizeof label, "%s %s", qn ? qn : "", conc > 0 ? "with indexing"
                                                                          : "alone");
            pseries *sr = NULL;
            for (size_t s2 = 0; s2 < pq.ns; s2++)
                if (strcmp(pq.s[s2].label, label) == 0)
                    sr = &pq.s[s2];
            if (sr == NULL)
                sr = bf__plot_add_series(&pq, label, 1);
            bf__series_add(sr, qps, bf__qnum(q, "service_p90_ms"), ri[i].cell, 0);
        }
    }
    bf__plot_draw(b, &pd);
    bf__plot_draw(b, &pq);
    bf__plot_free(&pd);
    bf__plot_free(&pq);
    bf_buf_appendz(b, "</div>\n");
}

static void section_telemetry(bf_buf_t *b, rowinfo *ri, size_t n, json_t *charts)
{
    json_t *arr = json_array();
    json_object_set_new(charts, "telemetry", arr);
    bf_buf_appendz(b,
                   "<h2 id=\"telemetry\">Write thread pool per node</h2>\n<p class=\"note\">What "
                   "the cluster reported every second (_nodes/stats): the write pool's queue, "
                   "and rejections since the previous sample, per node. Grey: warmup. One y "
                   "scale for every queue chart, one for every rejections chart.</p>\n"
                   "<div class=\"charts\">\n");
    size_t shown = 0;
    double ytops[2] = {0, 0}; /* queue, rejected: one y scale each over every panel */
    for (size_t i = 0; i < n; i++)
        for (size_t r = 0; r < ri[i].nruns; r++) {
            const char *name;
            json_t *ns;
            json_object_foreach(json_object_get(ri[i].runs[r].tele, "nodes"), name, ns)
            {
                for (int which = 0; which < 2; which++) {
                    size_t k;
                    json_t *y;
                    json_array_foreach(json_object_get(ns, which == 0 ? "queue" : "rejected_delta"),
                                       k, y) if (json_is_number(y) &&
                                                 json_number_value(y) > ytops[which]) ytops[which] =
                        json_number_value(y);
                }
            }
        }
    for (size_t i = 0; i < n; i++) {
        for (size_t r = 0; r < ri[i].nruns; r++) {
            run *rn = &ri[i].runs[r];
            if (rn->tele == NULL)
                continue;
            shown++;
            json_t *o = json_object();
            json_object_set_new(o, "cell", json_string(ri[i].cell));
            json_object_set_new(o, "repetition", json_integer(rn->repetition));
            json_object_update(o, rn->tele);
            json_array_append_new(arr, o);
            json_t *nodes = json_object_get(rn->tele, "nodes");
            bf_buf_appendz(b, "<div class=\"pair\">");
            for (int which = 0; which < 2; which++) {
                char title[400];
                snprintf(title, sizeof title, "%s%s: %s", ri[i].cell, ri[i].nruns > 1 ? " run" : "",
                         which == 0 ? "write queue" : "write rejections");
                if (ri[i].nruns > 1)
                    snprintf(title, sizeof title, "%s run %u: %s", ri[i].cell, rn->repetition,
                             which == 0 ? "write queue" : "write rejections");
                plot p = {.w = 430,
                          .h = 190,
                          .title = title,
                          .xlabel = "second of the cell",
                          .ylabel = which == 0 ? "queued" : "rejected/s",
                          .kind = which == 0 ? "write_queue" : "write_rejected",
                          .shade_to = rn->warmup_s,
                          .tail_from = INFINITY,
                          .ymax = ytops[which]};
                const char *name;
                json_t *ns;
                double tmin = INFINITY, tmax = -INFINITY;
                json_object_foreach(nodes, name, ns) {
                    pseries *s = bf__plot_add_series(&p, name, 0);
                    json_t *ts = json_object_get(ns, "t_ms");
                    json_t *ys = json_object_get(ns, which == 0 ? "queue" : "rejected_delta");
                    for (size_t k = 0; k < json_array_size(ts); k++) {
                        double t = json_number_value(json_array_get(ts, k)) / 1000.0;
                        json_t *y = json_array_get(ys, k);
                        bf__series_add(s, t, json_is_number(y) ? json_number_value(y) : NAN, NULL,
                                       0);
                        tmin = t < tmin ? t : tmin;
                        tmax = t > tmax ? t : tmax;
                    }
                }
                if (isfinite(tmin)) {
                    p.fixed_x = 1;
                    p.xmin = tmin;
                    p.xmax = tmax > tmin ? tmax : tmin + 1;
                }
                bf__plot_draw(b, &p);
                bf__plot_free(&p);
            }
            bf_buf_appendz(b, "</div>\n");
        }
    }
    if (shown == 0)
        bf_buf_appendz(b, "<p class=\"na\">No telemetry in this results directory.</p>");
    bf_buf_appendz(b, "</div>\n");
}

static void section_table(bf_buf_t *b, rowinfo *ri, size_t n)
{
    static const struct {
        const char *key, *head;
        int decimals;
    } cols[] = {
        {"indices", "indices", 0},
        {"shards", "shards", 0},
        {"replicas", "replicas", 0},
        {"batch_size", "batch size", 0},
        {"concurrency", "concurrency", 0},
        {"docs_per_s", "docs/s", 0},
        {"docs_per_s_min", "min", 0},
        {"docs_per_s_median", "median", 0},
        {"docs_per_s_max", "max", 0},
        {"mb_per_s_payload", "MB/s", 1},
        {"service_p50_ms", "p50 ms", 1},
        {"service_p99_ms", "p99 ms", 1},
        {"http_429", "429 requests", 0},
        {"docs_429", "429 docs", 0},
        {"docs_rejected", "rejected docs", 0},
        {"write_queue_max", "write queue max", 0},
        {"write_rejected", "write rejected", 0},
        {"hot_spot_ratio", "hot spot", 2},
        {"cluster_docs_per_s", "cluster docs/s", 0},
        {"agent_cpu_pct", "agent CPU %", 1},
        {"host_load_avg", "agent host load", 2},
        /* where the worker threads' time went: one cell, four shares */
        {"stage_shares", "worker time % render / gzip / judge / send-wait", 0},
        {"cv", "CV", 3},
    };
    bf_buf_appendz(b,
                   "<h2 id=\"matrix\">The matrix</h2>\n<div class=\"tscroll\"><table><thead><tr>");
    for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++)
        bf_buf_appendf(b, "<th>%s</th>", cols[c].head);
    bf_buf_appendz(b, "<th>errors by type</th><th>flags</th></tr></thead><tbody>\n");
    for (size_t i = 0; i < n; i++) {
        bf_buf_appendz(b, "<tr>");
        const bf_row_t *row = &ri[i].rec.row;
        for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++) {
            char t[64];
            if (strcmp(cols[c].key, "stage_shares") == 0) {
                if (isfinite(row->stage_render_pct))
                    bf_buf_appendf(b, "<td>%.0f / %.0f / %.0f / %.0f</td>", row->stage_render_pct,
                                   row->stage_compress_pct, row->stage_judge_pct,
                                   row->stage_send_wait_pct);
                else
                    bf_buf_appendz(b, "<td>-</td>");
                continue;
            }
            /* the cell's own numbers, then the row table's fields (the codec) */
            const bf_cell_t *cl = row->cell;
            static const char *const cell_keys[] = {"indices", "shards", "replicas", "batch_size",
                                                    "concurrency"};
            const uint32_t cell_vals[] = {cl->indices, cl->shards, cl->replicas, cl->batch_size,
                                          cl->concurrency};
            json_t *v = NULL;
            for (size_t k = 0; k < 5 && v == NULL; k++)
                if (strcmp(cols[c].key, cell_keys[k]) == 0)
                    v = json_integer(cell_vals[k]);
            if (v == NULL)
                v = bf__rval(&ri[i], cols[c].key);
            /* the row table's rounding where it has one, so matrix.md and this agree */
            int dec = bf_row_field_decimals(cols[c].key);
            bf_buf_appendf(b, "<td>%s</td>",
                           bf__num_or_dash(v, dec >= 0 ? dec : cols[c].decimals, t, sizeof t));
            json_decref(v);
        }
        /* failed documents by error type, most first, with the first reason of each */
        bf_buf_appendz(b, "<td class=\"types\">");
        uint32_t order[BF_ERRTYPES_MAX];
        uint32_t ne = bf_errtypes_sorted(&row->doc_errors, order);
        for (uint32_t ei = 0; ei < ne; ei++) {
            const bf_errtype_t *e = &row->doc_errors.e[order[ei]];
            const char *reason = e->reason;
            bf_buf_appendz(b, ei ? "<br>" : "");
            bf__html_esc(b, e->type[0] ? e->type : "?");
            bf_buf_appendf(b, " %lld", (long long)e->docs);
            if (reason && reason[0]) {
                bf_buf_appendz(b, ": <span class=\"reason\">");
                bf__html_esc(b, reason);
                bf_buf_appendz(b, "</span>");
            }
        }
        bf_buf_appendz(b, "</td><td>");
        static const char *const flags[] = {
            "failed",       "aborted",       "degraded",       "yellow",
            "client_bound", "target_missed", "stalled",        "search_rate_missed",
            "tls_insecure", "few_requests",  "index_mismatch", "unsteady"};
        for (size_t k = 0; k < sizeof flags / sizeof flags[0]; k++) {
            /* search_rate_missed is written beside the table (search rows only) */
            int on = strcmp(flags[k], "search_rate_missed") == 0 ? row->search_rate_missed
                                                                 : bf__rnum(&ri[i], flags[k]) > 0;
            if (on)
                bf_buf_appendf(b, "<span class=\"flag\">%s</span> ", flags[k]);
        }
        if (!row->verified)
            bf_buf_appendz(b, "<span class=\"flag\">unverified</span>");
        bf_buf_appendz(b, "</td></tr>\n");
    }
    bf_buf_appendz(b, "</tbody></table></div>\n");
    /* what a first-time reader asks about these columns (docs/results.md) */
    bf_buf_appendz(
        b,
        "<h3 id=\"columns\">What the columns mean</h3>\n<dl class=\"cols\">"
        "<dt>docs/s, min, median, max</dt><dd>Documents acknowledged in the measurement window "
        "÷ its length (warmup and tail excluded); min, median and max of the per-second series, "
        "an empty second counting as 0.</dd>"
        "<dt>MB/s</dt><dd>Uncompressed NDJSON payload sent per second.</dd>"
        "<dt>p50 ms, p99 ms</dt><dd>Service time: send to complete response of a bulk request. "
        "p99 needs 100 responses in the window, else it is -.</dd>"
        "<dt>429, rejected docs</dt><dd>Whole-request 429s, and documents the cluster rejected "
        "(429 items: its write thread pool was full).</dd>"
        "<dt>write queue max</dt><dd>The longest write thread pool queue on any node "
        "(_nodes/stats, every second): requests waiting for a write thread. A growing queue means "
        "the cluster is saturated before it rejects.</dd>"
        "<dt>write rejected</dt><dd>Tasks the write pools rejected during the window, summed over "
        "nodes: the server side of the 429s.</dd>"
        "<dt>hot spot</dt><dd>The busiest data node's indexing rate ÷ the mean of all data "
        "nodes: 1.00 is even (always 1.00 on one node); 2.0 means one node takes twice its "
        "share, usually from shard placement or routing.</dd>"
        "<dt>cluster docs/s</dt><dd>What the primaries' index_total grew by per second: close "
        "to docs/s when the cluster indexed what bulkfleet counted (more if something else "
        "writes).</dd>"
        "<dt>agent CPU %</dt><dd>The agents' CPU over their cores; at 90 % the cell is "
        "client_bound: it measures the load generator, not the cluster.</dd>"
        "<dt>agent host load</dt><dd>The agents' hosts' 1-minute load average (/proc/loadavg) "
        "during the window, mean over the agents: runnable threads, all processes. Well above "
        "the host's cores means the agents waited for a CPU, whatever their own CPU % says "
        "(another process, or the cluster on the same host). A minute's average: a cell shorter "
        "than a minute still carries some of the one before.</dd>"
        "<dt>CV</dt><dd>With run.repeat: the coefficient of variation of docs/s over the "
        "repetitions (standard deviation ÷ mean); - with one repetition, which has no spread "
        "to estimate.</dd>"
        "<dt>flags</dt><dd>few_requests: fewer than 20 bulk responses in the window, too few to "
        "rank (the findings leave it out; lengthen run.duration). index_mismatch: the index "
        "already existed with other shards or replicas (the findings use the index's). "
        "unsteady: the per-second docs/s rose or fell through the window, or spread far beyond "
        "the other cells' (the findings leave it out). "
        "stalled, target_missed, failed, aborted, degraded, client_bound, unverified: not a "
        "clean measurement, see the row's reason in matrix.json.</dd></dl>\n");
}

static const char css[] =
    "body{font:14px/1.4 -apple-system,'Segoe UI',Helvetica,Arial,sans-serif;margin:24px;color:#222;"
    "background:#fff}h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 6px;"
    "border-bottom:1px solid "
    "#ddd}.meta,.note{color:#555}.charts{display:flex;flex-wrap:wrap;gap:10px}"
    ".pair{display:flex;gap:6px}"
    "svg.chart{background:#fcfcfc;border:1px solid "
    "#e3e3e3;max-width:100%;height:auto}.ct{font-weight:600;font-size:13px}"
    "line.grid{stroke:#e6e6e6}line.axis{stroke:#555}line.tick{stroke:#555}"
    ".yt{font-size:11px;text-anchor:end;fill:#444}.xt{font-size:11px;text-anchor:middle;fill:#444}"
    ".bv{font-size:11px;text-anchor:middle;fill:#222}"
    ".xl{font-size:12px;text-anchor:middle;fill:#333}.yl{font-size:12px;text-anchor:middle;fill:#"
    "333}"
    ".lg{font-size:11px;fill:#333}.rl{font-size:11px;text-anchor:end;fill:#333}"
    ".sl{font-size:10px;fill:#666}.na{fill:#999;color:#999}rect.warmup{fill:#000;fill-opacity:.07}"
    "rect.tail{fill:url(#hatch)}circle.few{stroke-width:2}circle.rej{stroke:#d62728;stroke-width:2."
    "5}line.range{stroke:#bbb;"
    "stroke-width:2}table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ddd;"
    "padding:3px 6px;text-align:right}th{background:#f3f3f3}.flag{color:#b00;font-weight:600}"
    "td.types{text-align:left;max-width:36em}.reason{color:#555}"
    "ul.findings li{margin:3px 0}.verdict{display:inline-block;min-width:4.5em;padding:0 4px;"
    "border-radius:3px;font-size:12px;text-align:center;color:#fff;background:#888}"
    ".v-higher{background:#2e7d32}.v-lower{background:#c62828}.v-same{background:#1565c0}"
    ".v-unclear{background:#9e9e9e}path.ci{stroke-width:1.2}path.ci.within{stroke-dasharray:2 "
    "2}figure.cf{margin:0;max-width:100%}"
    "ul.legend{list-style:none;margin:4px 0 0;padding:0 4px;display:flex;flex-wrap:wrap;"
    "gap:2px 14px;font-size:11px;color:#333}ul.legend li{display:flex;align-items:center;"
    "max-width:100%;min-width:0}ul.legend .lt{overflow-wrap:anywhere}figure.cf "
    "figcaption{overflow-wrap:anywhere;"
    "margin:0 0 2px 2px}ul.legend .sw{flex:none;"
    "width:14px;height:4px;margin-right:4px}ul.legend .sw.dot{width:10px;height:10px;"
    "border-radius:5px}dl.cols dt{font-weight:600;margin-top:4px}"
    "dl.cols dd{margin:0 0 0 18px;color:#333}text.lo{font-size:11px;fill:#555}"
    ".few-note{color:#a34a00}div.tscroll{overflow:auto;max-width:100%;width:fit-content;max-height:"
    "80vh;"
    "border:1px solid #e3e3e3}div.tscroll table{margin:0}div.tscroll th{position:sticky;top:0}"
    "code{overflow-wrap:anywhere}div.brk{flex-basis:100%;height:0}";

/* find-max (DIR/findmax.json, written by `bulkfleet-coordinator find-max`): per combination the
 * path as a table, docs/s by step, and the throughput-latency curve of the closed-loop steps at
 * the chosen batch size with the knee and the sustained point marked. */
static void section_findmax(bf_buf_t *b, const char *dir, json_t *charts)
{
    char *path = bf_asprintf("%s/findmax.json", dir);
    json_t *fm = bf__report_file_exists(path) ? json_load_file(path, 0, NULL) : NULL;
    free(path);
    json_t *combos = json_object_get(fm, "combinations");
    if (!json_is_array(combos) || json_array_size(combos) == 0) {
        json_decref(fm);
        return;
    }
    json_object_set(charts, "find_max", combos);
    bf_buf_appendz(b, "<h2 id=\"find-max\">find-max: the search</h2>\n<p class=\"note\">Each step "
                      "is an ordinary cell of the matrix below. Batch phase: one request in "
                      "flight, batch size doubling; concurrency phase: doubling, then bisection; "
                      "sustain: open loop at the found rate, stepping down until a rate holds "
                      "(target met, nothing rejected or failed, p99 within the bound and not "
                      "growing). A closed-loop peak is not a sustainable rate: the sustained "
                      "point is what the cluster held.</p>\n");
    size_t ci;
    json_t *c;
    json_array_foreach(combos, ci, c)
    {
        json_t *steps = json_object_get(c, "steps");
        bf_buf_appendz(b, "<h3>");
        bf__html_esc(b, json_string_value(json_object_get(c, "combination")));
        bf_buf_appendz(b, "</h3>\n<p class=\"note\">");
        if (json_is_true(json_object_get(c, "found"))) {
            char p99[32];
            bf_buf_appendf(
                b,
                "max sustainable: %.0f docs/s at batch %lld, concurrency %lld "
                "(p99 %s ms)",
                bf__jnum(c, "max_sustainable_docs_per_s"),
                (long long)json_integer_value(json_object_get(c, "batch_size")),
                (long long)json_integer_value(json_object_get(c, "concurrency")),
                bf__num_or_dash(json_object_get(c, "latency_p99_ms"), 1, p99, sizeof p99));
        } else {
            bf_buf_appendz(b, "no sustainable rate found: ");
            bf__html_esc(b, json_string_value(json_object_get(c, "end_reason")));
        }
        bf_buf_appendz(
            b, "</p>\n<div "
               "class=\"tscroll\"><table><thead><tr><th>step</th><th>phase</th><th>batch</th>"
               "<th>concurrency</th><th>target docs/s</th><th>docs/s</th><th>p99 ms"
               "</th><th>rejected docs</th><th>write rejected</th><th>verdict</th>"
               "</tr></thead><tbody>\n");
        size_t si_;
        json_t *s;
        json_array_foreach(steps, si_, s)
        {
            char t1[64], t2[64], t3[64], t4[64], t5[64];
            double rate = bf__jnum(s, "target_rate");
            bf_buf_appendf(b, "<tr><td>%lld</td><td>",
                           (long long)json_integer_value(json_object_get(s, "step")));
            bf__html_esc(b, json_string_value(json_object_get(s, "phase")));
            bf_buf_appendf(b,
                           "</td><td>%lld</td><td>%lld</td><td>%s</td><td>%s</td><td>%s</td>"
                           "<td>%s</td><td>%s</td><td>",
                           (long long)json_integer_value(json_object_get(s, "batch_size")),
                           (long long)json_integer_value(json_object_get(s, "concurrency")),
                           rate > 0 ? bf__si(rate, t1, sizeof t1) : "-",
                           bf__num_or_dash(json_object_get(s, "docs_per_s"), 0, t2, sizeof t2),
                           bf__num_or_dash(json_object_get(s, "latency_p99_ms"), 1, t3, sizeof t3),
                           bf__num_or_dash(json_object_get(s, "docs_rejected"), 0, t4, sizeof t4),
                           bf__num_or_dash(json_object_get(s, "write_rejected"), 0, t5, sizeof t5));
            bf__html_esc(b, json_string_value(json_object_get(s, "verdict")));
            bf_buf_appendz(b, "</td></tr>\n");
        }
        bf_buf_appendz(b, "</tbody></table></div>\n<div class=\"charts\">\n");
        char title[600];
        snprintf(title, sizeof title, "docs/s by step — %s",
                 json_string_value(json_object_get(c, "combination")));
        plot p1 = {.w = 430,
                   .h = 230,
                   .title = title,
                   .xlabel = "step",
                   .ylabel = "docs/s",
                   .kind = "find_max_steps",
                   .xticks_at_data = 1};
        pseries *st = bf__plot_add_series(&p1, "", 1);
        json_array_foreach(steps, si_, s)
        {
            const char *v = json_string_value(json_object_get(s, "verdict"));
            bf__series_add(st, bf__jnum(s, "step"), bf__jnum(s, "docs_per_s"),
                           json_string_value(json_object_get(s, "cell")),
                           v && (strcmp(v, "rejected") == 0 || strcmp(v, "too-large") == 0));
        }
        bf__plot_draw(b, &p1);
        bf__plot_free(&p1);
        /* throughput-latency: the closed-loop steps at the chosen batch size, by concurrency */
        snprintf(title, sizeof title, "throughput vs latency p99 — %s",
                 json_string_value(json_object_get(c, "combination")));
        plot p2 = {.w = 430,
                   .h = 230,
                   .title = title,
                   .xlabel = "docs/s",
                   .ylabel = "p99 ms",
                   .kind = "find_max_curve"};
        json_t *knee = json_object_get(c, "knee");
        long long kb = (long long)json_integer_value(json_object_get(knee, "batch_size"));
        pseries *curve = bf__plot_add_series(&p2, "closed loop (batch, concurrency)", 1);
        /* in order of concurrency, so the line follows the curve */
        size_t ns = json_array_size(steps);
        uint8_t *used = bf_calloc(ns + 1, 1);
        for (;;) {
            size_t best = ns;
            json_array_foreach(steps, si_, s)
            {
                if (used[si_] || bf__jnum(s, "target_rate") > 0 ||
                    !isfinite(bf__jnum(s, "latency_p99_ms")) ||
                    (long long)json_integer_value(json_object_get(s, "batch_size")) != kb)
                    continue;
                if (best == ns || bf__jnum(s, "concurrency") <
                                      bf__jnum(json_array_get(steps, best), "concurrency"))
                    best = si_;
            }
            if (best == ns)
                break;
            used[best] = 1;
            s = json_array_get(steps, best);
            const char *v = json_string_value(json_object_get(s, "verdict"));
            bf__series_add(curve, bf__jnum(s, "docs_per_s"), bf__jnum(s, "latency_p99_ms"),
                           json_string_value(json_object_get(s, "cell")),
                           v && strcmp(v, "rejected") == 0);
        }
        free(used);
        /* steps without a p99 (fewer than 100 responses) say so in the legend */
        size_t nop99 = 0, nop99s = 0;
        json_array_foreach(steps, si_, s)
        {
            if (isfinite(bf__jnum(s, "latency_p99_ms")))
                continue;
            if (bf__jnum(s, "target_rate") > 0)
                nop99s++;
            else if ((long long)json_integer_value(json_object_get(s, "batch_size")) == kb)
                nop99++;
        }
        if (nop99)
            snprintf(curve->note, sizeof curve->note,
                     "%zu step%s not drawn: too few requests for p99 (it needs 100)", nop99,
                     nop99 == 1 ? "" : "s");
        if (json_is_object(knee) && isfinite(bf__jnum(knee, "latency_p99_ms"))) {
            pseries *k = bf__plot_add_series(&p2, "knee (best closed loop)", 1);
            bf__series_add(k, bf__jnum(knee, "docs_per_s"), bf__jnum(knee, "latency_p99_ms"), NULL,
                           0);
        }
        pseries *sus = bf__plot_add_series(&p2, "sustain steps (open loop)", 1);
        json_array_foreach(steps, si_, s) if (bf__jnum(s, "target_rate") > 0 &&
                                              isfinite(bf__jnum(s, "latency_p99_ms")))
            bf__series_add(sus, bf__jnum(s, "docs_per_s"), bf__jnum(s, "latency_p99_ms"),
                           json_string_value(json_object_get(s, "cell")), 0);
        if (nop99s)
            snprintf(sus->note, sizeof sus->note,
                     "%zu step%s not drawn: too few requests for p99 (it needs 100)", nop99s,
                     nop99s == 1 ? "" : "s");
        if (json_is_true(json_object_get(c, "found")) && isfinite(bf__jnum(c, "latency_p99_ms"))) {
            pseries *h = bf__plot_add_series(&p2, "sustained", 1);
            bf__series_add(h, bf__jnum(c, "measured_docs_per_s"), bf__jnum(c, "latency_p99_ms"),
                           NULL, 0);
        }
        bf__plot_draw(b, &p2);
        bf__plot_free(&p2);
        bf_buf_appendz(b, "</div>\n");
    }
    json_decref(fm);
}
/* The findings sentence on the runs of a resumed campaign (the "runs" item matrix.json's
 * findings keep, written with the rows: bf_results), which findings computed here from the rows
 * cannot know: copied into fjson's items and lines, its text returned (borrowed from m), or
 * NULL when the campaign ran in one go. */
static const char *runs_finding(json_t *m, json_t *fjson)
{
    size_t i;
    json_t *it;
    json_array_foreach(json_object_get(json_object_get(m, "findings"), "items"), i, it)
    {
        const char *kind = json_string_value(json_object_get(it, "kind"));
        const char *text = json_string_value(json_object_get(it, "text"));
        if (kind == NULL || strcmp(kind, "runs") != 0 || text == NULL)
            continue;
        json_t *items = json_object_get(fjson, "items"), *lines = json_object_get(fjson, "lines");
        if (json_is_array(items))
            json_array_append(items, it);
        if (json_is_array(lines))
            json_array_append_new(lines, json_string(text));
        return text;
    }
    return NULL;
}

int bf_report_render(const char *dir, bf_buf_t *html, bf_diag_t *diag)
{
    json_t *m = NULL;
    int mrc = bf_matrixfile_read(dir, &m, diag); /* the one reader of matrix.json */
    if (mrc != BF_OK)
        return mrc;
    json_t *rows = json_object_get(m, "rows");
    size_t n = json_array_size(rows);
    rowinfo *ri = bf_calloc(n + 1, sizeof *ri);
    bf_finding_point_t *pts = bf_calloc(n + 1, sizeof *pts);
    size_t np = 0;
    unsigned missing_warned = 0;
    for (size_t i = 0; i < n; i++) {
        json_t *row = json_array_get(rows, i);
        ri[np].row = row;
        bf_diag_t rd = {0};
        /* every field of the row through the codec (bf_results.h), not by keys of its own */
        if (bf_row_rec_decode(row, &ri[np].rec, &rd) != BF_OK ||
            !json_is_string(json_object_get(row, "cell"))) {
            bf_warn("%s/matrix.json: row %zu: %s; left out of the report", dir, i,
                    rd.msg[0] ? rd.msg : "no cell id");
            bf_row_rec_cleanup(&ri[np].rec);
            continue;
        }
        if (ri[np].rec.nmissing && missing_warned++ == 0)
            bf_warn("%s/matrix.json: row %zu lacks %s (written by an older bulkfleet?): shown "
                    "as -",
                    dir, i, ri[np].rec.missing);
        ri[np].cell = ri[np].rec.cell.id;
        bf_finding_point_from_row(&ri[np].rec.row, &ri[np].pt);
        pts[np] = ri[np].pt;
        bf__find_runs(dir, &ri[np]);
        np++;
    }
    n = np;
    /* the campaign's findings.alpha and findings.noise_band (defaults for an older file) */
    json_t *fopts = json_object_get(m, "findings_options");
    bf_findings_opts_t fo = {json_number_value(json_object_get(fopts, "alpha")),
                             json_is_number(json_object_get(fopts, "noise_band"))
                                 ? json_number_value(json_object_get(fopts, "noise_band"))
                                 : -1.0};
    bf_findings_t *fd = bf_findings_compute_opts(pts, n, &fo);
    json_t *data = json_object();
    json_t *charts = json_object();
    json_object_set(data, "matrix", m);
    json_t *fjson = bf_findings_json(fd);
    const char *runs_note = runs_finding(m, fjson);
    json_object_set_new(data, "findings", fjson);
    json_object_set_new(data, "charts", charts);

    const char *name = json_string_value(json_object_get(m, "scenario"));
    json_t *cl = json_object_get(m, "cluster");
    bf_buf_appendz(html, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                         "<meta name=\"generator\" content=\"bulkfleet " BF_VERSION "\"><title>");
    bf__html_esc(html, name ? name : "bulkfleet results");
    bf_buf_appendf(html, " — bulkfleet report</title><style>%s</style></head><body>\n", css);
    /* the tail hatch pattern, defined once for every chart */
    bf_buf_appendz(html, "<svg width=\"0\" height=\"0\" style=\"position:absolute\" aria-hidden=\"true\">"
                         "<defs><pattern id=\"hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
                         "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#fff\" "
                         "fill-opacity=\"0\"/><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#bbb\" "
                         "stroke-width=\"2\"/></pattern></defs></svg>\n<h1>");
    bf__html_esc(html, name ? name : "bulkfleet results");
    bf_buf_appendz(html, "</h1>\n<p class=\"meta\">");
    if (json_is_object(cl)) {
        bf__html_esc(html, json_string_value(json_object_get(cl, "distribution")));
        bf_buf_appendz(html, " ");
        bf__html_esc(html, json_string_value(json_object_get(cl, "version")));
        long long nn = (long long)json_integer_value(json_object_get(cl, "nodes"));
        bf_buf_appendf(html, ", %lld node%s · ", nn, nn == 1 ? "" : "s");
    }
    bf_buf_appendf(html, "%zu cells · results directory <code>", n);
    bf__html_esc(html, dir);
    bf_buf_appendz(html, "</code></p>\n");
    /* a find-max directory leads with its sustainable answer, above the findings over its
     * search steps */
    section_findmax(html, dir, charts);
    bf_buf_appendz(html, "<h2 id=\"findings\">Findings</h2>\n<ul class=\"findings\">\n");
    json_t *items = json_object_get(json_object_get(data, "findings"), "items");
    for (size_t i = 0; i < bf_findings_count(fd); i++) {
        /* a tested comparison leads with its verdict (the item of the same sentence) */
        const char *line = bf_findings_line(fd, i), *verdict = NULL;
        size_t ii;
        json_t *it;
        json_array_foreach(items, ii, it)
        {
            const char *text = json_string_value(json_object_get(it, "text"));
            if (text && strcmp(text, line) == 0) {
                verdict = json_string_value(json_object_get(it, "verdict"));
                break;
            }
        }
        bf_buf_appendz(html, "<li>");
        if (verdict)
            bf_buf_appendf(html, "<span class=\"verdict v-%s\">%s</span> ", verdict, verdict);
        bf__html_esc(html, line);
        bf_buf_appendz(html, "</li>\n");
    }
    if (runs_note) { /* which run measured which cells, as matrix.md and the findings say */
        bf_buf_appendz(html, "<li>");
        bf__html_esc(html, runs_note);
        bf_buf_appendz(html, "</li>\n");
    }
    size_t fi;
    json_t *fl;
    json_array_foreach(json_object_get(m, "search_findings"), fi, fl) {
        bf_buf_appendz(html, "<li>");
        bf__html_esc(html, json_string_value(fl));
        bf_buf_appendz(html, "</li>\n");
    }
    bf_buf_appendz(html, "</ul>\n");
    playout lay;
    bf__layout_build(&lay, ri, n, pts, bf_findings_main_axis(fd));
    bf__section_throughput(html, ri, n, &lay, charts);
    bf__section_per_second(html, ri, n, charts);
    bf__section_service_vs_axis(html, ri, &lay, charts);
    bf__section_latency(html, ri, n, charts);
    bf__layout_free(&lay);
    section_search(html, ri, n, charts);
    section_telemetry(html, ri, n, charts);
    section_table(html, ri, n);
    /* '<' only occurs inside JSON strings: as \u003c no "</script>" or "<!--" can end or
     * confuse the block, and the JSON still parses to the same values */
    char *js = json_dumps(data, JSON_COMPACT);
    bf_buf_appendz(html, "<script type=\"application/json\" id=\"bf-data\">");
    for (const char *p = js ? js : "{}"; *p; p++) {
        if (*p == '<')
            bf_buf_appendz(html, "\\u003c");
        else
            bf_buf_append(html, p, 1);
    }
    bf_buf_appendz(html, "</script>\n</body></html>\n");
    free(js);
    json_decref(data);
    bf_findings_destroy(&fd);
    for (size_t i = 0; i < n; i++) {
        for (size_t r = 0; r < ri[i].nruns; r++) {
            json_decref(ri[i].runs[r].docs_ok);
            json_decref(ri[i].runs[r].query_ops);
            json_decref(ri[i].runs[r].tele);
        }
        free(ri[i].runs);
        bf_row_rec_cleanup(&ri[i].rec);
    }
    free(ri);
    free(pts);
    json_decref(m);
    return BF_OK;
}

int bf_report_write(const char *dir, bf_diag_t *diag)
{
    bf_buf_t html;
    bf_buf_init(&html, 0);
    int rc = bf_report_render(dir, &html, diag);
    if (rc != BF_OK) {
        bf_buf_cleanup(&html);
        return rc;
    }
    char *path = bf_asprintf("%s/report.html", dir);
    rc = bf_atomic_write(path, html.data ? html.data : "", html.len, diag);
    free(path);
    bf_buf_cleanup(&html);
    return rc;
}

int bf_report_cmd(int argc, char **argv)
{
    if (argc != 2 || argv[1][0] == '-') {
        fprintf(stderr, "usage: bulkfleet-coordinator report DIR\n"
                        "  writes DIR/report.html from a results directory (matrix.json, cells/, "
                        "telemetry/)\n");
        int help = argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0);
        return help ? BF_EXIT_OK : BF_EXIT_INPUT;
    }
    bf_diag_t d = {0};
    int rc = bf_report_write(argv[1], &d);
    if (rc != BF_OK) {
        bf_error("%s", d.msg);
        return rc == BF_E_IO ? BF_EXIT_ENV : BF_EXIT_INPUT;
    }
    printf("%s/report.html\n", argv[1]);
    return BF_EXIT_OK;
}
