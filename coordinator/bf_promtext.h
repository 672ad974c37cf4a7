/* SPDX-License-Identifier: MIT */
/* bf_promtext.h — a live snapshot of the campaign as Prometheus text exposition format 0.0.4.
 *
 * Pure formatting, no I/O: bf_metrics.c fills a bf_live_t from the campaign loop and serves
 * what bf_promtext_format writes (GET /metrics). Format: "Exposition formats", text-based
 * format 0.0.4 (prometheus.io/docs/instrumenting/exposition_formats): one # HELP and # TYPE
 * line per family, then `name{label="value",...} value`; label values escape \ " and newline
 * as \\ \" \n; label names match [a-zA-Z_][a-zA-Z0-9_]*, so an axis like
 * settings.refresh_interval becomes the label axis_settings_refresh_interval. Counters end in
 * _total and only grow over a campaign; gauges are the latest complete second (docs/s).
 * Latency and service time are summaries as the Prometheus client libraries keep them:
 * quantiles over a sliding window (the last window_s seconds), _sum and _count cumulative
 * (over the running cell: each cell is its own label set). Thread-safe (no shared state).
 */
#ifndef BF_PROMTEXT_H
#define BF_PROMTEXT_H

#include "bf_buf.h"
#include "bf_scenario.h"

#include <stdint.h>

/* document outcomes counted as errors, by class (bf_counters_t fields) */
enum bf_live_doc_class {
    BF_LD_REJECTED = 0, /* 429 es_rejected_execution_exception on the item: write pool full */
    BF_LD_CONFLICT,     /* 409 version conflict */
    BF_LD_MAPPING,      /* 400 mapper_parsing_exception and other 400s */
    BF_LD_CLIENT,       /* other 4xx */
    BF_LD_SERVER,       /* 5xx */
    BF_LD_UNKNOWN,      /* outcome unknown (the request timed out or broke) */
    BF_LD_COUNT
};
/* whole bulk requests that failed, by class */
enum bf_live_req_class {
    BF_LR_HTTP_429 = 0, /* the whole bulk request answered 429 */
    BF_LR_HTTP_OTHER,   /* other non-2xx whole-request statuses */
    BF_LR_CONNECT,
    BF_LR_TIMEOUT,
    BF_LR_RESET,
    BF_LR_BAD_RESPONSE,
    BF_LR_COUNT
};
#define BF_LIVE_NQ 4 /* quantiles 0.5, 0.9, 0.99, 1 (max) */

/* A snapshot; every string borrowed for the call. */
typedef struct bf_live {
    const char *campaign;    /* results directory name */
    const char *scenario;    /* scenario name */
    uint32_t cells_total;    /* cells this run executes */
    uint32_t cells_done;     /* finished (ok or not) */
    const bf_cell_t *cell;   /* the running cell, NULL between cells */
    const char *cell_name;   /* its results name (repetition suffix), NULL = cell->id */
    const char *phase;       /* "prepare", "warmup", "measure", "finish"; NULL = "idle" */
    int32_t second;          /* the latest second every live agent has reported, -1 none */
    uint32_t load_s;         /* the cell's warmup + duration, seconds (progress) */
    uint64_t docs_per_s;     /* acknowledged documents in `second` */
    uint64_t errors_per_s;   /* failed + unknown documents in `second` */
    uint64_t rejected_per_s; /* 429-rejected documents in `second` */
    uint64_t docs_sent_total, docs_ok_total, bytes_wire_total; /* campaign counters */
    uint64_t doc_errors_total[BF_LD_COUNT];
    uint64_t req_errors_total[BF_LR_COUNT];
    uint32_t window_s;                 /* the quantiles cover the last window_s seconds */
    uint64_t window_count;             /* bulk requests in that window */
    double latency_s[BF_LIVE_NQ];      /* from the intended send time; NAN = no requests */
    double service_time_s[BF_LIVE_NQ]; /* from the actual send */
    uint64_t cell_requests; /* bulk requests of the running cell so far (summary _count) */
    double cell_latency_sum_s, cell_service_time_sum_s; /* their sums (summary _sum) */
    uint32_t agents_connected;                          /* agents the fleet holds now, not lost */
    uint32_t agents_lost_cell;  /* members of the running cell that are lost */
    uint64_t agents_lost_total; /* liveness losses over the campaign */
} bf_live_t;

/* bf_promtext_format — append the snapshot to out as text exposition format 0.0.4 (see the
 * file comment), ending in a newline. Returns 0 or BF_E_NOMEM/BF_E_RANGE from bf_buf (out's
 * cap). Pure; thread-safe. */
int bf_promtext_format(const bf_live_t *m, bf_buf_t *out);

/* bf_promtext_label_name — copy an axis name into dst (cap bytes, NUL-terminated) as a valid
 * label name: "axis_" + the name with every character outside [a-zA-Z0-9_] replaced by '_'.
 * Truncates to fit. Pure. */
void bf_promtext_label_name(const char *axis, char *dst, size_t cap);

/* bf_promtext_escape — append a label value to out with \ " and newline escaped. Returns 0 or
 * a bf_buf error. Pure. */
int bf_promtext_escape(bf_buf_t *out, const char *value);

#endif
