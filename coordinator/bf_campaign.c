/* SPDX-License-Identifier: MIT */
/* bf_campaign.c — the campaign runner: cells in order across the fleet. */
#include "bf_campaign.h"

#include "bf_aggregate.h"
#include "bf_buf.h"
#include "bf_clock.h"
#include "bf_cluster.h"
#include "bf_es.h"
#include "bf_fleet.h"
#include "bf_keys.h"
#include "bf_local.h"
#include "bf_log.h"
#include "bf_mem.h"
#include "bf_report.h"
#include "bf_results.h"
#include "bf_scenario.h"
#include "bf_split.h"
#include "bf_telemetry.h"
#include "bf_units.h"
#include "bf_wire.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

volatile int bf_campaign_signal = 0;

#define PREPARE_TIMEOUT_MS 60000
#define RESEND_MS 5000          /* Prepare: resent to agents that have not answered */
#define COMMAND_RESEND_MS 1000  /* Start and Stop: resent until acknowledged */
#define START_DELAY_MS 1000
#define DONE_GRACE_MS 30000
#define CELL_RETRY 1            /* run_cell: an agent was lost before Start; run it again */
#define MAX_CELL_RETRIES 3

typedef struct member {  /* one agent's part in the current cell */
    bf_fleet_agent_t *agent;
    uint32_t index;
    int ready, failed, done, lost, final_seen;
    int returned;        /* lost, then back in time to resend its samples: wait for its final */
    int start_acked, stop_acked;
    uint64_t last_seq;   /* samples are taken in order only: every seq <= this is on disk */
    int32_t last_second;
    uint64_t last_command_us;
} member;

typedef struct campaign {
    const bf_campaign_opts_t *opts;
    bf_scenario_t *sc;
    bf_fleet_t *fleet;
    bf_results_t *res;
    bf_es_t *es;
    bf_telemetry_t *tele;  /* cluster telemetry: a thread with its own curl handle per cell */
    bf_cluster_info_t cluster;

    /* current cell */
    const bf_cell_t *cell;
    char cell_name[256];
    uint64_t prepare_cmd, start_cmd;
    member *members;
    uint32_t nmembers;
    bf_cellagg_t *agg;
    FILE *samples;
    int cell_failed;
    char reason[1024];
    uint64_t bad_samples;
    uint64_t next_cmd;
    uint64_t stop_cmd;      /* the Stop of the current cell, once sent */
    char stop_reason[256];
    int32_t load_s;         /* warmup + duration of the current cell, in seconds */
    uint64_t gaps;          /* samples that arrived ahead of a missing one (resent later) */
    int no_retry;           /* the cell was prepared again too often: a loss fails it */
} campaign;

/* the cell's member for an agent, O(1): the cell setup leaves the member's index in the agent's
 * `user` slot (index + 1; 0 = not in this cell), checked against the members array so a stale
 * slot can never point at another agent's member */
static member *member_of(campaign *c, const bf_fleet_agent_t *a)
{
    uintptr_t slot = (uintptr_t)a->user;
    if (slot == 0 || slot > c->nmembers || c->members[slot - 1].agent != a)
        return NULL;
    return &c->members[slot - 1];
}

static void fail_cell(campaign *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail_cell(campaign *c, const char *fmt, ...)
{
    if (c->cell_failed)
        return;
    c->cell_failed = 1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->reason, sizeof c->reason, fmt, ap);
    va_end(ap);
    bf_error("%s", c->reason);
}

static void send_ack(campaign *c, member *m)
{
    Bf__SampleAck ack = BF__SAMPLE_ACK__INIT;
    ack.cell_id = (char *)c->cell->id;
    ack.seq = m->last_seq;
    Bf__Envelope env;
    bf_wire_init(&env);
    env.body_case = BF__ENVELOPE__BODY_SAMPLE_ACK;
    env.sample_ack = &ack;
    bf_fleet_send(c->fleet, m->agent, &env, 1);
}

static void on_sample(campaign *c, bf_fleet_agent_t *a, const Bf__Sample *s)
{
    member *m = member_of(c, a);
    if (c->cell == NULL || m == NULL || strcmp(s->cell_id, c->cell->id) != 0) {
        /* a sample of an earlier cell resent after a reconnect: acknowledge so the agent drops it */
        Bf__SampleAck ack = BF__SAMPLE_ACK__INIT;
        ack.cell_id = s->cell_id;
        ack.seq = s->seq;
        Bf__Envelope env;
        bf_wire_init(&env);
        env.body_case = BF__ENVELOPE__BODY_SAMPLE_ACK;
        env.sample_ack = &ack;
        bf_fleet_send(c->fleet, a, &env, 1);
        return;
    }
    if (s->seq <= m->last_seq) { /* duplicate (agent, cell, seq): drop, re-acknowledge */
        send_ack(c, m);
        return;
    }
    if (s->seq != m->last_seq + 1) {
        /* one went missing (a connection broke under it): take nothing out of order; the
         * cumulative ack tells the agent where to resend from (go-back-N) */
        c->gaps++;
        send_ack(c, m);
        return;
    }
    /* written to disk first, acknowledged after (DESIGN §3) */
    if (bf_results_sample_line(c->samples, a->id, s) != BF_OK) {
        fail_cell(c, "cell %s: cannot write samples to %s: %s", c->cell->id,
                  bf_results_dir(c->res), strerror(errno));
        return;
    }
    if (bf_cellagg_add(c->agg, m->index, s) != BF_OK)
        c->bad_samples++;
    m->last_seq = s->seq;
    if (s->second > m->last_second)
        m->last_second = s->second;
    if (s->final) {
        m->final_seen = 1;
        /* an agent that stopped before the end on its own (dead-man switch) leaves seconds
         * without its load: the cell is degraded from there on */
        if (!c->stop_cmd && !m->lost && m->last_second + 1 < c->load_s &&
            !(s->fatal && s->fatal[0])) {
            bf_warn("cell %s: agent %s stopped its load after second %d of %d", c->cell->id,
                    a->id, m->last_second, c->load_s);
            bf_cellagg_mark_lost(c->agg, m->index, a->id, m->last_second + 1);
        }
    }
    if (s->fatal && s->fatal[0])
        fail_cell(c, "%s", s->fatal);
    send_ack(c, m);
}

static void on_message(void *ctx, bf_fleet_agent_t *a, const Bf__Envelope *env, int is_data)
{
    campaign *c = ctx;
    member *m = member_of(c, a);
    switch (env->body_case) {
    case BF__ENVELOPE__BODY_SAMPLE:
        on_sample(c, a, env->sample);
        break;
    case BF__ENVELOPE__BODY_READY:
        if (m && env->ready->command_id == c->prepare_cmd) {
            m->ready = 1;
            a->session = BF_AS_PREPARED;
            /* Ready means the scenario loaded: every dictionary file is now cached there */
            for (size_t i = 0; i < bf_scenario_file_count(c->sc); i++)
                bf_fleet_agent_add_file(a, bf_scenario_file(c->sc, i)->sha256_hex);
        }
        break;
    case BF__ENVELOPE__BODY_ACK:
        if (m && c->start_cmd && env->ack->command_id == c->start_cmd)
            m->start_acked = 1;
        if (m && c->stop_cmd && env->ack->command_id == c->stop_cmd)
            m->stop_acked = 1;
        break;
    case BF__ENVELOPE__BODY_FAILED:
        if (m && c->cell && strcmp(env->failed->cell_id, c->cell->id) == 0) {
            m->failed = 1;
            fail_cell(c, "cell %s: agent %s (%s): %s", c->cell->id, a->id, a->hostname,
                      env->failed->reason);
        }
        break;
    case BF__ENVELOPE__BODY_DONE:
        if (m && c->cell && strcmp(env->done->cell_id, c->cell->id) == 0) {
            m->done = 1;
            a->session = BF_AS_IDLE;
        }
        break;
    default:
        break;
    }
}

static void on_event(void *ctx, bf_fleet_agent_t *a, int lost)
{
    campaign *c = ctx;
    member *m = member_of(c, a);
    if (m == NULL || c->agg == NULL)
        return;
    if (lost && !m->final_seen) {
        m->lost = 1;
        m->returned = 0;
        bf_cellagg_mark_lost(c->agg, m->index, a->id, m->last_second + 1);
    } else if (!lost && m->lost && !m->final_seen) {
        /* back while the cell still runs: its seconds are gone (degraded stays), but the samples
         * it holds are wanted, so the cell waits for its final one */
        m->returned = 1;
    }
}

static void send_stop_to(campaign *c, const bf_fleet_agent_t *a, uint64_t cmd, const char *cell_id,
                         const char *reason)
{
    Bf__Stop st = BF__STOP__INIT;
    st.command_id = cmd;
    st.cell_id = (char *)cell_id;
    st.reason = (char *)reason;
    Bf__Envelope env;
    bf_wire_init(&env);
    env.body_case = BF__ENVELOPE__BODY_STOP;
    env.stop = &st;
    bf_fleet_send(c->fleet, a, &env, 0);
}

/* Called at every control Hello, before the Welcome: reconcile what the agent says it is doing
 * with what this coordinator expects (fleet-protocol.md §2.8, "coordinator restart"). */
static int want_resend(void *ctx, const bf_fleet_agent_t *a)
{
    campaign *c = ctx;
    member *m = member_of(c, a);
    int current = c->cell != NULL && m != NULL && strcmp(a->held_cell, c->cell->id) == 0;
    int busy = a->held_state == BF__AGENT_STATE__AGENT_RUNNING ||
               a->held_state == BF__AGENT_STATE__AGENT_PREPARED;
    if (busy && !current && a->held_cell[0]) {
        /* e.g. loading a cell of the coordinator that ran before us: stop it now */
        bf_warn("agent %s is still %s cell %s, which is not running here; stopping it", a->id,
                a->held_state == BF__AGENT_STATE__AGENT_RUNNING ? "running" : "prepared for",
                a->held_cell);
        send_stop_to(c, a, ++c->next_cmd, a->held_cell, "not a cell of this coordinator run");
    }
    if (m != NULL && !current && !m->final_seen && !m->failed) {
        /* a member that forgot the cell (restarted process): it will never finish it */
        if (!m->lost) {
            bf_warn("cell %s: agent %s came back without the cell", c->cell->id, a->id);
            m->lost = 1;
            bf_cellagg_mark_lost(c->agg, m->index, a->id, m->last_second + 1);
        }
        m->returned = 0;
    }
    if (!current && a->held_cell[0] && a->held_last_seq)
        bf_info("agent %s holds samples of cell %s that this run does not need: discarded",
                a->id, a->held_cell);
    return current;
}

/* Stop to every member of the cell; resend_stops repeats it (same id) until acknowledged. */
static void send_stop(campaign *c, const char *reason)
{
    c->stop_cmd = ++c->next_cmd;
    bf_strlcpy(c->stop_reason, reason, sizeof c->stop_reason);
    uint64_t now = bf_clock_mono_us();
    for (uint32_t i = 0; i < c->nmembers; i++) {
        send_stop_to(c, c->members[i].agent, c->stop_cmd, c->cell->id, reason);
        c->members[i].last_command_us = now;
    }
}

static void resend_stops(campaign *c, uint64_t now)
{
    for (uint32_t i = 0; i < c->nmembers; i++) {
        member *m = &c->members[i];
        if (m->stop_acked || m->final_seen || now - m->last_command_us < COMMAND_RESEND_MS * 1000u)
            continue;
        send_stop_to(c, m->agent, c->stop_cmd, c->cell->id, c->stop_reason);
        m->last_command_us = now;
    }
}

/* Start to every member that has not acknowledged it: t = 0 is the same moment for all, so a
 * resend carries the time left, or how late it is (Start.late_ms). */
static void send_starts(campaign *c, uint64_t start_us, uint64_t now)
{
    Bf__Start st = BF__START__INIT;
    st.command_id = c->start_cmd;
    st.cell_id = (char *)c->cell->id;
    st.start_in_ms = start_us > now ? (uint32_t)((start_us - now) / 1000u) : 0;
    st.late_ms = start_us > now ? 0 : (uint32_t)((now - start_us) / 1000u);
    for (uint32_t i = 0; i < c->nmembers; i++) {
        member *m = &c->members[i];
        if (m->start_acked || m->last_seq > 0 || m->lost ||
            (m->last_command_us && now - m->last_command_us < COMMAND_RESEND_MS * 1000u))
            continue;
        Bf__Envelope env;
        bf_wire_init(&env);
        env.body_case = BF__ENVELOPE__BODY_START;
        env.start = &st;
        bf_fleet_send(c->fleet, m->agent, &env, 0);
        m->agent->session = BF_AS_RUNNING;
        m->last_command_us = now;
    }
}

/* keeps heartbeats and Hellos answered while the cluster call blocks the loop */
static void fleet_tick(void *ctx)
{
    campaign *c = ctx;
    bf_fleet_poll(c->fleet, 0);
}

/* ---- one cell ----------------------------------------------------------------------------- */

static void send_prepares(campaign *c, uint32_t repetition, const uint64_t *conc,
                          const uint64_t *rate_milli, const uint32_t *stream_base, uint32_t streams)
{
    const bf_run_spec_t *run = bf_scenario_run(c->sc);
    const char *text = bf_scenario_resolved_text(c->sc);
    size_t nfiles = bf_scenario_file_count(c->sc);
    Bf__FileBlob *blobs = bf_calloc(nfiles + 1, sizeof *blobs);
    Bf__FileBlob **blobp = bf_calloc(nfiles + 1, sizeof *blobp);
    for (size_t i = 0; i < nfiles; i++) {
        const bf_scenario_file_t *f = bf_scenario_file(c->sc, i);
        bf__file_blob__init(&blobs[i]);
        blobs[i].path = (char *)f->path;
        blobs[i].sha256 = (char *)f->sha256_hex;
        blobs[i].content.data = (uint8_t *)f->data;
        blobs[i].content.len = f->len;
        blobp[i] = &blobs[i];
    }
    for (uint32_t i = 0; i < c->nmembers; i++) {
        member *m = &c->members[i];
        if (m->ready || m->failed)
            continue;
        Bf__Prepare p = BF__PREPARE__INIT;
        p.command_id = c->prepare_cmd;
        p.cell_id = (char *)c->cell->id;
        p.cell_index = (uint32_t)c->cell->index;
        p.repetition = repetition;
        p.scenario_yaml.data = (uint8_t *)text;
        p.scenario_yaml.len = strlen(text);
        p.scenario_origin = (char *)c->opts->scenario_path;
        p.concurrency = (uint32_t)conc[i];
        p.target_rate = (double)rate_milli[i] / 1000.0;
        p.stream_base = stream_base[i];
        p.stream_count = streams;
        /* each agent its own seed (streams are disjoint anyway: the RNG mixes in the stream) */
        p.seed = run->seed + c->cell->index * 1000003u + repetition +
                 0x9E3779B97F4A7C15ull * (uint64_t)(i + 1);
        p.warmup_ms = (uint32_t)run->warmup_ms;
        p.duration_ms = (uint32_t)run->duration_ms;
        /* content only for the files this agent has not cached (DESIGN §3) */
        for (size_t f = 0; f < nfiles; f++) {
            const bf_scenario_file_t *sf = bf_scenario_file(c->sc, f);
            int cached = bf_fleet_agent_has_file(m->agent, sf->sha256_hex);
            blobs[f].content.data = cached ? NULL : (uint8_t *)sf->data;
            blobs[f].content.len = cached ? 0 : sf->len;
        }
        p.files = blobp;
        p.n_files = nfiles;
        p.agent_index = i;
        p.agent_count = c->nmembers;
        Bf__Envelope env;
        bf_wire_init(&env);
        env.body_case = BF__ENVELOPE__BODY_PREPARE;
        env.prepare = &p;
        if (bf_fleet_send(c->fleet, m->agent, &env, 0) != BF_OK)
            bf_warn("Prepare to agent %s not sent now: %s", m->agent->id, strerror(errno));
    }
    free(blobp);
    free(blobs);
}

static void progress(campaign *c, size_t k, size_t ncells, int32_t second, uint64_t elapsed_ms,
                     uint64_t remaining_ms)
{
    if (c->opts->quiet)
        return;
    uint64_t ok = 0, err = 0, rej = 0;
    bf_cellagg_live(c->agg, second, &ok, &err, &rej);
    uint32_t lost = 0;
    for (uint32_t i = 0; i < c->nmembers; i++)
        lost += c->members[i].lost;
    const bf_run_spec_t *run = bf_scenario_run(c->sc);
    const char *phase = (uint64_t)second * 1000u < run->warmup_ms ? "warmup" : "measure";
    char el[32], rem[32];
    bf_units_format_duration_ms(elapsed_ms, el, sizeof el);
    bf_units_format_duration_ms(remaining_ms, rem, sizeof rem);
    if (isatty(STDERR_FILENO)) {
        fprintf(stderr, "\r\033[Kcell %zu/%zu %s  %s t=%ds  %" PRIu64 " docs/s  errors %" PRIu64
                "  429 %" PRIu64 "  lost %u  elapsed %s  left ~%s",
                k + 1, ncells, c->cell->id, phase, second, ok, err, rej, lost, el, rem);
        fflush(stderr);
    } else if (second % 5 == 4) {
        bf_info("cell %zu/%zu %s %s t=%ds: %" PRIu64 " docs/s, errors %" PRIu64 ", 429 %" PRIu64
                ", lost agents %u, elapsed %s, left ~%s",
                k + 1, ncells, c->cell->id, phase, second, ok, err, rej, lost, el, rem);
    }
}

/* Runs one repetition of one cell on the given agents; fills row. Returns 0, or BF_E_INTR. */
static int run_cell(campaign *c, const bf_cell_t *cell, uint32_t repetition, bf_fleet_agent_t **agents,
                    uint32_t nagents, size_t k, size_t ncells, uint64_t campaign_start_us,
                    bf_row_t *row)
{
    const bf_run_spec_t *run = bf_scenario_run(c->sc);
    const bf_request_spec_t *rq = bf_scenario_request(c->sc);
    uint32_t repeat = run->repeat ? run->repeat : 1;
    c->cell = cell;
    c->cell_failed = 0;
    c->reason[0] = '\0';
    c->stop_cmd = 0;
    c->start_cmd = 0;
    c->gaps = 0;
    c->load_s = (int32_t)((run->warmup_ms + run->duration_ms + 999) / 1000);
    int retry = 0;
    bf_results_cell_name(cell, repetition, repeat, c->cell_name, sizeof c->cell_name);
    bf_info("cell %zu/%zu %s (shards %u, replicas %u, batch %u, concurrency %u%s) on %u agents",
            k + 1, ncells, c->cell_name, cell->shards, cell->replicas, cell->batch_size,
            cell->concurrency, cell->target_rate > 0 ? ", target rate" : "", nagents);

    int yellow = 0;
    bf_diag_t diag = {0};
    int rc = bf_cluster_prepare_cell_tick(c->es, c->sc, cell, c->cluster.data_nodes, 120000,
                                          &yellow, fleet_tick, c, &diag);
    int64_t baseline = rc == BF_OK ? bf_cluster_baseline(c->es, c->sc, cell) : 0;
    char mismatch[400] = "";
    if (rc == BF_OK && bf_cluster_existing_mismatch(c->es, c->sc, cell, mismatch, sizeof mismatch))
        bf_warn("cell %s: %s", cell->id, mismatch);

    c->nmembers = nagents;
    c->members = bf_calloc(nagents, sizeof *c->members);
    uint32_t *cores = bf_calloc(nagents, sizeof *cores);
    uint32_t *stream_base = bf_calloc(nagents, sizeof *stream_base);
    uint64_t *conc = bf_calloc(nagents, sizeof *conc);
    uint64_t *rate = bf_calloc(nagents, sizeof *rate);
    uint32_t streams = 0;
    for (uint32_t i = 0; i < nagents; i++) {
        c->members[i].agent = agents[i];
        c->members[i].index = i;
        agents[i]->user = (void *)(uintptr_t)(i + 1);
        c->members[i].last_second = -1;
        cores[i] = agents[i]->cores;
        stream_base[i] = streams;
        streams += agents[i]->threads;
    }
    /* shares weighted by cores, largest remainder (DESIGN §3); rate in milli-docs/s */
    /* every agent gets at least one request in flight when there are enough to go round: the
     * rest is split by cores (an agent with 0 would sit idle and fail the cell) */
    if (cell->concurrency >= nagents) {
        bf_split_largest_remainder(cell->concurrency - nagents, cores, nagents, conc);
        for (uint32_t i = 0; i < nagents; i++)
            conc[i]++;
    } else {
        bf_split_largest_remainder(cell->concurrency, cores, nagents, conc);
    }
    bf_split_largest_remainder((uint64_t)llround(cell->target_rate * 1000.0), cores, nagents, rate);
    c->agg = bf_cellagg_new(cell, repetition, nagents, cores, (uint32_t)(run->warmup_ms / 1000),
                            (uint32_t)(run->duration_ms / 1000));
    c->samples = bf_results_samples_open(c->res, c->cell_name);
    int interrupted = 0;

    if (rc != BF_OK) {
        fail_cell(c, "%s", diag.msg);
        goto finish;
    }
    for (uint32_t i = 0; i < nagents; i++) {
        if (conc[i] == 0) {
            fail_cell(c, "cell %s: concurrency %u is less than the %u agents (each needs at "
                      "least one bulk request in flight); run fewer agents (--local-agents, "
                      "--agents or run.agents in the scenario) or raise concurrency", cell->id,
                      cell->concurrency, nagents);
            goto finish;
        }
    }

    /* Prepare → all Ready, resending on timeout (a repeated command id is a no-op) */
    c->prepare_cmd = ++c->next_cmd;
    uint64_t t0 = bf_clock_mono_us(), last_send = 0;
    for (;;) {
        uint64_t now = bf_clock_mono_us();
        if (now - last_send > RESEND_MS * 1000u) {
            send_prepares(c, repetition, conc, rate, stream_base, streams);
            last_send = now;
        }
        bf_fleet_poll(c->fleet, 100);
        if (bf_campaign_signal) {
            interrupted = 1;
            break;
        }
        uint32_t ready = 0, lost = 0;
        for (uint32_t i = 0; i < nagents; i++) {
            ready += c->members[i].ready;
            lost += agents[i]->session == BF_AS_LOST;
        }
        if (c->cell_failed || ready == nagents)
            break;
        if (lost && c->no_retry) {
            fail_cell(c, "cell %s: agents were lost while preparing, %d times", cell->id,
                      MAX_CELL_RETRIES + 1);
            break;
        }
        if (lost) {
            /* nothing measured yet: run the cell again with the agents that are left */
            bf_warn("cell %s: an agent was lost while preparing; preparing again without it",
                    cell->id);
            retry = 1;
            break;
        }
        if (now - t0 > PREPARE_TIMEOUT_MS * 1000u) {
            fail_cell(c, "cell %s: only %u of %u agents were ready after %d s", cell->id, ready,
                      nagents, PREPARE_TIMEOUT_MS / 1000);
            break;
        }
    }
    if (c->cell_failed || interrupted || retry) {
        send_stop(c, c->cell_failed ? "cell failed while preparing" : interrupted ? "interrupted"
                                                                                : "preparing again");
        goto finish;
    }

    /* Start: every agent starts START_DELAY_MS after receipt, on its own monotonic clock;
     * resent (same id, with the time left or how late) until acknowledged */
    c->start_cmd = ++c->next_cmd;
    uint64_t start_us = bf_clock_mono_us() + START_DELAY_MS * 1000u;
    for (uint32_t i = 0; i < nagents; i++)
        c->members[i].last_command_us = 0;
    send_starts(c, start_us, bf_clock_mono_us());
    /* what the cluster says, every second of the cell, without blocking this loop */
    bf_telemetry_start(c->tele, cell, start_us, (uint32_t)(run->warmup_ms / 1000),
                       (uint32_t)(run->duration_ms / 1000));
    uint64_t load_ms = run->warmup_ms + run->duration_ms;
    uint64_t deadline = start_us + (load_ms + rq->timeout_ms + DONE_GRACE_MS) * 1000u;
    int stop_sent = 0;
    int32_t shown = -1;
    for (;;) {
        bf_fleet_poll(c->fleet, 100);
        uint64_t now = bf_clock_mono_us();
        if (stop_sent)
            resend_stops(c, now);
        else
            send_starts(c, start_us, now);
        if (bf_campaign_signal && !stop_sent) {
            interrupted = 1;
            send_stop(c, "coordinator interrupted");
            stop_sent = 1;
            deadline = now + 5000000u;
        }
        if (c->cell_failed && !stop_sent) {
            send_stop(c, c->reason);
            stop_sent = 1;
            deadline = now + (rq->timeout_ms + 5000u) * 1000u;
        }
        /* an agent is finished with its final sample on disk (Done only adds totals), or when
         * lost and not back to resend what it holds */
        uint32_t finished = 0;
        for (uint32_t i = 0; i < nagents; i++)
            finished += c->members[i].final_seen || (c->members[i].lost && !c->members[i].returned);
        if (finished == nagents)
            break;
        if (now > deadline) {
            for (uint32_t i = 0; i < nagents; i++) {
                member *m = &c->members[i];
                if (!m->final_seen && (!m->lost || m->returned)) {
                    m->lost = 1;
                    bf_cellagg_mark_lost(c->agg, i, agents[i]->id, m->last_second + 1);
                    bf_warn("agent %s did not finish cell %s in time", agents[i]->id, cell->id);
                }
            }
            break;
        }
        /* show the latest second every live agent has reported: its numbers are complete */
        int32_t sec = INT32_MAX;
        for (uint32_t i = 0; i < nagents; i++)
            if (!c->members[i].lost && c->members[i].last_second < sec)
                sec = c->members[i].last_second;
        if (sec != INT32_MAX && sec >= 0 && sec > shown) {
            shown = sec;
            uint64_t elapsed_ms = (now - campaign_start_us) / 1000u;
            uint64_t per_cell_ms = load_ms + 5000;
            uint64_t left_ms = (uint64_t)(ncells - k - 1) * per_cell_ms +
                               (load_ms > (uint64_t)sec * 1000u ? load_ms - (uint64_t)sec * 1000u : 0);
            progress(c, k, ncells, sec, elapsed_ms, left_ms);
        }
    }
    if (!c->opts->quiet && isatty(STDERR_FILENO))
        fputs("\r\033[K", stderr);

finish:
    if (retry)
        goto cleanup;
    bf_cellagg_row(c->agg, row);
    {
        /* stopped before _refresh/_count so those do not show up as indexing */
        bf_telemetry_summary_t ts;
        bf_buf_t tnd;
        bf_buf_init(&tnd, 0);
        bf_telemetry_stop(c->tele, &ts, &tnd);
        row->write_queue_max = ts.write_queue_max;
        row->write_rejected = ts.write_rejected;
        row->hot_spot_ratio = ts.hot_spot_ratio;
        row->cluster_docs_per_s = ts.cluster_docs_per_s;
        if (tnd.len) {
            char *rel = bf_asprintf("telemetry/%s%s.ndjson", c->cell_name, interrupted ? ".aborted" : "");
            bf_results_write_file(c->res, rel, tnd.data, tnd.len);
            free(rel);
        }
        if (ts.ticks_failed)
            bf_warn("cell %s: %u of %u telemetry samples got no answer", cell->id, ts.ticks_failed,
                    ts.ticks);
        bf_buf_cleanup(&tnd);
    }
    row->yellow = yellow;
    row->aborted = interrupted;
    if (c->cell_failed) {
        row->failed = 1;
        bf_strlcpy(row->reason, c->reason, sizeof row->reason);
    }
    bf_row_verify(row, c->es, cell, baseline);
    if (mismatch[0]) {
        row->index_mismatch = 1;
        bf_row_add_reason(row, mismatch);
    }
    if (c->bad_samples)
        bf_warn("cell %s: %llu samples had invalid histograms (counted, histograms dropped)",
                cell->id, (unsigned long long)c->bad_samples);
    const char **ids = bf_calloc(nagents + 1, sizeof *ids);
    for (uint32_t i = 0; i < nagents; i++)
        ids[i] = agents[i]->id;
    if (interrupted) {
        /* kept, but under a name --resume does not take as finished: the cell runs again */
        char aborted_name[300];
        snprintf(aborted_name, sizeof aborted_name, "%s.aborted", c->cell_name);
        bf_results_cell_done(c->res, aborted_name, c->agg, ids, nagents, row);
    } else {
        bf_results_cell_done(c->res, c->cell_name, c->agg, ids, nagents, row);
    }
    free(ids);
    if (c->gaps)
        bf_info("cell %s: %llu samples arrived ahead of a missing one and were taken when resent",
                cell->id, (unsigned long long)c->gaps);
cleanup:
    for (uint32_t i = 0; i < nagents; i++) {
        if (agents[i]->session != BF_AS_LOST)
            agents[i]->session = BF_AS_IDLE;
        agents[i]->user = NULL;
    }
    bf_cellagg_destroy(&c->agg);
    c->samples = NULL;
    free(c->members);
    c->members = NULL;
    c->nmembers = 0;
    c->cell = NULL;
    free(cores);
    free(stream_base);
    free(conc);
    free(rate);
    return retry ? CELL_RETRY : interrupted ? BF_E_INTR : BF_OK;
}

/* ---- the campaign ------------------------------------------------------------------------- */

/* --resume DIR with a scenario that differs from the one the campaign started with would mix
 * rows measured under two definitions. Returns 1 (after saying why) when DIR/scenario.yaml is
 * missing or differs from this scenario's redacted text. */
static int resume_mismatch(const char *dir, const bf_scenario_t *sc)
{
    char *path = bf_asprintf("%s/scenario.yaml", dir);
    FILE *f = fopen(path, "r");
    int differs = 1;
    if (f == NULL) {
        fprintf(stderr, "bulkfleet-coordinator: --resume %s: %s: %s; give the results directory "
                "of the campaign to continue\n", dir, path, strerror(errno));
    } else {
        bf_buf_t b;
        bf_buf_init(&b, BF_MAX_SCENARIO_BYTES);
        char chunk[8192];
        size_t n;
        while ((n = fread(chunk, 1, sizeof chunk, f)) > 0 && bf_buf_append(&b, chunk, n) == BF_OK)
            ;
        fclose(f);
        const char *now = bf_scenario_redacted_text(sc);
        differs = b.data == NULL || strcmp(b.data, now) != 0;
        if (differs)
            fprintf(stderr, "bulkfleet-coordinator: --resume %s: the scenario differs from the one "
                    "this campaign started with (%s); resume with the same scenario file and "
                    "environment, or start a new campaign\n", dir, path);
        bf_buf_cleanup(&b);
    }
    free(path);
    return differs;
}

/* --cells "i1-s2-r0-b500-c4,3": ids or 1-based numbers. *sel gets one flag per cell (caller
 * frees). Returns 0, or BF_E_NOTFOUND after printing which entry matched nothing. */
static int select_cells(const bf_scenario_t *sc, const char *list, uint8_t **sel)
{
    size_t n = bf_scenario_cell_count(sc);
    *sel = bf_calloc(n + 1, 1);
    const char *cur = list;
    char tok[256];
    int rc = BF_OK;
    while (bf_str_field(&cur, ',', tok, sizeof tok)) {
        const bf_cell_t *cell = bf_scenario_find_cell(sc, tok);
        uint64_t num;
        if (cell == NULL && bf_units_parse_u64(tok, &num) == BF_OK && num >= 1 && num <= n)
            cell = bf_scenario_cell(sc, (size_t)num - 1);
        if (cell == NULL) {
            fprintf(stderr, "bulkfleet-coordinator: --cells: '%s' is neither a cell id nor a number "
                    "1..%zu; `bulkfleet-coordinator plan` lists them\n", tok, n);
            rc = BF_E_NOTFOUND;
            break;
        }
        (*sel)[cell->index] = 1;
    }
    if (rc != BF_OK) {
        free(*sel);
        *sel = NULL;
    }
    return rc;
}

static int wait_for_agents(campaign *c, uint32_t want, uint64_t wait_ms)
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
            bf_info("waiting for agents: %zu of %u connected", bf_fleet_ready_count(c->fleet), want);
            last_note = now;
        }
    }
    return BF_OK;
}

static char *data_bind_for(const char *control)
{
    const char *colon = strrchr(control, ':');
    long port = colon ? strtol(colon + 1, NULL, 10) : 0;
    if (colon == NULL || port <= 0 || port >= 65535)
        return NULL;
    return bf_asprintf("%.*s:%ld", (int)(colon - control), control, port + 1);
}

int bf_campaign_run(const bf_campaign_opts_t *opts)
{
    campaign c;
    memset(&c, 0, sizeof c);
    c.opts = opts;
    /* command ids unique across coordinator runs: an agent takes a repeated id as a resend, so
     * a restarted (or --resume'd) coordinator counting from 1 again would be answered from the
     * agent's memory of the previous run instead of being obeyed */
    c.next_cmd = bf_clock_wall_us();
    int code = 0;
    pid_t *pids = NULL;
    uint32_t npids = 0;
    bf_row_t *rows = NULL;
    size_t nrows = 0;
    char *data_bind = NULL;
    char *allow = NULL, *local_keys = NULL;

    bf_diag_t diag = {0};
    if (bf_scenario_load_file(opts->scenario_path, NULL, &c.sc, &diag) != BF_OK) {
        fprintf(stderr, "%s\n", diag.msg);
        return 2;
    }
    for (size_t i = 0; i < bf_scenario_warning_count(c.sc); i++)
        bf_warn("%s", bf_scenario_warning(c.sc, i));
    bf_scenario_override_run(c.sc, opts->warmup_ms, opts->duration_ms);
    if (opts->duration_ms && *opts->duration_ms < 1000) {
        fprintf(stderr, "bulkfleet-coordinator: --duration must be at least 1s\n");
        bf_scenario_destroy(&c.sc);
        return 2;
    }
    uint8_t *selected = NULL;
    if (opts->cells && select_cells(c.sc, opts->cells, &selected) != BF_OK) {
        bf_scenario_destroy(&c.sc);
        return 2;
    }
    uint64_t seed;
    if (bf_scenario_seed_fresh(c.sc, &seed)) {
        /* no run.seed: a fresh one per campaign (ids differ between campaigns), recorded in
         * matrix.json and here so the campaign can be repeated exactly */
        bf_info("run.seed not set: this campaign uses seed %llu (write run.seed: %llu to repeat "
                "its documents exactly)", (unsigned long long)seed, (unsigned long long)seed);
    }
    const bf_run_spec_t *run = bf_scenario_run(c.sc);
    const bf_target_t *target = bf_scenario_target(c.sc);

    c.es = bf_es_new(target, 0, 130000);
    if (bf_cluster_info(c.es, &c.cluster, &diag) != BF_OK) {
        fprintf(stderr, "bulkfleet-coordinator: the target cluster is not reachable: %s\n", diag.msg);
        code = 3;
        goto out;
    }
    c.tele = bf_telemetry_new(target);
    {
        bf_product_t prod;
        bf_diag_t td = {0};
        if (bf_telemetry_probe(c.tele, &prod, &td) != BF_OK) {
            bf_warn("telemetry: %s", td.msg);
        } else if (prod.compat_mode) {
            /* OpenSearch answering GET / as Elasticsearch 7.10.2 (reference/es-api.md §3.1) */
            bf_strlcpy(c.cluster.distribution, prod.distribution, sizeof c.cluster.distribution);
            bf_strlcpy(c.cluster.version, prod.version, sizeof c.cluster.version);
        }
    }
    bf_info("target: %s %s, %u node%s (%s)", c.cluster.distribution, c.cluster.version,
            c.cluster.nodes, c.cluster.nodes == 1 ? "" : "s", bf_es_host(c.es));
    /* every host agents will load must answer now, not fail a third of the requests later */
    for (size_t i = 1; i < target->nhosts; i++) {
        bf_es_t *es_i = bf_es_new(target, i, 10000);
        bf_cluster_info_t info_i;
        bf_diag_t d_i = {0};
        int rc_i = bf_cluster_info(es_i, &info_i, &d_i);
        bf_es_destroy(&es_i);
        if (rc_i != BF_OK) {
            fprintf(stderr, "bulkfleet-coordinator: target.hosts[%zu] is not usable: %s\n", i,
                    d_i.msg);
            code = 3;
            goto out;
        }
    }

    const char *control = opts->control_bind ? opts->control_bind : "tcp://127.0.0.1:7100";
    data_bind = opts->data_bind ? bf_strdup(opts->data_bind) : data_bind_for(control);
    if (data_bind == NULL) {
        fprintf(stderr, "bulkfleet-coordinator: --bind %s: expected tcp://HOST:PORT\n", control);
        code = 2;
        goto out;
    }
    bf_fleet_opts_t fo = {.control_bind = control, .data_bind = data_bind, .lost_ms = opts->lost_ms};
    char msg[512];
    char secret[41] = "", public_key[41] = "";
    if (opts->insecure) {
        bf_warn("--insecure: fleet traffic is plain TCP and any agent may join");
        if (target->auth != BF_AUTH_NONE)
            bf_warn("--insecure: the cluster credentials of the scenario travel to the agents in "
                    "plain text; use CURVE keys (--keys DIR) on any network you do not own");
    } else {
        bf_diag_t kd = {0};
        if (opts->keys_dir) {
            if (bf_keys_load_secret(opts->keys_dir, "coordinator", secret, public_key, &kd) != BF_OK) {
                fprintf(stderr, "bulkfleet-coordinator: %s\n", kd.msg);
                code = 3;
                goto out;
            }
            allow = opts->allow_dir ? bf_strdup(opts->allow_dir)
                                    : bf_asprintf("%s/agents", opts->keys_dir);
        } else if (!opts->local_agents) {
            fprintf(stderr, "bulkfleet-coordinator: CURVE keys are required: give --keys DIR "
                    "(create it with `bulkfleet-coordinator keygen DIR`, then put each agent's "
                    "agent.pub into DIR/agents/), or --insecure on a trusted network\n");
            code = 3;
            goto out;
        }
        if (opts->local_agents) {
            /* local agents get ephemeral keys in a private temporary directory */
            char tmpl[] = "/tmp/bulkfleet-keys.XXXXXX";
            if (mkdtemp(tmpl) == NULL) {
                fprintf(stderr, "bulkfleet-coordinator: cannot create a key directory: %s\n",
                        strerror(errno));
                code = 3;
                goto out;
            }
            local_keys = bf_strdup(tmpl);
            char agent_sec[41], agent_pub[41];
            int krc = bf_keys_generate(local_keys, "agent", &kd);
            if (krc == BF_OK && !opts->keys_dir) {
                krc = bf_keys_generate(local_keys, "coordinator", &kd);
                if (krc == BF_OK)
                    krc = bf_keys_load_secret(local_keys, "coordinator", secret, public_key, &kd);
            } else if (krc == BF_OK) {
                char *pubpath = bf_asprintf("%s/coordinator.pub", local_keys);
                FILE *pf = fopen(pubpath, "w");
                krc = pf && fprintf(pf, "%s\n", public_key) > 0 ? BF_OK : BF_E_IO;
                if (pf)
                    fclose(pf);
                free(pubpath);
            }
            if (krc == BF_OK)
                krc = bf_keys_load_secret(local_keys, "agent", agent_sec, agent_pub, &kd);
            explicit_bzero(agent_sec, sizeof agent_sec);
            if (krc != BF_OK) {
                fprintf(stderr, "bulkfleet-coordinator: local agent keys: %s\n", kd.msg);
                code = 3;
                goto out;
            }
            char *both = allow ? bf_asprintf("%s:%s", allow, local_keys) : bf_strdup(local_keys);
            free(allow);
            allow = both;
        }
        fo.curve_secret_z85 = secret;
        fo.allow_dir = allow;
    }
    c.fleet = bf_fleet_new(&fo, msg, sizeof msg);
    if (c.fleet == NULL) {
        fprintf(stderr, "bulkfleet-coordinator: %s\n", msg);
        code = 3;
        goto out;
    }
    bf_fleet_set_handler(c.fleet, on_message, on_event, &c);
    bf_fleet_set_resend(c.fleet, want_resend);

    if (opts->resume_dir && resume_mismatch(opts->resume_dir, c.sc)) {
        code = 2;
        goto out;
    }
    c.res = bf_results_open(opts->results_base ? opts->results_base : "results", opts->resume_dir,
                            c.sc, &diag);
    if (c.res == NULL) {
        fprintf(stderr, "bulkfleet-coordinator: %s\n", diag.msg);
        code = 3;
        goto out;
    }
    bf_results_set_cluster(c.res, &c.cluster);

    if (opts->local_agents) {
        char *agent = bf_local_agent_path();
        if (agent == NULL) {
            fprintf(stderr, "bulkfleet-coordinator: bulkfleet-agent not found next to this "
                            "program; build it (make) or install both programs\n");
            code = 3;
            goto out;
        }
        /* local agents connect to loopback on the control port we bound */
        const char *colon = strrchr(control, ':');
        char *ep = bf_asprintf("tcp://127.0.0.1%s", colon);
        pids = bf_calloc(opts->local_agents, sizeof *pids);
        npids = opts->local_agents;
        int rc = bf_local_spawn(agent, ep, npids, opts->local_threads, local_keys, pids);
        free(ep);
        free(agent);
        if (rc != BF_OK) {
            code = 3;
            goto out;
        }
    }
    uint32_t want = opts->agents ? opts->agents : (opts->local_agents ? opts->local_agents : 1);
    uint32_t min_agents = opts->min_agents ? opts->min_agents : want;
    if (run->agents && min_agents > run->agents) {
        /* a cell never runs on more than run.agents: waiting for more would never end */
        bf_info("scenario run.agents is %u: cells run on %u of the %u agents", run->agents,
                run->agents, want);
        min_agents = run->agents;
    }
    uint64_t wait_ms = opts->agent_wait_ms ? opts->agent_wait_ms : 60000;
    int wr = wait_for_agents(&c, want, wait_ms);
    if (wr == BF_E_INTR) {
        code = 128 + bf_campaign_signal;
        goto out;
    }
    if (wr != BF_OK) {
        fprintf(stderr, "bulkfleet-coordinator: only %zu of %u agents connected within %llu s; "
                "start agents with: bulkfleet-agent --coordinator tcp://<this host>%s\n",
                bf_fleet_ready_count(c.fleet), want, (unsigned long long)(wait_ms / 1000),
                strrchr(control, ':'));
        code = 3;
        goto out;
    }

    size_t ncells = bf_scenario_cell_count(c.sc);
    uint32_t repeat = run->repeat ? run->repeat : 1;
    rows = bf_calloc(ncells + 1, sizeof *rows);
    bf_row_t *reps = bf_calloc(repeat, sizeof *reps);
    uint64_t campaign_start = bf_clock_mono_us();
    int any_bad = 0;
    /* progress counts the cells this run executes (--cells picks some) */
    size_t nsel = 0, pos = 0;
    for (size_t k = 0; k < ncells; k++)
        nsel += !selected || selected[k];
    for (size_t k = 0; k < ncells && code == 0; k++) {
        const bf_cell_t *cell = bf_scenario_cell(c.sc, k);
        if (k > 0 && (!selected || selected[k - 1]))
            pos++;
        uint32_t nreps = 0, retries = 0;
        int skip = selected && !selected[k];
        for (uint32_t rep = 1; rep <= repeat; rep++) {
            char name[256];
            bf_results_cell_name(cell, rep, repeat, name, sizeof name);
            if (opts->resume_dir && bf_results_cell_finished(c.res, name) &&
                bf_results_load_row(c.res, name, cell, &reps[nreps]) == BF_OK) {
                if (!skip)
                    bf_info("cell %s already finished in %s; kept", name, opts->resume_dir);
                nreps++;
                continue;
            }
            if (skip)
                break; /* not selected with --cells: neither run nor (unless finished) reported */
            /* the cell's agents: every live agent (a late joiner waits for the next cell) */
            bf_fleet_agent_t **agents = bf_calloc(bf_fleet_count(c.fleet) + 1, sizeof *agents);
            uint32_t na = 0;
            for (size_t i = 0; i < bf_fleet_count(c.fleet); i++) {
                bf_fleet_agent_t *a = bf_fleet_agent(c.fleet, i);
                if (a->session != BF_AS_LOST && a->session != BF_AS_CONNECTED && a->has_data_route &&
                    (run->agents == 0 || na < run->agents))
                    agents[na++] = a;
            }
            if (na < min_agents) {
                bf_info("cell %s: %u agents connected, need %u; waiting up to %llu s", name, na,
                        min_agents, (unsigned long long)(wait_ms / 1000));
                free(agents);
                if (bf_campaign_signal) {
                    code = 128 + bf_campaign_signal;
                    break;
                }
                if (wait_for_agents(&c, min_agents, wait_ms) != BF_OK) {
                    fprintf(stderr, "bulkfleet-coordinator: cell %s: fewer than --min-agents %u "
                            "agents; stopping the campaign (finished cells are in %s)\n",
                            name, min_agents, bf_results_dir(c.res));
                    code = bf_campaign_signal ? 128 + bf_campaign_signal : 3;
                    break;
                }
                rep--;
                continue;
            }
            int rc = run_cell(&c, cell, rep, agents, na, pos, nsel, campaign_start, &reps[nreps]);
            free(agents);
            if (rc == CELL_RETRY) {
                c.no_retry = ++retries >= MAX_CELL_RETRIES;
                rep--;
                continue;
            }
            retries = 0;
            c.no_retry = 0;
            nreps++;
            if (rc == BF_E_INTR) {
                code = 128 + bf_campaign_signal;
                break;
            }
        }
        if (nreps > 0) {
            bf_rows_median(reps, nreps, &rows[nrows]);
            if (nreps == 1)
                rows[nrows].repeat = 1;
            any_bad |= rows[nrows].failed || rows[nrows].degraded || !rows[nrows].verified ||
                       bf_row_has_errors(&rows[nrows]);
            nrows++;
            bf_results_write_matrix(c.res, c.sc, rows, nrows);
        }
    }
    free(reps);
    if (nrows > 0) {
        /* report.html from what is on disk, also after an interruption */
        bf_diag_t rd = {0};
        if (bf_report_write(bf_results_dir(c.res), &rd) != BF_OK)
            bf_warn("report: %s", rd.msg);
        printf("\n");
        bf_results_print_md(stdout, c.sc, rows, nrows);
        printf("\nresults: %s\n", bf_results_dir(c.res));
        fflush(stdout);
    }
    if (code == 0 && any_bad)
        code = 1;

out:
    if (npids)
        bf_local_stop(pids, npids);
    free(pids);
    free(selected);
    free(rows);
    free(data_bind);
    free(allow);
    if (local_keys) {
        /* ephemeral keys die with the campaign */
        char *p1 = bf_asprintf("%s/agent.key", local_keys), *p2 = bf_asprintf("%s/agent.pub", local_keys);
        char *p3 = bf_asprintf("%s/coordinator.key", local_keys), *p4 = bf_asprintf("%s/coordinator.pub", local_keys);
        unlink(p1); unlink(p2); unlink(p3); unlink(p4);
        rmdir(local_keys);
        free(p1); free(p2); free(p3); free(p4);
        free(local_keys);
    }
    bf_results_close(&c.res);
    bf_fleet_destroy(&c.fleet);
    bf_telemetry_destroy(&c.tele);
    bf_es_destroy(&c.es);
    bf_scenario_destroy(&c.sc);
    return code;
}
