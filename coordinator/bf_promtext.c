/* SPDX-License-Identifier: MIT */
/* bf_promtext.c — a live campaign snapshot as Prometheus text exposition format 0.0.4. */
#include "bf_promtext.h"

#include "bf_error.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const doc_class[BF_LD_COUNT] = {"rejected", "conflict", "mapping",
                                                   "client",   "server",   "unknown"};
static const char *const req_class[BF_LR_COUNT] = {"http_429", "http_other", "connect",
                                                   "timeout",  "reset",      "bad_response"};
static const char *const quantile[BF_LIVE_NQ] = {"0.5", "0.9", "0.99", "1"};

void bf_promtext_label_name(const char *axis, char *dst, size_t cap)
{
    if (cap == 0)
        return;
    size_t n = (size_t)snprintf(dst, cap, "axis_%s", axis);
    if (n >= cap)
        n = cap - 1;
    for (size_t i = 5; i < n; i++) {
        char ch = dst[i];
        int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                 ch == '_';
        if (!ok)
            dst[i] = '_';
    }
}

int bf_promtext_escape(bf_buf_t *out, const char *value)
{
    for (const char *p = value; *p; p++) {
        int rc;
        if (*p == '\\')
            rc = bf_buf_appendz(out, "\\\\");
        else if (*p == '"')
            rc = bf_buf_appendz(out, "\\\"");
        else if (*p == '\n')
            rc = bf_buf_appendz(out, "\\n");
        else
            rc = bf_buf_append(out, p, 1);
        if (rc != BF_OK)
            return rc;
    }
    return BF_OK;
}

static int family(bf_buf_t *out, const char *name, const char *type, const char *help)
{
    return bf_buf_appendf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* {campaign="..."[,cell="..."][,axis_x="..."...][,extra="..."]} */
static int labels(bf_buf_t *out, const bf_live_t *m, int with_cell, const char *extra_name,
                  const char *extra_value)
{
    int rc = bf_buf_appendz(out, "{campaign=\"");
    rc = rc ? rc : bf_promtext_escape(out, m->campaign ? m->campaign : "");
    rc = rc ? rc : bf_buf_appendz(out, "\"");
    if (with_cell && m->cell) {
        rc = rc ? rc : bf_buf_appendz(out, ",cell=\"");
        rc = rc ? rc : bf_promtext_escape(out, m->cell_name ? m->cell_name : m->cell->id);
        rc = rc ? rc : bf_buf_appendz(out, "\"");
        for (size_t i = 0; i < m->cell->naxes && rc == BF_OK; i++) {
            char ln[128];
            bf_promtext_label_name(m->cell->axes[i].axis, ln, sizeof ln);
            rc = bf_buf_appendf(out, ",%s=\"", ln);
            rc = rc ? rc : bf_promtext_escape(out, m->cell->axes[i].value);
            rc = rc ? rc : bf_buf_appendz(out, "\"");
        }
    }
    if (extra_name) {
        rc = rc ? rc : bf_buf_appendf(out, ",%s=\"", extra_name);
        rc = rc ? rc : bf_promtext_escape(out, extra_value);
        rc = rc ? rc : bf_buf_appendz(out, "\"");
    }
    return rc ? rc : bf_buf_appendz(out, "}");
}

/* a sample value: integers exactly, NAN as Prometheus spells it */
static int value_u(bf_buf_t *out, uint64_t v)
{
    return bf_buf_appendf(out, " %" PRIu64 "\n", v);
}

static int value_d(bf_buf_t *out, double v)
{
    if (isnan(v))
        return bf_buf_appendz(out, " NaN\n");
    return bf_buf_appendf(out, " %.9g\n", v);
}

static int gauge_u(bf_buf_t *out, const bf_live_t *m, const char *name, const char *help,
                   int with_cell, uint64_t v)
{
    int rc = family(out, name, "gauge", help);
    rc = rc ? rc : bf_buf_appendz(out, name);
    rc = rc ? rc : labels(out, m, with_cell, NULL, NULL);
    return rc ? rc : value_u(out, v);
}

static int counter_u(bf_buf_t *out, const bf_live_t *m, const char *name, const char *help,
                     uint64_t v)
{
    int rc = family(out, name, "counter", help);
    rc = rc ? rc : bf_buf_appendz(out, name);
    rc = rc ? rc : labels(out, m, 0, NULL, NULL);
    return rc ? rc : value_u(out, v);
}

static int quantiles(bf_buf_t *out, const bf_live_t *m, const char *name, const char *help,
                     const double *q, double sum)
{
    int rc = family(out, name, "summary", help);
    for (int i = 0; i < BF_LIVE_NQ && rc == BF_OK; i++) {
        rc = bf_buf_appendz(out, name);
        rc = rc ? rc : labels(out, m, 1, "quantile", quantile[i]);
        rc = rc ? rc : value_d(out, q[i]);
    }
    rc = rc ? rc : bf_buf_appendf(out, "%s_sum", name);
    rc = rc ? rc : labels(out, m, 1, NULL, NULL);
    rc = rc ? rc : value_d(out, sum);
    rc = rc ? rc : bf_buf_appendf(out, "%s_count", name);
    rc = rc ? rc : labels(out, m, 1, NULL, NULL);
    return rc ? rc : value_u(out, m->cell_requests);
}

int bf_promtext_format(const bf_live_t *m, bf_buf_t *out)
{
    int rc = family(out, "bulkfleet_campaign_info", "gauge",
                    "The running campaign (value 1); scenario as a label.");
    rc = rc ? rc : bf_buf_appendz(out, "bulkfleet_campaign_info");
    rc = rc ? rc : labels(out, m, 0, "scenario", m->scenario ? m->scenario : "");
    rc = rc ? rc : value_u(out, 1);
    rc = rc ? rc
            : gauge_u(out, m, "bulkfleet_campaign_cells", "Cells this run executes.", 0,
                      m->cells_total);
    rc = rc ? rc
            : gauge_u(out, m, "bulkfleet_campaign_cells_done",
                      "Cells of this run finished (ok, failed or degraded).", 0, m->cells_done);
    double progress = 0;
    if (m->cells_total) {
        double part = 0;
        if (m->cell && m->load_s && m->second >= 0)
            part = fmin(1.0, (double)(m->second + 1) / (double)m->load_s);
        progress = fmin(1.0, ((double)m->cells_done + part) / (double)m->cells_total);
    }
    rc = rc ? rc
            : family(out, "bulkfleet_campaign_progress_ratio", "gauge",
                     "Share of the run done: finished cells plus the running cell's "
                     "share of its load seconds, over the cells.");
    rc = rc ? rc : bf_buf_appendz(out, "bulkfleet_campaign_progress_ratio");
    rc = rc ? rc : labels(out, m, 0, NULL, NULL);
    rc = rc ? rc : value_d(out, progress);
    if (m->cell) {
        rc = rc ? rc
                : family(out, "bulkfleet_cell_info", "gauge",
                         "The running cell (value 1): its axes as labels, its phase.");
        rc = rc ? rc : bf_buf_appendz(out, "bulkfleet_cell_info");
        rc = rc ? rc : labels(out, m, 1, "phase", m->phase ? m->phase : "idle");
        rc = rc ? rc : value_u(out, 1);
        rc = rc ? rc
                : family(out, "bulkfleet_cell_second", "gauge",
                         "Latest second of the cell every live agent has reported "
                         "(-1: none yet).");
        rc = rc ? rc : bf_buf_appendz(out, "bulkfleet_cell_second");
        rc = rc ? rc : labels(out, m, 1, NULL, NULL);
        rc = rc ? rc : bf_buf_appendf(out, " %d\n", (int)m->second);
        rc =
            rc ? rc
               : gauge_u(out, m, "bulkfleet_docs_per_second",
                         "Acknowledged documents in the latest complete second.", 1, m->docs_per_s);
        rc = rc ? rc
                : gauge_u(out, m, "bulkfleet_doc_errors_per_second",
                          "Failed or unknown documents in the latest complete second.", 1,
                          m->errors_per_s);
        rc = rc ? rc
                : gauge_u(out, m, "bulkfleet_docs_rejected_per_second",
                          "Documents rejected with 429 in the latest complete second.", 1,
                          m->rejected_per_s);
        rc = rc ? rc
                : gauge_u(out, m, "bulkfleet_window_seconds",
                          "Seconds the latency quantiles cover.", 1, m->window_s);
        rc = rc ? rc
                : gauge_u(out, m, "bulkfleet_window_requests",
                          "Bulk requests in the latency window.", 1, m->window_count);
        rc = rc ? rc
                : quantiles(out, m, "bulkfleet_latency_seconds",
                            "Bulk request latency from the intended send time (coordinated "
                            "omission corrected): quantiles over the window (1 is the max), "
                            "sum and count over the cell.",
                            m->latency_s, m->cell_latency_sum_s);
        rc = rc ? rc
                : quantiles(out, m, "bulkfleet_service_time_seconds",
                            "Bulk request service time (send to response): quantiles over "
                            "the window (1 is the max), sum and count over the cell.",
                            m->service_time_s, m->cell_service_time_sum_s);
    }
    rc = rc ? rc
            : counter_u(out, m, "bulkfleet_docs_sent_total",
                        "Documents sent in bulk requests over the campaign.", m->docs_sent_total);
    rc = rc ? rc
            : counter_u(out, m, "bulkfleet_docs_ok_total",
                        "Documents acknowledged over the campaign.", m->docs_ok_total);
    rc = rc ? rc
            : counter_u(out, m, "bulkfleet_wire_bytes_total",
                        "Request bytes on the wire over the campaign.", m->bytes_wire_total);
    rc = rc ? rc
            : family(out, "bulkfleet_doc_errors_total", "counter",
                     "Documents not indexed over the campaign, by class (rejected = 429 "
                     "from the write thread pool).");
    for (int i = 0; i < BF_LD_COUNT && rc == BF_OK; i++) {
        rc = bf_buf_appendz(out, "bulkfleet_doc_errors_total");
        rc = rc ? rc : labels(out, m, 0, "class", doc_class[i]);
        rc = rc ? rc : value_u(out, m->doc_errors_total[i]);
    }
    rc = rc ? rc
            : family(out, "bulkfleet_request_errors_total", "counter",
                     "Bulk requests that failed as a whole over the campaign, by class.");
    for (int i = 0; i < BF_LR_COUNT && rc == BF_OK; i++) {
        rc = bf_buf_appendz(out, "bulkfleet_request_errors_total");
        rc = rc ? rc : labels(out, m, 0, "class", req_class[i]);
        rc = rc ? rc : value_u(out, m->req_errors_total[i]);
    }
    rc = rc ? rc
            : gauge_u(out, m, "bulkfleet_agents_connected",
                      "Agents connected to the coordinator and not lost.", 0, m->agents_connected);
    rc = rc ? rc
            : gauge_u(out, m, "bulkfleet_agents_lost", "Agents of the running cell that are lost.",
                      0, m->agents_lost_cell);
    rc = rc ? rc
            : counter_u(out, m, "bulkfleet_agents_lost_total",
                        "Agents lost (liveness) over the campaign.", m->agents_lost_total);
    return rc;
}
