/* SPDX-License-Identifier: MIT */
/* bf_rowverify.c — a row checked against the cluster: the count verification (_count against
 * the acknowledged documents, the bounds of updates and deletes, the wait for a count that
 * settles), the reasons a count did not confirm, the store cost and the index-mismatch text.
 * The row itself is computed in bf_aggregate.c. */
#include "bf_aggregate.h"

#include "bf_clock.h"
#include "bf_cluster.h"
#include "bf_error.h"
#include "bf_log.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Updates and deletes do not add one document per acknowledged item: the count can only be
 * checked against bounds. update (doc): unchanged; update (upsert): grew by 0..ok (an upsert
 * of an existing id adds nothing); delete: shrank by 0..ok (a delete of a missing id is
 * acknowledged as 404 not_found and removes nothing). */
static void verify_change(bf_row_t *row, const bf_cell_t *cell, int64_t n, int64_t baseline)
{
    char why[400];
    int64_t ok = (int64_t)row->docs_ok_all;
    int64_t delta = n - baseline;
    const char *what;
    if (cell->action == BF_ACTION_DELETE) {
        row->docs_counted = -delta; /* documents removed */
        row->verified = delta <= 0 && -delta <= ok;
        what = "a delete cell removes 0 up to its acknowledged deletes";
    } else {
        row->docs_counted = delta;
        row->verified = delta >= 0 && delta <= ok;
        what = "an update cell adds 0 (doc) up to its acknowledged upserts";
    }
    if (row->verified)
        return;
    snprintf(why, sizeof why,
             "not verified: the cluster counts %lld documents (%lld before the "
             "cell) and %llu were acknowledged, but %s",
             (long long)n, (long long)baseline, (unsigned long long)row->docs_ok_all, what);
    bf_warn("cell %s: %s", cell->id, why);
    bf_row_add_reason(row, why);
}

int bf_row_unknown_unverified(bf_row_t *row, const char *cell_id)
{
    if (!row->verified || row->docs_unknown_all == 0)
        return 0;
    /* a stopped target's 1200 timed-out documents, _count 0 = 0
     * acknowledged at the verification, 800 of them indexed when it went on */
    char why[700];
    snprintf(
        why, sizeof why,
        "not verified: the count (%lld) equals the acknowledged documents, but %llu more "
        "are of unknown outcome (%llu timed out, %llu reset, %llu bad answers, %llu by HTTP "
        "status, %llu abandoned in flight) and a cluster keeps indexing a request whose "
        "client gave up: the count may still grow by up to %llu, so it cannot verify "
        "this row",
        (long long)row->docs_counted, (unsigned long long)row->docs_unknown_all,
        (unsigned long long)row->docs_unknown_timeout, (unsigned long long)row->docs_unknown_reset,
        (unsigned long long)row->docs_unknown_bad_response,
        (unsigned long long)row->docs_unknown_http, (unsigned long long)row->docs_unknown_abandoned,
        (unsigned long long)row->docs_unknown_all);
    row->verified = 0;
    bf_warn("cell %s: %s", cell_id ? cell_id : "?", why);
    bf_row_add_reason(row, why);
    return 1;
}

/* OpenSearch Serverless has no _refresh: its documents become searchable seconds after they
 * were acknowledged, so _count is asked again every second until it holds them all, for at
 * most BF_SERVERLESS_COUNT_WAIT_MS, with a line every 5 s; the row says how long it took. */
static void count_wait(bf_row_t *row, bf_es_t *es, const bf_cell_t *cell, int64_t baseline,
                       int64_t *n)
{
    uint64_t t0 = bf_clock_mono_us(), next_note = t0 + 5000000u;
    int64_t want = baseline + (int64_t)row->docs_ok_all;
    while (*n < want && bf_clock_mono_us() - t0 < BF_SERVERLESS_COUNT_WAIT_MS * 1000u) {
        bf_es_pause(es, 1000);
        bf_diag_t d = {0};
        int64_t m = 0;
        if (bf_cluster_count(es, cell, &m, &d) == BF_OK)
            *n = m;
        if (bf_clock_mono_us() >= next_note) {
            next_note += 5000000u;
            bf_info("cell %s: _count %lld of %lld documents after %.0f s (OpenSearch Serverless "
                    "has no _refresh: waiting up to %u s for the rest to become searchable)",
                    cell->id, (long long)(*n - baseline), (long long)row->docs_ok_all,
                    (double)(bf_clock_mono_us() - t0) / 1e6, BF_SERVERLESS_COUNT_WAIT_MS / 1000u);
        }
    }
    char note[300];
    snprintf(note, sizeof note,
             "counted %.1f s after the load without _refresh (OpenSearch Serverless)%s; "
             "shards and replicas are the collection's own, not set or measured",
             (double)(bf_clock_mono_us() - t0) / 1e6,
             *n < want ? ": the count had not caught up when the wait ended" : "");
    bf_info("cell %s: %s", cell->id, note);
    bf_row_add_reason(row, note);
}

void bf_row_verify(bf_row_t *row, bf_es_t *es, const bf_cell_t *cell, int64_t baseline)
{
    row->docs_counted = -1;
    row->verified = 0;
    if (row->failed)
        return;
    char why[900];
    int64_t n = 0;
    bf_diag_t d = {0};
    if (bf_cluster_count(es, cell, &n, &d) != BF_OK) {
        snprintf(why, sizeof why, "not verified: the documents could not be counted (%s)", d.msg);
        bf_warn("cell %s: %s", cell->id, why);
        bf_row_add_reason(row, why);
        return;
    }
    if (baseline < 0) {
        bf_row_add_reason(row,
                          "not verified: the indices' document count before the cell is unknown");
        return;
    }
    if (bf_target_serverless(bf_es_target(es)) && cell->action != BF_ACTION_UPDATE &&
        cell->action != BF_ACTION_DELETE)
        count_wait(row, es, cell, baseline, &n);
    if (cell->action == BF_ACTION_UPDATE || cell->action == BF_ACTION_DELETE) {
        verify_change(row, cell, n, baseline);
        bf_row_unknown_unverified(row, cell->id);
        return;
    }
    bf_row_verify_counted(row, cell, n, baseline);
    if (bf_es_target(es) && bf_es_target(es)->es_serverless)
        bf_row_add_reason(row, "shards and replicas are the Elastic Serverless project's own, "
                               "not set or measured");
}

void bf_row_verify_counted(bf_row_t *row, const bf_cell_t *cell, int64_t n, int64_t baseline)
{
    char why[900];
    row->docs_counted = n - baseline;
    row->verified = row->docs_counted >= 0 && (uint64_t)row->docs_counted == row->docs_ok_all;
    /* documents of unknown outcome first: their reason says more than "nothing acknowledged" */
    if (bf_row_unknown_unverified(row, cell->id))
        return;
    if (row->verified && row->docs_ok_all == 0 && cell->concurrency > 0) {
        /* 0 counted = 0 acknowledged proves nothing of a cell that was to index (a degraded
         * row whose agent was lost while it prepared said "verified: yes" so) */
        row->verified = 0;
        bf_row_add_reason(row, "not verified: no document was acknowledged, so the cluster's "
                               "count of 0 confirms nothing this cell measured");
        return;
    }
    if (!row->verified) {
        int l;
        if (baseline > 0)
            l = snprintf(why, sizeof why,
                         "not verified: the cluster counts %lld documents added "
                         "(%lld now, %lld before the cell) but the agents report %llu "
                         "acknowledged",
                         (long long)row->docs_counted, (long long)n, (long long)baseline,
                         (unsigned long long)row->docs_ok_all);
        else
            l = snprintf(why, sizeof why,
                         "not verified: the cluster counts %lld documents but "
                         "the agents report %llu acknowledged",
                         (long long)n, (unsigned long long)row->docs_ok_all);
        if (l > 0 && (size_t)l < sizeof why)
            bf_row_count_why(row, why + l, sizeof why - (size_t)l);
        bf_warn("cell %s: %s", cell->id, why);
        bf_row_add_reason(row, why);
    }
}

/* "s" unless n is 1: "1 more document", "3000 more documents" */
#define PLURAL(n) ((n) == 1 ? "" : "s")

void bf_row_count_why(const bf_row_t *row, char *buf, size_t len)
{
    int64_t added = row->docs_counted;
    uint64_t ok = row->docs_ok_all, sent = row->docs_sent_all, unknown = row->docs_unknown_all;
    buf[0] = '\0';
    if (added < 0 || len == 0)
        return;
    if (row->aborted && (uint64_t)added > ok && (uint64_t)added <= sent)
        /* stopped by a signal: what was in flight is in no answer, by design */
        snprintf(buf, len,
                 "; the cell was interrupted: the %llu documents beyond the acknowledged ones "
                 "were in requests in flight when the load stopped, so their outcome is unknown "
                 "by design (nothing acknowledged is missing); the cell runs again on "
                 "run --resume",
                 (unsigned long long)((uint64_t)added - ok));
    else if (row->degraded && (uint64_t)added > ok && (uint64_t)added - ok > unknown)
        /* kill -9 of an agent mid-cell: its requests in flight and the seconds after its last
         * sample are in no sample, and the cluster indexed them (not another writer) */
        snprintf(buf, len,
                 "; %llu more document%s than the samples report: an agent was lost "
                 "(degraded), and what it sent after its last sample is in no sample (the "
                 "cluster may have indexed it), beside %llu of unknown outcome; the count "
                 "cannot verify this cell",
                 (unsigned long long)((uint64_t)added - ok), PLURAL((uint64_t)added - ok),
                 (unsigned long long)unknown);
    else if ((uint64_t)added > sent)
        snprintf(buf, len,
                 "; another writer: the indices grew by %llu more document%s than this "
                 "run sent (%llu): something else writes into them (another agent or run, an "
                 "application), so the count cannot verify this run; give it an index of its own",
                 (unsigned long long)((uint64_t)added - sent), PLURAL((uint64_t)added - sent),
                 (unsigned long long)sent);
    else if ((uint64_t)added > ok && (uint64_t)added - ok <= unknown)
        snprintf(buf, len,
                 "; the %llu extra document%s among the %llu whose outcome is "
                 "unknown (a timeout, a reset, or a request still in flight when the load "
                 "stopped): the cluster indexed %s without this run seeing the answer",
                 (unsigned long long)((uint64_t)added - ok),
                 (uint64_t)added - ok == 1 ? " is" : "s are", (unsigned long long)unknown,
                 (uint64_t)added - ok == 1 ? "it" : "them");
    else if ((uint64_t)added > ok)
        snprintf(buf, len,
                 "; %llu more than acknowledged, and more than the %llu of unknown "
                 "outcome: another writer may be adding documents to the same indices",
                 (unsigned long long)((uint64_t)added - ok), (unsigned long long)unknown);
    else
        snprintf(buf, len,
                 "; %llu acknowledged document%s not in the count: an id sent "
                 "twice (document.id repeats, so a later one replaced or conflicted with an "
                 "earlier one), documents deleted meanwhile, or the cluster lost acknowledged "
                 "writes (a primary failed or was cancelled under load; docs/scenario.md, "
                 "routing)",
                 (unsigned long long)(ok - (uint64_t)added),
                 ok - (uint64_t)added == 1 ? " is" : "s are");
}

void bf_row_store_cost(bf_row_t *row, int64_t store_bytes, int64_t baseline)
{
    row->store_bytes = -1;
    row->store_bytes_per_payload_byte = NAN;
    if (store_bytes < 0 || row->failed || !row->verified || baseline != 0 ||
        row->bytes_payload_ok_all == 0)
        return;
    row->store_bytes = store_bytes;
    row->store_bytes_per_payload_byte = (double)store_bytes / (double)row->bytes_payload_ok_all;
}

void bf_row_index_mismatch_text(const bf_row_t *row, char *buf, size_t size)
{
    buf[0] = '\0';
    if (!row->index_mismatch)
        return;
    if (row->index_shards > 0 && row->index_replicas >= 0)
        snprintf(buf, size,
                 "the index had %lld shard%s and %lld replica%s, not the cell's %u and %u",
                 (long long)row->index_shards, row->index_shards == 1 ? "" : "s",
                 (long long)row->index_replicas, row->index_replicas == 1 ? "" : "s",
                 row->cell->shards, row->cell->replicas);
    else
        snprintf(buf, size, "the index had other shards or replicas than the cell's");
}
