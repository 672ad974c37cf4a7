/* SPDX-License-Identifier: MIT */
/* bf_findmax_run.c — `bulkfleet-coordinator find-max`: runs the search controller's steps
 * (bf_findmax.h) as ordinary cells on the fleet, one search per combination of the other axes.
 *
 * Plumbing only: every decision is bf_fm_next / bf_fm_record. A step is its base cell (the
 * first scenario cell of the combination) with the step's batch size, concurrency and target
 * rate, named fm<combination>-<step>-<phase>-b<B>-c<C>[-r<rate>], run like any cell (index
 * recreated, verified by _count, cells/<step>.ndjson) and kept in the matrix, so the search is
 * auditable and `--resume DIR` replays finished steps from disk (the controller is
 * deterministic in what it is fed). DIR/findmax.json holds the path and the result of every
 * combination, rewritten after each step.
 */
#include "bf_campaign_int.h"

#include "bf_clock.h"
#include "bf_cluster.h"
#include "bf_finish.h"
#include "bf_findmax.h"
#include "bf_log.h"
#include "bf_mem.h"
#include "bf_report.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STEP_OVERHEAD_MS 5000 /* index recreate, Prepare, _refresh + _count: for max_time */
#define MAX_COMBOS 4096

/* the axes a search varies itself; every other axis is fixed per combination */
static int searched_axis(const char *axis)
{
    return strcmp(axis, "batch_size") == 0 || strcmp(axis, "concurrency") == 0 ||
           strcmp(axis, "target_rate") == 0;
}

/* "shards=1, replicas=0" of a cell's other axes, or "all" without any */
static void combo_label(const bf_cell_t *cell, char *buf, size_t size)
{
    size_t o = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < cell->naxes && o < size; i++) {
        if (searched_axis(cell->axes[i].axis))
            continue;
        o += (size_t)snprintf(buf + o, size - o, "%s%s=%s", o ? ", " : "", cell->axes[i].axis,
                              cell->axes[i].value);
    }
    if (buf[0] == '\0')
        snprintf(buf, size, "all");
}

size_t bf__findmax_combinations(const bf_scenario_t *sc)
{
    size_t ncells = bf_scenario_cell_count(sc), n = 0;
    char(*labels)[512] = bf_calloc(ncells + 1, sizeof *labels);
    for (size_t i = 0; i < ncells && n < MAX_COMBOS; i++) {
        combo_label(bf_scenario_cell(sc, i), labels[n], sizeof labels[n]);
        size_t k = 0;
        while (k < n && strcmp(labels[k], labels[n]) != 0)
            k++;
        n += k == n;
    }
    free(labels);
    return n;
}

static double ms_or(double v, double fallback)
{
    return isfinite(v) ? v : fallback;
}

/* what the controller is fed from a step's row */
static void obs_of_row(const bf_row_t *row, bf_fm_obs_t *o)
{
    memset(o, 0, sizeof *o);
    o->ran = !row->failed && !row->degraded && !row->aborted && row->verified;
    o->docs_per_s = row->docs_per_s;
    /* p99 needs 100 requests; with fewer (one large request in flight for a short window) the
     * max stands in, which is never below the p99 */
    o->p50_ms = ms_or(row->latency.p50_ms, -1);
    o->p99_ms = ms_or(row->latency.p99_ms, ms_or(row->latency.max_ms, -1));
    o->docs_rejected = row->docs_rejected;
    o->docs_failed = row->docs_failed + row->docs_unknown;
    o->req_too_large =
        strstr(row->reason, "max_content_length") != NULL || strstr(row->reason, "413") != NULL;
    if (row->attempted_docs_per_s > 0)
        o->bytes_per_doc = row->mb_per_s_payload * 1e6 / row->attempted_docs_per_s;
    o->p99_growth = isfinite(row->latency_p99_growth) ? row->latency_p99_growth : 0;
    o->service_p50_ms = ms_or(row->service.p50_ms, -1);
}

static json_t *num_or_null(double v)
{
    return isfinite(v) && v >= 0 ? json_real(v) : json_null();
}

typedef struct combo {
    const bf_cell_t *base;
    char label[512];
    bf_fm_t fm;
    json_t *steps; /* the path, one object per step */
    int started, finished;
    uint64_t elapsed_ms;
    int64_t queue_max, rejected_pool; /* of the sustained step */
} combo;

static json_t *combo_json(const combo *k)
{
    const bf_fm_t *fm = &k->fm;
    json_t *o = json_object();
    json_object_set_new(o, "combination", json_string(k->label));
    json_object_set_new(o, "base_cell", json_string(k->base->id));
    /* the replicas of every step's index (find-max recreates it per step): what `size` scales
     * the measured rate by */
    json_object_set_new(o, "replicas", json_integer(k->base->replicas));
    json_object_set_new(o, "finished", json_boolean(k->finished));
    json_object_set_new(o, "found", json_boolean(fm->found));
    json_object_set_new(o, "end_reason",
                        fm->end_reason ? json_string(fm->end_reason) : json_null());
    if (fm->found) {
        json_object_set_new(o, "max_sustainable_docs_per_s", json_real(fm->sustained_rate));
        json_object_set_new(o, "measured_docs_per_s", json_real(fm->sustained_dps));
        json_object_set_new(o, "batch_size", json_integer(fm->batch));
        json_object_set_new(o, "concurrency", json_integer(fm->sustained_concurrency));
        json_object_set_new(o, "latency_p50_ms", num_or_null(fm->sustained_p50_ms));
        json_object_set_new(o, "latency_p99_ms", num_or_null(fm->sustained_p99_ms));
        /* the answer held in two runs (the step and its repeat), or once when the search was
         * stopped before the repeat */
        json_object_set_new(o, "confirmed", json_boolean(!fm->unconfirmed));
        json_object_set_new(o, "client_limited", json_boolean(fm->client_capped));
        json_object_set_new(o, "write_queue_max",
                            k->queue_max >= 0 ? json_integer(k->queue_max) : json_null());
        json_object_set_new(o, "write_rejected",
                            k->rejected_pool >= 0 ? json_integer(k->rejected_pool) : json_null());
    }
    if (fm->have_batch) {
        json_t *knee = json_object();
        json_object_set_new(knee, "batch_size", json_integer(fm->batch));
        json_object_set_new(knee, "concurrency", json_integer(fm->lo));
        json_object_set_new(knee, "docs_per_s", json_real(fm->lo_dps));
        json_object_set_new(knee, "latency_p99_ms", num_or_null(fm->lo_p99_ms));
        json_object_set_new(o, "knee", knee);
    }
    json_object_set_new(o, "elapsed_s", json_real((double)k->elapsed_ms / 1000.0));
    json_object_set_new(o, "steps", json_incref(k->steps));
    return o;
}

static void write_findmax_json(bf__campaign_t *c, const combo *ks, size_t n)
{
    json_t *root = json_object();
    json_object_set_new(root, "scenario", json_string(bf_scenario_name(c->sc)));
    json_object_set_new(
        root, "data_nodes",
        json_integer(c->cluster.data_nodes ? c->cluster.data_nodes : c->cluster.nodes));
    json_object_set_new(root, "nodes", json_integer(c->cluster.nodes));
    json_t *arr = json_array();
    for (size_t i = 0; i < n; i++)
        if (ks[i].started)
            json_array_append_new(arr, combo_json(&ks[i]));
    json_object_set_new(root, "combinations", arr);
    char *js = json_dumps(root, JSON_INDENT(2));
    json_decref(root);
    if (bf_results_write_file(c->res, "findmax.json", js, strlen(js)) != BF_OK)
        bf_warn("find-max: could not write %s/findmax.json", bf_results_dir(c->res));
    free(js);
}

static void print_path(FILE *f, const combo *k)
{
    fprintf(f, "\n### find-max path: %s\n\n", k->label);
    fprintf(f, "| step | phase | batch | concurrency | target docs/s | docs/s | p99 ms | rejected "
               "| verdict |\n|---:|---|---:|---:|---:|---:|---:|---:|---|\n");
    for (size_t i = 0; i < json_array_size(k->steps); i++) {
        json_t *s = json_array_get(k->steps, i);
        json_t *p99 = json_object_get(s, "latency_p99_ms");
        double rate = json_number_value(json_object_get(s, "target_rate"));
        char rate_s[32] = "-", p99_s[32] = "-";
        if (rate > 0)
            snprintf(rate_s, sizeof rate_s, "%.0f", rate);
        if (json_is_number(p99))
            snprintf(p99_s, sizeof p99_s, "%.1f", json_number_value(p99));
        fprintf(f, "| %lld | %s | %lld | %lld | %s | %.0f | %s | %lld | %s |\n",
                (long long)json_integer_value(json_object_get(s, "step")),
                json_string_value(json_object_get(s, "phase")),
                (long long)json_integer_value(json_object_get(s, "batch_size")),
                (long long)json_integer_value(json_object_get(s, "concurrency")), rate_s,
                json_number_value(json_object_get(s, "docs_per_s")), p99_s,
                (long long)json_integer_value(json_object_get(s, "docs_rejected")),
                json_string_value(json_object_get(s, "verdict")));
    }
}

/* the result line of a combination (no newline), into buf */
static void result_line(const combo *k, size_t ncombos, char *buf, size_t size)
{
    const bf_fm_t *fm = &k->fm;
    char who[600] = "";
    if (ncombos > 1)
        snprintf(who, sizeof who, " [%s]", k->label);
    if (fm->found) {
        char p99[32] = "-", head[200] = "";
        if (fm->sustained_p99_ms >= 0)
            snprintf(p99, sizeof p99, "%.1f", fm->sustained_p99_ms);
        /* the sustain steps ran with find_max's headroom over the concurrency the search
         * found: say so, or "concurrency 2" reads as what the search found */
        if (fm->sustain_conc == fm->sustained_concurrency)
            snprintf(head, sizeof head,
                     "; concurrency %u: the client could not send the rate with fewer "
                     "connections (latency far above the service time), so find-max added them "
                     "(the search found %u)",
                     fm->sustained_concurrency, fm->lo);
        else if (fm->sustained_concurrency != fm->lo)
            snprintf(head, sizeof head,
                     "; concurrency %u is the sustain headroom: the search "
                     "found %u, and sustain steps run with %u x it so an open-loop client can "
                     "catch up after a slow second",
                     fm->sustained_concurrency, fm->lo, fm->cfg.sustain_headroom);
        snprintf(buf, size,
                 "max sustainable%s: %.0f docs/s at batch %u, concurrency %u (p99 %s "
                 "ms)%s",
                 who, fm->sustained_rate, fm->batch, fm->sustained_concurrency, p99, head);
        if (fm->client_capped) {
            size_t l = strlen(buf);
            snprintf(buf + l, size > l ? size - l : 0,
                     "; a lower bound: higher rates missed by the client's limit at "
                     "find_max.concurrency_max connections (latency far above the service "
                     "time): add agents to measure the cluster's");
        }
        if (fm->unconfirmed) {
            size_t l = strlen(buf);
            snprintf(buf + l, size > l ? size - l : 0,
                     "; held once, not confirmed by a repeat (%s)",
                     fm->end_reason ? fm->end_reason : "stopped");
        }
    } else {
        snprintf(buf, size, "max sustainable%s: none found (%s)", who,
                 fm->end_reason ? fm->end_reason : "the search did not finish");
    }
}

static void print_result(FILE *f, const combo *k, size_t ncombos)
{
    char line[1400];
    result_line(k, ncombos, line, sizeof line);
    fprintf(f, "%s\n", line);
}

/* one run's noise on a shared host: compare's band without repetitions (bf_compare.h) */
#define NOT_REPEATED_NOISE 0.05

/* Each step rests on one run: the closed-loop steps whose docs/s changed by less than the
 * noise of one run against the step before them, "step 3 (+2.1 %), step 6 (-1.0 %)", into
 * buf (find-max does not repeat them, and says so). Returns how many. */
static size_t within_noise(const combo *k, char *buf, size_t size)
{
    size_t n = 0, o = 0;
    double prev = -1;
    buf[0] = '\0';
    for (size_t i = 0; i < json_array_size(k->steps); i++) {
        json_t *st = json_array_get(k->steps, i);
        const char *ph = json_string_value(json_object_get(st, "phase"));
        const char *vd = json_string_value(json_object_get(st, "verdict"));
        if (ph == NULL || strcmp(ph, "sustain") == 0)
            continue;
        if (vd && (strcmp(vd, "unclear") == 0 || strcmp(vd, "repeat") == 0)) {
            prev = -1; /* repeated until decided: not one run's word */
            continue;
        }
        double d = json_number_value(json_object_get(st, "docs_per_s"));
        if (prev > 0 && d > 0 && fabs(d / prev - 1.0) < NOT_REPEATED_NOISE) {
            n++;
            if (o < size)
                o += (size_t)snprintf(buf + o, size - o, "%sstep %lld (%+.1f %%)", o ? ", " : "",
                                      (long long)json_integer_value(json_object_get(st, "step")),
                                      (d / prev - 1.0) * 100.0);
        }
        prev = d;
    }
    return n;
}

static void print_noise(FILE *f, const combo *k)
{
    char which[1024];
    if (within_noise(k, which, sizeof which) > 0)
        fprintf(f,
                "\nNot repeated: each step ran once (but a step near its gain threshold, "
                "repeated until decided, and the sustained rate, confirmed by a repeat), and %s "
                "changed docs/s by less than %.0f %% "
                "against the step before (within one run's noise on a shared host): their gain "
                "or knee is not certain; run find-max again, or the cells with run.repeat, to "
                "confirm.\n",
                which, NOT_REPEATED_NOISE * 100.0);
    else
        fprintf(f,
                "\nEach step ran once (not repeated; but a step near its gain threshold, repeated "
                "until decided, and the sustained rate, confirmed by a repeat); every "
                "step changed docs/s by %.0f %% or "
                "more against the step before.\n",
                NOT_REPEATED_NOISE * 100.0);
}

/* matrix.md's lead: the answer first, then what the rows below are */
static void set_lead(bf__campaign_t *c, const combo *ks, size_t nk)
{
    char *md = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&md, &len);
    if (f == NULL)
        return;
    fputs("# find-max: the sustainable answer\n\n", f);
    for (size_t k = 0; k < nk; k++) {
        if (!ks[k].started)
            continue;
        char line[1400];
        result_line(&ks[k], nk, line, sizeof line);
        fprintf(f, "- %s\n", line);
    }
    for (size_t k = 0; k < nk; k++)
        if (ks[k].started)
            print_noise(f, &ks[k]);
    fputs("\nThe rows below are the search's steps: the closed-loop search steps (one request "
          "in flight, then more) and the open-loop sustain steps (a target rate). The findings "
          "leave the sustain steps out: the two kinds are never compared with each other, and "
          "the findings' best of the search steps is a closed-loop peak, not a sustainable "
          "rate.\n\n",
          f);
    fclose(f);
    bf_results_set_lead(c->res, md);
    free(md);
}

/* a search step as a cell of its own; owned by the caller (free id then the cell) */
static bf_cell_t *step_cell(const bf_cell_t *base, size_t combo_no, const bf_fm_step_t *st)
{
    bf_cell_t *cell = bf_malloc(sizeof *cell);
    *cell = *base;
    char id[128];
    if (st->target_rate > 0)
        snprintf(id, sizeof id, "fm%zu-%02u-%s-b%u-c%u-r%.0f", combo_no, st->n,
                 bf_fm_phase_name(st->phase), st->batch_size, st->concurrency, st->target_rate);
    else
        snprintf(id, sizeof id, "fm%zu-%02u-%s-b%u-c%u", combo_no, st->n,
                 bf_fm_phase_name(st->phase), st->batch_size, st->concurrency);
    cell->id = bf_strdup(id);
    cell->batch_size = st->batch_size;
    cell->concurrency = st->concurrency;
    cell->target_rate = st->target_rate;
    return cell;
}

static void cfg_of_spec(const bf_findmax_spec_t *s, bf_fm_cfg_t *cfg)
{
    bf_fm_cfg_defaults(cfg);
    cfg->batch_start = s->batch_start;
    cfg->batch_max = s->batch_max;
    cfg->body_max_bytes = (uint64_t)s->max_body_mb << 20;
    cfg->gain_min = s->gain_pct / 100.0;
    cfg->concurrency_start = s->concurrency_start;
    cfg->concurrency_max = s->concurrency_max;
    cfg->latency_max_ms = (double)s->latency_p99_max_ms;
    cfg->step_down = s->step_down_pct / 100.0;
    cfg->sustain_tries = s->sustain_tries;
}

/* The combinations: the first cell of every distinct value set of the other axes (at most
 * MAX_COMBOS), each with an empty step list; *nk of them. Caller frees (json_decref steps). */
static combo *combos_of(const bf_scenario_t *sc, size_t *nk_out)
{
    size_t ncells = bf_scenario_cell_count(sc);
    combo *ks = bf_calloc(ncells + 1, sizeof *ks);
    size_t nk = 0;
    for (size_t i = 0; i < ncells && nk < MAX_COMBOS; i++) {
        const bf_cell_t *cell = bf_scenario_cell(sc, i);
        char label[512];
        combo_label(cell, label, sizeof label);
        int seen = 0;
        for (size_t k = 0; k < nk && !seen; k++)
            seen = strcmp(ks[k].label, label) == 0;
        if (seen)
            continue;
        ks[nk].base = cell;
        bf_strlcpy(ks[nk].label, label, sizeof ks[nk].label);
        ks[nk].queue_max = ks[nk].rejected_pool = -1;
        ks[nk].steps = json_array();
        nk++;
    }
    *nk_out = nk;
    return ks;
}

/* One step of a search as findmax.json records it: what ran, what it measured, the verdict. */
static json_t *step_json(const bf_fm_step_t *stp, const bf_cell_t *cell, const bf_row_t *folded,
                         const bf_fm_obs_t *o, enum bf_fm_verdict v, int resumed)
{
    const bf_fm_step_t st = *stp;
    const bf_fm_obs_t obs = *o;
    json_t *s = json_object();
    json_object_set_new(s, "step", json_integer(st.n));
    json_object_set_new(s, "phase", json_string(bf_fm_phase_name(st.phase)));
    json_object_set_new(s, "cell", json_string(cell->id));
    json_object_set_new(s, "batch_size", json_integer(st.batch_size));
    json_object_set_new(s, "concurrency", json_integer(st.concurrency));
    json_object_set_new(s, "target_rate", json_real(st.target_rate));
    json_object_set_new(s, "docs_per_s", json_real(folded->docs_per_s));
    json_object_set_new(s, "latency_p50_ms", num_or_null(obs.p50_ms));
    json_object_set_new(s, "latency_p99_ms", num_or_null(obs.p99_ms));
    json_object_set_new(s, "service_p50_ms", num_or_null(obs.service_p50_ms));
    json_object_set_new(s, "latency_p99_growth", num_or_null(folded->latency_p99_growth));
    json_object_set_new(s, "docs_rejected", json_integer((json_int_t)obs.docs_rejected));
    json_object_set_new(s, "docs_failed", json_integer((json_int_t)obs.docs_failed));
    json_object_set_new(s, "write_queue_max",
                        folded->write_queue_max >= 0 ? json_integer(folded->write_queue_max)
                                                     : json_null());
    json_object_set_new(s, "write_rejected",
                        folded->write_rejected >= 0 ? json_integer(folded->write_rejected)
                                                    : json_null());
    json_object_set_new(s, "verdict", json_string(bf_fm_verdict_name(v)));
    json_object_set_new(s, "resumed", json_boolean(resumed));
    return s;
}

/* The step's line: batch, concurrency, target, docs/s, p99, rejected, failed -> verdict. */
static void log_step(const combo *K, const bf_fm_step_t *stp, const bf_row_t *folded,
                     const bf_fm_obs_t *o, enum bf_fm_verdict v)
{
    const bf_fm_step_t st = *stp;
    const bf_fm_obs_t obs = *o;
    char p99[32] = "-", target[48] = "";
    if (obs.p99_ms >= 0)
        snprintf(p99, sizeof p99, "%.1f", obs.p99_ms);
    if (st.target_rate > 0)
        snprintf(target, sizeof target, ", target %.0f docs/s", st.target_rate);
    bf_info("find-max %s step %u (%s): batch %u, concurrency %u%s: %.0f docs/s, p99 %s "
            "ms, %llu rejected, %llu failed -> %s",
            K->label, st.n, bf_fm_phase_name(st.phase), st.batch_size, st.concurrency, target,
            folded->docs_per_s, p99, (unsigned long long)obs.docs_rejected,
            (unsigned long long)obs.docs_failed, bf_fm_verdict_name(v));
    bf_fm_step_t next; /* what runs next, as the search will run it */
    if (v == BF_FM_V_CLIENT && K->fm.phase != BF_FM_DONE && bf_fm_next(&K->fm, &next))
        bf_info("find-max %s: latency p50 %.0f ms vs service p50 %.0f ms: requests waited for a "
                "connection, the client could not send the target (not the cluster's limit); "
                "the same target again with concurrency %u",
                K->label, obs.p50_ms, obs.service_p50_ms, next.concurrency);
    else if (v == BF_FM_V_CLIENT)
        bf_warn("find-max %s: latency p50 %.0f ms vs service p50 %.0f ms at concurrency %u "
                "(find_max.concurrency_max): the client could not send the target; stepping "
                "it down, and the answer is a lower bound: add agents (or raise "
                "find_max.concurrency_max) to measure the cluster's",
                K->label, obs.p50_ms, obs.service_p50_ms, st.concurrency);
    else if (v == BF_FM_V_HELD)
        bf_info("find-max %s: %.0f docs/s held; repeating the step to confirm it before stating "
                "it",
                K->label, st.target_rate);
    else if (v == BF_FM_V_CONFIRMED)
        bf_info("find-max %s: %.0f docs/s held again in the repeat (steps %u and %u): the answer",
                K->label, st.target_rate, K->fm.held_step, st.n);
}

/* Every step recreated the combination's index and its rows hold what it measured: the last
 * step's index is only disk space on the target (73 MB in one measured search), so it goes,
 * through the cluster module (only what bulkfleet created), or the log says why not. */
static void delete_last_index(bf__campaign_t *c, bf_cell_t **cells, size_t ncellv, size_t ran_steps,
                              int code)
{
    if (ran_steps > 0 && code != BF_EXIT_ENV && c->es != NULL && !c->cluster_gone) {
        const bf_cell_t *last = cells[ncellv - 1];
        bf_diag_t dd = {0};
        if (bf_cluster_delete_cell(c->es, last, &dd) == BF_OK)
            bf_info("find-max: deleted %s, the index of the last step (%s): each step recreated "
                    "it, and its rows keep what it measured",
                    last->indices ? last->index_names[0] : "?", last->id);
        else
            bf_warn("find-max: the last step's index %s is kept (%s): delete it when done",
                    last->indices ? last->index_names[0] : "?", dd.msg);
    } else if (ran_steps > 0) {
        bf_warn("find-max: the last step's index %s is kept: the cluster %s; delete it when done",
                cells[ncellv - 1]->indices ? cells[ncellv - 1]->index_names[0] : "?",
                c->cluster_gone ? "could not be reached" : "was not written to");
    }
}

/* The answer: matrix.md rewritten with it first, report.html, each combination's path and
 * noise, the results directory, each result line. Returns 1 when every combination started
 * found its max. */
static int findmax_summary(bf__campaign_t *c, combo *ks, size_t nk, bf_row_t *rows, size_t nrows)
{
    set_lead(c, ks, nk);
    if (nrows > 0 && bf_results_write_matrix(c->res, c->sc, rows, nrows) != BF_OK)
        bf_warn("find-max: could not rewrite %s/matrix.md with the answer first",
                bf_results_dir(c->res));
    if (nrows > 0) {
        bf_diag_t rd = {0};
        if (bf_report_write(bf_results_dir(c->res), &rd) != BF_OK)
            bf_warn("report: %s", rd.msg);
    }
    for (size_t k = 0; k < nk; k++)
        if (ks[k].started) {
            print_path(stdout, &ks[k]);
            print_noise(stdout, &ks[k]);
        }
    printf("\nresults: %s\n\n", bf_results_dir(c->res));
    int all_found = 1;
    for (size_t k = 0; k < nk; k++) {
        if (!ks[k].started)
            continue;
        print_result(stdout, &ks[k], nk);
        all_found &= ks[k].fm.found;
    }
    fflush(stdout);
    return all_found;
}

int bf__findmax_run(bf__campaign_t *c, bf_row_t **rows, size_t *nrows)
{
    const bf_findmax_spec_t *spec = bf_scenario_findmax(c->sc);
    const bf_run_spec_t *run = bf_scenario_run(c->sc);
    if (!bf_scenario_index(c->sc)->recreate) {
        bf_error("%s: index.recreate is false; every search step needs a fresh index (a step's "
                 "documents would collide with the previous step's): set index.recreate: true",
                 bf_scenario_origin(c->sc));
        return BF_EXIT_INPUT;
    }
    uint64_t search_ms = run->duration_ms;
    uint64_t sustain_ms = c->opts->sustain_ms ? *c->opts->sustain_ms : spec->sustain_ms;
    uint64_t warmup_ms = run->warmup_ms;

    size_t nk = 0;
    combo *ks = combos_of(c->sc, &nk);
    bf_fm_cfg_t cfg;
    cfg_of_spec(spec, &cfg);
    uint32_t most_search = 0, most_sustain = 0;
    bf_fm_max_steps(&cfg, &most_search, &most_sustain);
    bf_info("find-max: %zu combination%s of the other axes; at most %u search steps of %llu s + "
            "%llu s and %u sustain steps of %llu s + %llu s, bounded by find_max.max_time %llu s "
            "per combination",
            nk, nk == 1 ? "" : "s", most_search, (unsigned long long)(warmup_ms / 1000),
            (unsigned long long)(search_ms / 1000), most_sustain,
            (unsigned long long)(warmup_ms / 1000), (unsigned long long)(sustain_ms / 1000),
            (unsigned long long)(spec->max_time_ms / 1000));

    bf_cell_t **cells = NULL; /* every step cell: rows borrow them until the end */
    size_t ncellv = 0, capcell = 0, caprows = *nrows, ran_steps = 0;
    int code = BF_EXIT_OK;
    uint64_t campaign_start = bf_clock_mono_us();
    for (size_t k = 0; k < nk && code == BF_EXIT_OK; k++) {
        combo *K = &ks[k];
        bf_fm_init(&K->fm, &cfg);
        K->started = 1;
        uint64_t t0 = bf_clock_mono_us();
        bf_fm_step_t st;
        while (code == BF_EXIT_OK && bf_fm_next(&K->fm, &st)) {
            uint64_t elapsed_ms = (bf_clock_mono_us() - t0) / 1000;
            uint64_t step_ms =
                warmup_ms + (st.phase == BF_FM_SUSTAIN ? sustain_ms : search_ms) + STEP_OVERHEAD_MS;
            if (elapsed_ms + step_ms > spec->max_time_ms) {
                if (st.phase != BF_FM_SUSTAIN) {
                    bf_info("find-max %s: find_max.max_time leaves no room for more search "
                            "steps; sustaining the best point so far",
                            K->label);
                    bf_fm_skip_to_sustain(&K->fm);
                    continue;
                }
                bf_fm_stop(&K->fm, "find_max.max_time reached");
                break;
            }
            if (ncellv == capcell) {
                capcell = capcell ? capcell * 2 : 64;
                cells = bf_realloc(cells, capcell * sizeof *cells);
            }
            bf_cell_t *cell = step_cell(K->base, k + 1, &st);
            cells[ncellv++] = cell;
            uint64_t d = st.phase == BF_FM_SUSTAIN ? sustain_ms : search_ms;
            bf_scenario_override_run(c->sc, NULL, NULL, &d);
            c->base_cell_id = K->base->id;
            c->track_p99 = st.phase == BF_FM_SUSTAIN;
            c->fm_step = &st;
            c->fm_deadline_us = t0 + spec->max_time_ms * 1000u;
            c->fm_max_time_ms = spec->max_time_ms;
            c->fm_combos_after = nk - k - 1;
            char name[256];
            bf_results_cell_name(cell, 1, 1, name, sizeof name);
            bf_row_t row;
            memset(&row, 0, sizeof row);
            int resumed = 0, rc = BF_OK;
            if (c->opts->resume_dir && bf_results_cell_finished(c->res, name) &&
                bf_results_load_row(c->res, name, cell, &row) == BF_OK) {
                bf_info("find-max step %s already finished in %s; kept", name, c->opts->resume_dir);
                resumed = 1;
            } else {
                long partial = c->opts->resume_dir ? bf_results_cell_partial(c->res, name) : -1;
                if (partial >= 0)
                    bf_info("find-max step %s started in %s and did not finish "
                            "(cells/%s.samples.partial, %ld sample lines): running it again "
                            "from the start",
                            name, c->opts->resume_dir, name, partial);
                ran_steps++;
                rc = bf__cell_attempt_run(c, cell, 1, name, st.n - 1, st.n, campaign_start, &row);
                if (rc > 0) {
                    code = rc;
                    break;
                }
            }
            c->base_cell_id = NULL;
            c->track_p99 = 0;
            c->fm_step = NULL;
            if (*nrows + 1 > caprows) {
                caprows = caprows ? caprows * 2 : 64;
                *rows = bf_realloc(*rows, caprows * sizeof **rows);
            }
            const bf_row_t *folded = bf_finish_fold(NULL, c->sc, &row, 1, *rows, nrows, NULL);
            if (folded) /* off the fleet's thread: a slow results disk delays no heartbeat */
                bf__cell_setup_write_matrix(c, *rows, *nrows);
            if (rc == BF_E_INTR) {
                code = bf_exit_of_signal(bf_campaign_signal);
                break;
            }
            if (bf_results_error(c->res)) {
                /* what cannot be kept is not measured further (as in `run`) */
                bf_error("find-max stopping: the results directory %s cannot be written (the "
                         "error above); continue with find-max --resume %s once it can be",
                         bf_results_dir(c->res), bf_results_dir(c->res));
                code = BF_EXIT_ENV;
                break;
            }
            bf_fm_obs_t obs;
            obs_of_row(folded, &obs);
            enum bf_fm_verdict v = bf_fm_record(&K->fm, &st, &obs);
            if (v == BF_FM_V_CONFIRMED) {
                K->queue_max = folded->write_queue_max;
                K->rejected_pool = folded->write_rejected;
            }
            json_array_append_new(K->steps, step_json(&st, cell, folded, &obs, v, resumed));
            log_step(K, &st, folded, &obs, v);
            K->elapsed_ms = (bf_clock_mono_us() - t0) / 1000;
            write_findmax_json(c, ks, nk);
        }
        c->fm_step = NULL; /* also after a break out of the loop: st is gone */
        K->finished = K->fm.phase == BF_FM_DONE;
        K->elapsed_ms = (bf_clock_mono_us() - t0) / 1000;
        write_findmax_json(c, ks, nk);
    }
    bf_scenario_override_run(c->sc, NULL, NULL, &search_ms);

    delete_last_index(c, cells, ncellv, ran_steps, code);

    int all_found = findmax_summary(c, ks, nk, *rows, *nrows);
    if (code == BF_EXIT_OK && !all_found)
        code = BF_EXIT_FAILED;

    /* the rows borrow the step cells: the caller frees rows after this returns, so the
     * cells must outlive them only as long as this function; nothing reads rows after it */
    for (size_t k = 0; k < nk; k++)
        json_decref(ks[k].steps);
    free(ks);
    for (size_t i = 0; i < ncellv; i++) {
        free((char *)cells[i]->id);
        free(cells[i]);
    }
    free(cells);
    return code;
}
