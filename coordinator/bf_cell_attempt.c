/* SPDX-License-Identifier: MIT */
/* bf_cell_attempt.c — the cell runner: one repetition of one cell on the agents connected now.
 *
 * The campaign loop (bf_campaign.c) and find-max's search (bf_findmax_run.c) both run their
 * cells through bf__cell_attempt_run, so neither calls into the other: it picks the cell's agents,
 * waits for enough of them, gives the first cell of a run its longer warmup, and prepares again
 * when an agent is lost before Start; the run itself is bf_cell_protocol.c.
 */
#include "bf_campaign_int.h"

#include "bf_clock.h"
#include "bf_log.h"
#include "bf_mem.h"
#include "bf_units.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int bf__cell_attempt_wait_agents(bf__campaign_t *c, uint32_t want, uint64_t wait_ms)
{
    uint64_t t0 = bf_clock_mono_us();
    uint64_t last_note = t0;
    while (bf_fleet_ready_count(c->fleet) < want) {
        if (bf_campaign_signal)
            return BF_E_INTR;
        bf_fleet_poll(c->fleet, 100);
        uint64_t now = bf_clock_mono_us();
        if (now - t0 > wait_ms * 1000u)
            return BF_E_TIMEOUT;
        if (now - last_note > 10000000u) {
            bf_info("waiting for agents: %zu of %u connected", bf_fleet_ready_count(c->fleet),
                    want);
            last_note = now;
        }
    }
    return BF_OK;
}

int bf__cell_attempt_agents_is_axis(const bf_cell_t *cell)
{
    for (size_t i = 0; i < cell->naxes; i++)
        if (strcmp(cell->axes[i].axis, "agents") == 0)
            return 1;
    return 0;
}

static int run_on_agents(bf__campaign_t *c, const bf_cell_t *cell, uint32_t rep, const char *name,
                         size_t pos, size_t n, uint64_t campaign_start_us, bf_row_t *row)
{
    uint32_t retries = 0;
    /* the cell's agents: its agents axis value (else run.agents; 0 = all). A cell with fewer
     * requests in flight than that (a find-max batch step has one) runs on as many agents as
     * it has requests, since every agent needs at least one; a search-only cell likewise on
     * as many as it has search clients */
    uint32_t cap = cell->agents, need = c->min_agents;
    uint32_t per = cell->concurrency > 0 ? cell->concurrency : cell->search_clients;
    if (per > 0 && (cap == 0 || per < cap)) {
        if (!c->base_cell_id && per < (cap ? cap : (uint32_t)bf_fleet_ready_count(c->fleet)))
            bf_info("cell %s: %s %u: runs on %u agent%s", name,
                    cell->concurrency > 0 ? "concurrency" : "search_clients", per, per,
                    per == 1 ? "" : "s");
        cap = per;
    }
    if (bf__cell_attempt_agents_is_axis(cell) && need < cap)
        need = cap; /* an agents axis value is what the row is about: wait for that many */
    if (cap && need > cap)
        need = cap;
    for (;;) {
        /* the cell's agents: every live agent (a late joiner waits for the next cell) */
        bf_fleet_agent_t **agents = bf_calloc(bf_fleet_count(c->fleet) + 1, sizeof *agents);
        uint32_t na = 0;
        for (size_t i = 0; i < bf_fleet_count(c->fleet); i++) {
            bf_fleet_agent_t *a = bf_fleet_agent(c->fleet, i);
            if (a->session != BF_AS_LOST && a->session != BF_AS_CONNECTED && a->has_data_route &&
                (cap == 0 || na < cap))
                agents[na++] = a;
        }
        if (na < need) {
            bf_info("cell %s: %u agents connected, need %u; waiting up to %llu s", name, na, need,
                    (unsigned long long)(c->wait_ms / 1000));
            free(agents);
            if (bf_campaign_signal)
                return bf_exit_of_signal(bf_campaign_signal);
            if (bf__cell_attempt_wait_agents(c, need, c->wait_ms) != BF_OK) {
                /* say what to do: an agent --local-agents started is not restarted (one
                 * that died stays dead), so the fix is the resume, not waiting longer */
                const char *dir = bf_results_dir(c->res);
                bf_error("cell %s: fewer than %u agents (--min-agents, or the cell's agents) "
                         "after waiting %llu s; stopping the campaign (finished cells are in "
                         "%s); %s, then continue with: bulkfleet-coordinator run --resume %s",
                         name, need, (unsigned long long)(c->wait_ms / 1000), dir,
                         c->opts && c->opts->local_agents
                             ? "an agent --local-agents started has exited and is not "
                               "restarted"
                             : "start the missing agents (or lower --min-agents)",
                         dir);
                return bf_campaign_signal ? bf_exit_of_signal(bf_campaign_signal) : BF_EXIT_ENV;
            }
            continue;
        }
        int rc = bf__cell_protocol_run(c, cell, rep, agents, na, pos, n, campaign_start_us, row);
        free(agents);
        if (rc == BF__CELL_RETRY) {
            c->no_retry = ++retries >= BF__MAX_CELL_RETRIES;
            continue;
        }
        c->no_retry = 0;
        return rc;
    }
}

int bf__cell_attempt_run(bf__campaign_t *c, const bf_cell_t *cell, uint32_t rep, const char *name,
                         size_t pos, size_t n, uint64_t campaign_start_us, bf_row_t *row)
{
    /* run.first_warmup: the first cell this coordinator loads warms up longer (a fresh
     * cluster's JVM compiles its indexing code during the first tens of seconds of load, so
     * without it cell 1 measures a colder cluster than the cells after it). The cell's own
     * row records the warmup it had (warmup_s). */
    const bf_run_spec_t *run = bf_scenario_run(c->sc);
    uint64_t warmup_ms = run->warmup_ms, first_ms = run->first_warmup_ms,
             duration_ms = run->duration_ms;
    /* a search-only cell's own search.warmup / search.duration (an imported track's searches,
     * which Rally runs after the load, in a cell of their own) */
    uint64_t cell_warmup_ms, cell_duration_ms;
    bf_scenario_cell_timing(c->sc, cell, &cell_warmup_ms, &cell_duration_ms);
    int longer = !c->first_cell_done && first_ms > cell_warmup_ms;
    c->warmup_after_ms = warmup_ms;
    if (longer) {
        char a[32], b[32];
        bf_info("cell %s: the first cell of this run warms up for %s instead of %s "
                "(run.first_warmup: a cluster that has not indexed for a while, or a fresh JVM, "
                "indexes slower in its first seconds), then measures as every cell",
                name, bf_units_format_duration_ms(first_ms, a, sizeof a),
                bf_units_format_duration_ms(cell_warmup_ms, b, sizeof b));
        bf_scenario_set_warmup(c->sc, first_ms);
    } else if (cell_warmup_ms != warmup_ms) {
        bf_scenario_set_warmup(c->sc, cell_warmup_ms);
    }
    if (cell_duration_ms != duration_ms)
        bf_scenario_set_duration(c->sc, cell_duration_ms);
    uint64_t t0 = bf_clock_mono_us();
    int rc = run_on_agents(c, cell, rep, name, pos, n, campaign_start_us, row);
    if (rc == 0) { /* measured: what the runs after it will likely take (at run.warmup) */
        uint64_t took_us = bf_clock_mono_us() - t0,
                 extra_us = longer ? (first_ms - cell_warmup_ms) * 1000u : 0;
        c->runs_done++;
        c->runs_us += took_us > extra_us ? took_us - extra_us : 0;
    }
    bf_scenario_set_warmup(c->sc, warmup_ms);
    bf_scenario_set_duration(c->sc, duration_ms);
    c->first_cell_done = 1;
    return rc;
}
