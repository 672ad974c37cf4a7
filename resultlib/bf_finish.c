/* SPDX-License-Identifier: MIT */
/* bf_finish.c — the end of a cell, shared by the campaign and standalone mode. */
#include "bf_finish.h"

#include "bf_cluster.h"
#include "bf_error.h"
#include "bf_log.h"
#include "bf_mem.h"
#include "bf_steady.h"

#include <math.h>

#include <stdio.h>
#include <string.h>

/* The after-load step: the primaries' segments, _forcemerge to end->force_merge segments and
 * _refresh (timed), the segments again; a step that fails leaves its fields unknown and says
 * why (the load's measurement stands). */
static void after_load(bf_es_t *es, const bf_cell_t *cell, const bf_cell_end_t *end, bf_row_t *row)
{
    bf_diag_t d = {0};
    int64_t before = -1, after = -1;
    double secs = NAN;
    if (bf_cluster_segments(es, cell, &before, &d) == BF_OK &&
        bf_cluster_force_merge(es, cell, end->force_merge, end->force_merge_timeout_ms, &secs,
                               &d) == BF_OK &&
        bf_cluster_segments(es, cell, &after, &d) == BF_OK) {
        row->segments_before = before;
        row->segments_after = after;
        row->merge_s = secs;
        bf_info("cell %s: force merge to %u segments: %.2f s, %lld -> %lld segments (primaries)",
                cell->id, end->force_merge, secs, (long long)before, (long long)after);
        return;
    }
    bf_warn("cell %s: after-load force merge not measured: %s", cell->id, d.msg);
    char why[700];
    snprintf(why, sizeof why, "force merge not measured: %s", d.msg);
    bf_row_add_reason(row, why);
}

int bf_finish_cell(bf_results_t *res, bf_es_t *es, const bf_cell_t *cell, const char *name,
                   bf_cellagg_t *agg, const char *const *agent_ids, uint32_t nagents,
                   const bf_cell_end_t *end, bf_row_t *row)
{
    if (end->failure && end->failure[0])
        bf_cellagg_fail(agg); /* an empty window is then the failure's, not a stall */
    bf_cellagg_row(agg, row);
    if (end->cluster) {
        row->write_queue_max = end->cluster->write_queue_max;
        row->write_rejected = end->cluster->write_rejected;
        row->hot_spot_ratio = end->cluster->hot_spot_ratio;
        row->cluster_docs_per_s = end->cluster->cluster_docs_per_s;
        row->transport_rx_bytes = end->cluster->transport_rx_bytes;
        row->transport_tx_bytes = end->cluster->transport_tx_bytes;
    }
    row->yellow = end->yellow;
    row->aborted = end->aborted;
    row->round = end->round;
    row->position = end->position;
    row->started_at_ms = end->started_at_ms > 0 ? end->started_at_ms : -1;
    /* the cell's host set (the scenario's target, or its matrix target) was not verified */
    row->tls_insecure = cell->target != NULL && cell->target->tls_insecure;
    if (end->failure && end->failure[0]) {
        row->failed = 1;
        /* the failure first, every other clause of the row kept after it */
        char rest[sizeof row->reason];
        bf_strlcpy(rest, row->reason, sizeof rest);
        bf_strlcpy(row->reason, end->failure, sizeof row->reason);
        if (rest[0])
            bf_row_add_reason(row, rest);
    }
    if (row->nqueries && cell->search_clients > 0 && end->search_total_before >= 0) {
        /* before the verification's own _count, which runs a query phase too */
        int64_t after = bf_cluster_search_total(es, cell);
        bf_row_search_verify(row, cell, after >= 0 ? after - end->search_total_before : -1);
    }
    bf_row_verify(row, es, cell, end->baseline);
    if (!row->failed && row->verified && end->baseline == 0) {
        /* disk cost: primary store bytes per acknowledged payload byte */
        int64_t store = -1;
        bf_diag_t sd = {0};
        if (bf_cluster_store_bytes(es, cell, &store, &sd) != BF_OK)
            bf_warn("cell %s: store size not measured: %s", cell->id, sd.msg);
        bf_row_store_cost(row, store, end->baseline);
    }
    if (end->force_merge > 0 && !row->failed && !end->aborted && row->verified)
        after_load(es, cell, end, row);
    if (end->mismatch && end->mismatch[0]) {
        row->index_mismatch = 1;
        bf_row_add_reason(row, end->mismatch);
        if (end->index_shards > 0) {
            row->index_shards = end->index_shards;
            row->index_replicas = end->index_replicas;
        }
    }
    if (res == NULL)
        return BF_OK;
    return bf_finish_write(res, name, end->aborted, agg, agent_ids, nagents, row);
}

int bf_finish_write(bf_results_t *res, const char *name, int aborted, const bf_cellagg_t *agg,
                    const char *const *agent_ids, uint32_t nagents, bf_row_t *row)
{
    /* an aborted cell is kept under a name --resume does not take as finished: it runs again */
    char file_name[300];
    snprintf(file_name, sizeof file_name, "%s%s", name, aborted ? ".aborted" : "");
    int rc = bf_results_cell_done(res, file_name, agg, agent_ids, nagents, row);
    if (rc != BF_OK) {
        /* its per-second file is not there: nothing on disk backs the row */
        char why[700];
        const char *err = bf_results_error(res);
        snprintf(why, sizeof why, "not verified: cells/%s.ndjson could not be written (%s)",
                 file_name, err ? err : "I/O error");
        row->verified = 0;
        bf_row_add_reason(row, why);
    }
    return rc;
}

const bf_row_t *bf_finish_fold(bf_results_t *res, const bf_scenario_t *sc, const bf_row_t *reps,
                               uint32_t nreps, bf_row_t *rows, size_t *nrows, int *io_rc)
{
    if (io_rc)
        *io_rc = BF_OK;
    if (nreps == 0)
        return NULL;
    bf_row_t *out = &rows[*nrows];
    bf_rows_median(reps, nreps, out);
    if (nreps == 1)
        out->repeat = 1;
    (*nrows)++;
    if (res) {
        int rc = bf_results_write_matrix(res, sc, rows, *nrows);
        if (io_rc)
            *io_rc = rc;
    }
    return out;
}

size_t bf_finish_mark_unsteady(bf_row_t *rows, size_t n)
{
    double *spread = bf_calloc(n + 1, sizeof *spread);
    uint8_t *flag = bf_calloc(n + 1, 1);
    for (size_t i = 0; i < n; i++)
        spread[i] = rows[i].failed || rows[i].stalled
                        ? NAN
                        : bf_steady_spread(rows[i].docs_per_s_p10, rows[i].docs_per_s_median,
                                           rows[i].docs_per_s_p90);
    double ref;
    size_t flagged = bf_steady_spread_outliers(spread, n, flag, &ref);
    for (size_t i = 0; i < n; i++) {
        if (!flag[i])
            continue;
        char why[300];
        snprintf(why, sizeof why,
                 "unsteady: its seconds spread %.0f%% of their median (p10-p90 %.0f-%.0f "
                 "docs/s), %.1fx the %.0f%% of the campaign's median cell",
                 spread[i] * 100.0, rows[i].docs_per_s_p10, rows[i].docs_per_s_p90,
                 ref > 0 ? spread[i] / ref : 0.0, ref * 100.0);
        rows[i].unsteady = 1;
        bf_row_add_reason(&rows[i], why);
    }
    free(flag);
    free(spread);
    return flagged;
}

int bf_row_is_clean(const bf_row_t *row)
{
    return !row->failed && !row->degraded && row->verified && !bf_row_has_errors(row) &&
           !row->stalled && !row->target_missed;
}

bf_resume_t bf_resume_decide(const bf_row_t *row, int keep_failed, int asked)
{
    if (asked)
        return BF_RESUME_RERUN_ASKED;
    if (keep_failed)
        return BF_RESUME_KEEP;
    if (row->failed)
        return BF_RESUME_RERUN_FAILED;
    if (!row->verified && row->docs_counted < 0)
        return BF_RESUME_RERUN_UNCOUNTED;
    return BF_RESUME_KEEP;
}
