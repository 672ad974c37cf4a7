/* SPDX-License-Identifier: MIT */
/* bf_cell_protocol.c — the per-cell run: Prepare → Ready → Start → samples → the row. */
#include "bf_campaign_int.h"

#include "bf_buf.h"
#include "bf_clock.h"
#include "bf_findmax.h"
#include "bf_finish.h"
#include "bf_log.h"
#include "bf_mem.h"
#include "bf_sha256.h"
#include "bf_split.h"
#include "bf_steady.h"
#include "bf_units.h"
#include "bf_wire.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PREPARE_TIMEOUT_MS 60000
#define RESEND_MS 5000         /* Prepare: resent to agents that have not answered */
#define BUSY_RESEND_MS 1000    /* Prepare: resent to an agent that answered busy */
#define DRAIN_GRACE_MS 15000   /* waiting for draining agents: request timeout + this */
#define COMMAND_RESEND_MS 1000 /* Start and Stop: resent until acknowledged */
#define START_DELAY_MS 1000
#define DONE_GRACE_MS 30000
#define STOP_ACK_WAIT_MS 3000    /* results directory broken: how long Stop may take to arrive */
#define SAMPLES_WAIT_SAY_MS 5000 /* a slow results disk: said this often while the end waits */

/* ---- the member state table (bf_cell_protocol.h) -----------------------------------------------
 */

#define S(n, a)                                                                                    \
    {                                                                                              \
        BF_MEMBER_##n, a                                                                           \
    }
#define NO                                                                                         \
    {                                                                                              \
        BF_MEMBER_COUNT, 0                                                                         \
    } /* no change */
static const bf_member_step_t table[BF_MEMBER_COUNT][BF_ME_COUNT] = {
    /*               READY     FAILED     SAMPLE       FINAL                           LOST
                     BACK      FORGOT                              DEADLINE */
    /* PREPARING + FORGOT: a Hello that crossed the Prepare (the agent has not read it yet);
     * the Prepare is resent, nothing is lost */
    [BF_MEMBER_PREPARING] = {S(READY, 0), S(FAILED, 0), NO, NO, S(LOST, BF_MA_MARK_LOST), NO, NO,
                             S(LOST, BF_MA_MARK_LOST | BF_MA_WARN)},
    [BF_MEMBER_READY] = {NO, S(FAILED, 0), S(RUNNING, 0), S(FINISHED, BF_MA_CHECK_EARLY),
                         S(LOST, BF_MA_MARK_LOST), NO, S(LOST, BF_MA_MARK_LOST | BF_MA_WARN),
                         S(LOST, BF_MA_MARK_LOST | BF_MA_WARN)},
    [BF_MEMBER_RUNNING] = {NO, S(FAILED, 0), NO, S(FINISHED, BF_MA_CHECK_EARLY),
                           S(LOST, BF_MA_MARK_LOST), NO, S(LOST, BF_MA_MARK_LOST | BF_MA_WARN),
                           S(LOST, BF_MA_MARK_LOST | BF_MA_WARN)},
    [BF_MEMBER_FAILED] = {NO, NO, NO, S(FINISHED, 0), S(LOST, BF_MA_MARK_LOST), NO, NO,
                          S(LOST, BF_MA_MARK_LOST | BF_MA_WARN)},
    [BF_MEMBER_LOST] = {NO, NO, NO, NO, NO, S(RETURNED, 0), NO, NO},
    [BF_MEMBER_RETURNED] = {NO, NO, NO, S(FINISHED, 0), S(LOST, BF_MA_MARK_LOST), NO, S(LOST, 0),
                            S(LOST, BF_MA_MARK_LOST | BF_MA_WARN)},
    [BF_MEMBER_FINISHED] = {NO, NO, NO, NO, NO, NO, NO, NO},
};
#undef S
#undef NO

bf_member_step_t bf_member_step(enum bf_member_state state, enum bf_member_event ev)
{
    bf_member_step_t none = {state, 0};
    if ((unsigned)state >= BF_MEMBER_COUNT || (unsigned)ev >= BF_ME_COUNT)
        return none;
    bf_member_step_t t = table[state][ev];
    if (t.next == BF_MEMBER_COUNT)
        return none;
    return t;
}

const char *bf_member_state_name(enum bf_member_state state)
{
    switch (state) {
    case BF_MEMBER_PREPARING: return "PREPARING";
    case BF_MEMBER_READY: return "READY";
    case BF_MEMBER_RUNNING: return "RUNNING";
    case BF_MEMBER_FAILED: return "FAILED";
    case BF_MEMBER_LOST: return "LOST";
    case BF_MEMBER_RETURNED: return "RETURNED";
    case BF_MEMBER_FINISHED: return "FINISHED";
    case BF_MEMBER_COUNT: break;
    }
    return "?";
}

const char *bf_member_event_name(enum bf_member_event ev)
{
    switch (ev) {
    case BF_ME_READY: return "READY";
    case BF_ME_FAILED: return "FAILED";
    case BF_ME_SAMPLE: return "SAMPLE";
    case BF_ME_FINAL: return "FINAL";
    case BF_ME_LOST: return "LOST";
    case BF_ME_BACK: return "BACK";
    case BF_ME_FORGOT: return "FORGOT";
    case BF_ME_DEADLINE: return "DEADLINE";
    case BF_ME_COUNT: break;
    }
    return "?";
}

int bf_member_done(enum bf_member_state state)
{
    return state == BF_MEMBER_FINISHED || state == BF_MEMBER_LOST;
}

int bf_member_lost(enum bf_member_state state)
{
    return state == BF_MEMBER_LOST || state == BF_MEMBER_RETURNED;
}

/* ---- the run ------------------------------------------------------------------------------ */

/* the cell's member for an agent, O(1): the cell setup leaves the member's index in the agent's
 * `user` slot (index + 1; 0 = not in this cell), checked against the members array so a stale
 * slot can never point at another agent's member */
static bf_member_t *member_of(bf__campaign_t *c, const bf_fleet_agent_t *a)
{
    uintptr_t slot = (uintptr_t)a->user;
    if (slot == 0 || slot > c->nmembers || c->members[slot - 1].agent != a)
        return NULL;
    return &c->members[slot - 1];
}

static void fail_cell(bf__campaign_t *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void fail_cell(bf__campaign_t *c, const char *fmt, ...)
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

static void send_ack(bf__campaign_t *c, bf_member_t *m)
{
    Bf__SampleAck ack = BF__SAMPLE_ACK__INIT;
    ack.cell_id = (char *)c->cell->id;
    ack.seq = m->acked_seq;
    Bf__Envelope env;
    bf_wire_init(&env);
    env.body_case = BF__ENVELOPE__BODY_SAMPLE_ACK;
    env.sample_ack = &ack;
    bf_fleet_send(c->fleet, m->agent, &env, 1);
}

/* Apply the member table to m for ev: the new state, and the seconds marked lost when the
 * table says so. Returns the actions (BF_MA_*) for the caller's messages. */
static unsigned step(bf__campaign_t *c, bf_member_t *m, enum bf_member_event ev)
{
    bf_member_step_t t = bf_member_step(m->state, ev);
    if (t.next != m->state)
        bf_debug("cell %s: agent %s %s --%s--> %s", c->cell ? c->cell->id : "-", m->agent->id,
                 bf_member_state_name(m->state), bf_member_event_name(ev),
                 bf_member_state_name(t.next));
    m->state = t.next;
    if ((t.actions & BF_MA_MARK_LOST) && c->agg)
        bf_cellagg_mark_lost(c->agg, m->index, m->agent->id, m->last_second + 1);
    return t.actions;
}

/* The samples could not be written: nothing more is acknowledged, so the agents keep what
 * is not on disk; the load stops now (docs/internals/measurement.md: nothing measured is kept
 * only in memory) and the campaign ends after this cell. why: the writer's error when NULL. */
static void samples_failed(bf__campaign_t *c, const char *why)
{
    char werr[256] = "";
    if (why == NULL && c->slog)
        bf_samplelog_error(c->slog, werr, sizeof werr);
    char msg[600];
    snprintf(msg, sizeof msg, "cannot write samples to %s/cells/%s.samples.partial: %s",
             bf_results_dir(c->res), c->cell_name, why ? why : werr);
    bf_results_note_error(c->res, msg);
    fail_cell(c, "cell %s: %s", c->cell->id, msg);
}

/* Acknowledge what the writer thread has put on disk since the last call (a cumulative
 * SampleAck per member whose durable seq moved); a failed write fails the cell. */
static void samples_ack(bf__campaign_t *c)
{
    if (c->slog == NULL)
        return;
    if (bf_samplelog_error(c->slog, NULL, 0) != BF_OK && bf_results_error(c->res) == NULL)
        samples_failed(c, NULL);
    for (uint32_t i = 0; i < c->nmembers; i++) {
        bf_member_t *m = &c->members[i];
        uint64_t durable = bf_samplelog_durable(c->slog, m->index);
        if (durable > m->acked_seq) {
            m->acked_seq = durable;
            send_ack(c, m);
        }
    }
}

/* The load is over: wait for the writer thread to put every sample taken on disk, the fleet
 * answered meanwhile and each member's samples acknowledged as they land, then stop it. Said
 * every SAMPLES_WAIT_SAY_MS while the disk keeps the campaign waiting. */
static void samples_drain(bf__campaign_t *c)
{
    if (c->slog == NULL)
        return;
    uint64_t t0 = bf_clock_mono_us(), said = t0;
    size_t bytes = 0;
    size_t lines;
    while ((lines = bf_samplelog_pending(c->slog, &bytes)) > 0 &&
           bf_samplelog_error(c->slog, NULL, 0) == BF_OK) {
        bf_fleet_poll(c->fleet, 100);
        samples_ack(c);
        uint64_t now = bf_clock_mono_us();
        if (now - said >= SAMPLES_WAIT_SAY_MS * 1000u) {
            said = now;
            bf_info("cell %s: waiting %.0f s for the results disk: %zu samples (%.1f KiB) not yet "
                    "written to %s",
                    c->cell->id, (now - t0) / 1e6, lines, bytes / 1024.0, bf_results_dir(c->res));
        }
    }
    samples_ack(c);
    bf_samplelog_close(&c->slog); /* a failure is noted (samples_ack) */
    if (c->held_back)
        bf_info("cell %s: %" PRIu64 " samples were held back while the results disk was slow and "
                "taken when sent again",
                c->cell->id, c->held_back);
}

static void on_sample(bf__campaign_t *c, bf_fleet_agent_t *a, const Bf__Sample *s)
{
    bf_member_t *m = member_of(c, a);
    if (c->cell == NULL || m == NULL || strcmp(s->cell_id, c->cell->id) != 0) {
        /* a sample of an earlier cell resent after a reconnect: acknowledge so the agent drops it
         */
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
    /* queued for the writer thread and acknowledged once on disk (samples_ack), so a slow
     * results disk never keeps this thread from the fleet (docs/internals/fleet-protocol.md) */
    char *line = bf_results_sample_json(a->id, s);
    int rc = BF_E_IO;
    if (c->slog)
        rc = bf_samplelog_push(c->slog, m->index, s->seq, line);
    else
        free(line);
    if (rc == BF_E_TOOBIG) {
        /* the queue is full: not taken, not acknowledged; the agent keeps the sample and sends
         * it again (every RETRANSMIT 3 s), so the disk holds the fleet's samples back */
        size_t bytes = 0;
        size_t lines = bf_samplelog_pending(c->slog, &bytes);
        if (c->held_back++ == 0)
            bf_warn("cell %s: the results disk is slow: %zu samples (%.1f MiB) wait to be written "
                    "to %s; agent %s keeps sample %" PRIu64 " and the ones after it until there "
                    "is room (nothing is lost)",
                    c->cell->id, lines, bytes / 1048576.0, bf_results_dir(c->res), a->id, s->seq);
        return;
    }
    if (rc != BF_OK) {
        samples_failed(c, c->slog ? NULL : strerror(errno));
        return;
    }
    if (bf_cellagg_add(c->agg, m->index, s) != BF_OK)
        c->bad_samples++;
    bf_metrics_sample(c->metrics, s);
    m->last_seq = s->seq;
    if (s->second > m->last_second)
        m->last_second = s->second;
    int fatal = s->fatal && s->fatal[0];
    unsigned act = step(c, m, s->final ? BF_ME_FINAL : BF_ME_SAMPLE);
    /* an agent that stopped before the end on its own (dead-man switch) leaves seconds
     * without its load: the cell is degraded from there on */
    if ((act & BF_MA_CHECK_EARLY) && s->corpus_done && m->last_second + 1 < c->load_s) {
        /* a finite corpus (document.corpus.passes) ended this agent's load: on purpose */
        bf_info("cell %s: agent %s read its corpus slices in %.1f s (second %d of %d); the row's "
                "window ends when the last agent's does",
                c->cell->id, a->id,
                s->corpus_end_ms ? s->corpus_end_ms / 1000.0 : m->last_second + 1.0, m->last_second,
                c->load_s);
    } else if ((act & BF_MA_CHECK_EARLY) && !c->stop_cmd && m->last_second + 1 < c->load_s &&
               !fatal) {
        bf_warn("cell %s: agent %s stopped its load after second %d of %d", c->cell->id, a->id,
                m->last_second, c->load_s);
        bf_cellagg_mark_lost(c->agg, m->index, a->id, m->last_second + 1);
    }
    if (fatal)
        fail_cell(c, "%s", s->fatal);
}

static void on_fetch_chunk(bf__campaign_t *c, bf_fleet_agent_t *a, const Bf__FetchChunk *fc);

static void on_message(void *ctx, bf_fleet_agent_t *a, const Bf__Envelope *env, int is_data)
{
    bf__campaign_t *c = ctx;
    bf_member_t *m = member_of(c, a);
    if (!bf_wire_channel_ok(env->body_case, is_data)) {
        /* our agents never do this: a Sample on control would skip the data channel's
         * ordering and acks. Counted and dropped, as a malformed message is
         * (docs/internals/style.md rule 12). */
        if (c->wrong_channel++ % 100 == 0)
            bf_warn("agent %s (%s): ignored a %s on the %s socket (%llu so far): a client "
                    "that is not bulkfleet-agent %s?",
                    a->id, a->hostname, bf_wire_body_name(env), is_data ? "data" : "control",
                    (unsigned long long)c->wrong_channel, BF_VERSION);
        return;
    }
    switch (env->body_case) {
    case BF__ENVELOPE__BODY_SAMPLE: on_sample(c, a, env->sample); break;
    case BF__ENVELOPE__BODY_READY:
        if (m && env->ready->command_id == c->prepare_cmd) {
            step(c, m, BF_ME_READY);
            bf_fleet_agent_cell(a, BF_FC_READY);
            /* Ready means the scenario loaded: every dictionary file is now cached there */
            for (size_t i = 0; i < bf_scenario_file_count(c->sc); i++)
                bf_fleet_agent_add_file(a, bf_scenario_file(c->sc, i)->sha256_hex);
        }
        break;
    case BF__ENVELOPE__BODY_FETCH_CHUNK: on_fetch_chunk(c, a, env->fetch_chunk); break;
    case BF__ENVELOPE__BODY_ACK:
        if (m && c->start_cmd && env->ack->command_id == c->start_cmd)
            m->start_acked = 1;
        if (m && c->stop_cmd && env->ack->command_id == c->stop_cmd)
            m->stop_acked = 1;
        break;
    case BF__ENVELOPE__BODY_FAILED:
        if (m && c->cell && strcmp(env->failed->cell_id, c->cell->id) == 0 && env->failed->busy &&
            m->state == BF_MEMBER_PREPARING) {
            /* still draining an earlier cell (a coordinator restarted under it): not a failure;
             * the Prepare is sent again soon */
            if (!m->busy_seen)
                bf_info("cell %s: agent %s is still draining another cell; waiting for it",
                        c->cell->id, a->id);
            m->busy_seen = 1;
            c->prepare_soon = 1;
            bf_fleet_agent_cell(a, BF_FC_DRAINING);
        } else if (m && c->cell && strcmp(env->failed->cell_id, c->cell->id) == 0) {
            step(c, m, BF_ME_FAILED);
            fail_cell(c, "cell %s: agent %s (%s): %s", c->cell->id, a->id, a->hostname,
                      env->failed->reason);
        }
        break;
    case BF__ENVELOPE__BODY_DONE:
        if (m && c->cell && strcmp(env->done->cell_id, c->cell->id) == 0)
            bf_fleet_agent_cell(a, BF_FC_RELEASED);
        else if (a->draining)
            bf_fleet_agent_cell(a, BF_FC_RELEASED); /* the earlier cell is over there */
        break;
    default: break;
    }
}

static void on_event(void *ctx, bf_fleet_agent_t *a, int lost)
{
    bf__campaign_t *c = ctx;
    bf_member_t *m = member_of(c, a);
    if (lost)
        bf_metrics_agent_lost(c->metrics);
    if (m == NULL || c->agg == NULL)
        return;
    /* back while the cell still runs: its seconds are gone (degraded stays), but the samples
     * it holds are wanted, so the cell waits for its final one (RETURNED) */
    step(c, m, lost ? BF_ME_LOST : BF_ME_BACK);
}

static void send_stop_to(bf__campaign_t *c, const bf_fleet_agent_t *a, uint64_t cmd,
                         const char *cell_id, const char *reason)
{
    Bf__Stop st = BF__STOP__INIT;
    st.command_id = cmd;
    st.cell_id = (char *)cell_id;
    st.reason = (char *)reason;
    if (cmd == c->end_load_cmd && cmd != 0)
        st.end_load_ms = c->end_load_ms; /* run.warmup: auto ends the load, not an abort */
    Bf__Envelope env;
    bf_wire_init(&env);
    env.body_case = BF__ENVELOPE__BODY_STOP;
    env.stop = &st;
    bf_fleet_send(c->fleet, a, &env, 0);
}

/* 1 the first time (kind, agent, its held cell and state) is seen by this run, then 0: a
 * Hello is repeated (resent until welcomed, again after a reconnect), its log line is not */
static int first_time(bf__campaign_t *c, char kind, const bf_fleet_agent_t *a)
{
    char key[600];
    int n = snprintf(key, sizeof key, "%c|%s|%s|%d", kind, a->id, a->held_cell, (int)a->held_state);
    if (n < 0 || (size_t)n >= sizeof key)
        return 1;
    if (bf_strmap_get(&c->said_held, key, (size_t)n))
        return 0;
    bf_strmap_put(&c->said_held, key, (size_t)n, (void *)1);
    return 1;
}

/* Called at every control Hello, before the Welcome: reconcile what the agent says it is doing
 * with what this coordinator expects (fleet-protocol.md §2.8, "coordinator restart"). */
static int want_resend(void *ctx, const bf_fleet_agent_t *a)
{
    bf__campaign_t *c = ctx;
    bf_member_t *m = member_of(c, a);
    int current = c->cell != NULL && m != NULL && strcmp(a->held_cell, c->cell->id) == 0;
    int busy = a->held_state == BF__AGENT_STATE__AGENT_RUNNING ||
               a->held_state == BF__AGENT_STATE__AGENT_PREPARED;
    if (busy && !current && a->held_cell[0]) {
        /* e.g. loading a cell of the coordinator that ran before us: stop it now */
        if (first_time(c, 's', a))
            bf_warn("agent %s is still %s cell %s, which is not running here; stopping it", a->id,
                    a->held_state == BF__AGENT_STATE__AGENT_RUNNING ? "running" : "prepared for",
                    a->held_cell);
        send_stop_to(c, a, ++c->next_cmd, a->held_cell, "not a cell of this coordinator run");
        if (a->held_state == BF__AGENT_STATE__AGENT_RUNNING)
            bf_fleet_agent_cell((bf_fleet_agent_t *)a, BF_FC_DRAINING);
    }
    if (m != NULL && !current) {
        /* a member that forgot the cell (restarted process): it will never finish it */
        if (step(c, m, BF_ME_FORGOT) & BF_MA_WARN)
            bf_warn("cell %s: agent %s came back without the cell", c->cell->id, a->id);
    }
    if (!current && a->held_cell[0] && a->held_last_seq && first_time(c, 'd', a))
        bf_info("agent %s holds samples of cell %s that this run does not need: discarded", a->id,
                a->held_cell);
    return current;
}

/* Stop to every member of the cell; resend_stops repeats it (same id) until acknowledged. */
static void send_stop(bf__campaign_t *c, const char *reason)
{
    c->stop_cmd = ++c->next_cmd;
    bf_strlcpy(c->stop_reason, reason, sizeof c->stop_reason);
    uint64_t now = bf_clock_mono_us();
    for (uint32_t i = 0; i < c->nmembers; i++) {
        c->members[i].stop_acked = 0; /* a new Stop (after run.warmup: auto's end-load one) */
        send_stop_to(c, c->members[i].agent, c->stop_cmd, c->cell->id, reason);
        c->members[i].last_command_us = now;
    }
}

static void resend_stops(bf__campaign_t *c, uint64_t now)
{
    for (uint32_t i = 0; i < c->nmembers; i++) {
        bf_member_t *m = &c->members[i];
        if (m->stop_acked || m->state == BF_MEMBER_FINISHED ||
            now - m->last_command_us < COMMAND_RESEND_MS * 1000u)
            continue;
        send_stop_to(c, m->agent, c->stop_cmd, c->cell->id, c->stop_reason);
        m->last_command_us = now;
    }
}

/* Start to every member that has not acknowledged it: t = 0 is the same moment for all, so a
 * resend carries the time left, or how late it is (Start.late_ms). */
static void send_starts(bf__campaign_t *c, uint64_t start_us, uint64_t now)
{
    Bf__Start st = BF__START__INIT;
    st.command_id = c->start_cmd;
    st.cell_id = (char *)c->cell->id;
    st.start_in_ms = start_us > now ? (uint32_t)((start_us - now) / 1000u) : 0;
    st.late_ms = start_us > now ? 0 : (uint32_t)((now - start_us) / 1000u);
    for (uint32_t i = 0; i < c->nmembers; i++) {
        bf_member_t *m = &c->members[i];
        if (m->start_acked || m->last_seq > 0 || bf_member_lost(m->state) ||
            (m->last_command_us && now - m->last_command_us < COMMAND_RESEND_MS * 1000u))
            continue;
        Bf__Envelope env;
        bf_wire_init(&env);
        env.body_case = BF__ENVELOPE__BODY_START;
        env.start = &st;
        bf_fleet_send(c->fleet, m->agent, &env, 0);
        bf_fleet_agent_cell(m->agent, BF_FC_STARTED);
        m->last_command_us = now;
    }
}

/* Wait (at most wait_ms, answering the fleet) until none of the agents is draining a cell
 * this coordinator did not start; the Stop that want_resend sent is repeated every 2 s. */
static void wait_drained(bf__campaign_t *c, bf_fleet_agent_t **agents, uint32_t nagents,
                         uint64_t wait_ms)
{
    uint64_t t0 = bf_clock_mono_us(), last_stop = t0;
    int said = 0;
    for (;;) {
        uint32_t draining = 0;
        const bf_fleet_agent_t *first = NULL;
        for (uint32_t i = 0; i < nagents; i++) {
            if (agents[i]->draining && agents[i]->session != BF_AS_LOST) {
                draining++;
                first = first ? first : agents[i];
            }
        }
        uint64_t now = bf_clock_mono_us();
        if (draining == 0 || bf_campaign_signal)
            return;
        if (now - t0 > wait_ms * 1000u) {
            bf_warn("%u agents still drain an earlier cell after %llu s; going on", draining,
                    (unsigned long long)(wait_ms / 1000u));
            return;
        }
        if (!said) {
            bf_info("waiting for %u agent%s (%s first) to finish the cell the previous "
                    "coordinator started (%s) before preparing the next one",
                    draining, draining == 1 ? "" : "s", first->id, first->held_cell);
            said = 1;
        }
        if (now - last_stop > 2000000u) {
            for (uint32_t i = 0; i < nagents; i++)
                if (agents[i]->draining && agents[i]->held_cell[0])
                    send_stop_to(c, agents[i], ++c->next_cmd, agents[i]->held_cell,
                                 "not a cell of this coordinator run");
            last_stop = now;
        }
        bf_fleet_poll(c->fleet, 100);
    }
}

/* ---- files in chunks ---------------------------------------------------------------------- */

/* Bytes [off, off + n) of scenario file f into buf (n bytes): from its content, or for a file
 * not read whole (a vector file: f->data NULL) from f->local on this host. 0, or -1 with errno
 * (the file cannot be read there, or is shorter than when the scenario loaded). */
static int file_bytes(const bf_scenario_file_t *f, size_t off, size_t n, unsigned char *buf)
{
    if (f->data) {
        memcpy(buf, f->data + off, n);
        return 0;
    }
    int fd = open(f->local, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread(fd, buf + got, n - got, (off_t)(off + got));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            if (r == 0)
                errno = EIO;
            break;
        }
        got += (size_t)r;
    }
    int e = errno;
    close(fd);
    errno = e;
    return got == n ? 0 : -1;
}

/* The chunk hashes of every scenario file larger than the chunk size, and of every file not
 * read whole (a vector file, read here a chunk at a time), made once (SHA-256 of each chunk, as
 * of the whole file: bf_sha256). */
static void make_chunks(bf__campaign_t *c)
{
    if (c->chunks != NULL)
        return;
    c->chunk_bytes = c->opts->file_chunk_bytes ? c->opts->file_chunk_bytes : BF_FILE_CHUNK_BYTES;
    /* for integration_corpus_chunks only: serve this many chunks, then no more (a transfer
     * that is cut off, resumed by the next coordinator) */
    const char *max = getenv("BF_TEST_CHUNKS_SERVED_MAX");
    c->chunks_max = max ? strtoull(max, NULL, 10) : 0;
    c->nchunk_files = bf_scenario_file_count(c->sc);
    c->chunks = bf_calloc(c->nchunk_files + 1, sizeof *c->chunks);
    for (size_t i = 0; i < c->nchunk_files; i++) {
        const bf_scenario_file_t *f = bf_scenario_file(c->sc, i);
        if (f->len <= c->chunk_bytes && f->data)
            continue;
        struct bf__file_chunks *fc = &c->chunks[i];
        fc->nchunks = (uint32_t)((f->len + c->chunk_bytes - 1) / c->chunk_bytes);
        fc->hex = bf_calloc(fc->nchunks, sizeof *fc->hex);
        unsigned char *buf = f->data ? NULL : bf_malloc(c->chunk_bytes);
        for (uint32_t k = 0; k < fc->nchunks; k++) {
            size_t off = (size_t)k * c->chunk_bytes;
            size_t n = f->len - off < c->chunk_bytes ? f->len - off : c->chunk_bytes;
            if (f->data) {
                bf_sha256_hex(f->data + off, n, fc->hex[k]);
            } else if (file_bytes(f, off, n, buf) == 0) {
                bf_sha256_hex(buf, n, fc->hex[k]);
            } else {
                /* the agents refuse a chunk that does not match: the cell fails, saying so */
                bf_error("%s: chunk %u cannot be read (%s): the file changed after the scenario "
                         "loaded?",
                         f->local, k, strerror(errno));
                memset(fc->hex[k], '0', 64);
            }
        }
        free(buf);
        char b1[32], b2[32];
        bf_info("%s (%s) goes to agents in %u chunks of %s", f->path,
                bf_units_format_bytes(f->len, b1, sizeof b1), fc->nchunks,
                bf_units_format_bytes(c->chunk_bytes, b2, sizeof b2));
    }
}

void bf__cell_protocol_free_chunks(bf__campaign_t *c)
{
    for (size_t i = 0; c->chunks && i < c->nchunk_files; i++)
        free(c->chunks[i].hex);
    free(c->chunks);
    c->chunks = NULL;
    c->nchunk_files = 0;
}

/* An agent asks for one chunk of a file: sent on control, if the file and chunk exist. */
static void on_fetch_chunk(bf__campaign_t *c, bf_fleet_agent_t *a, const Bf__FetchChunk *fc)
{
    for (size_t i = 0; c->chunks && i < c->nchunk_files; i++) {
        const bf_scenario_file_t *f = bf_scenario_file(c->sc, i);
        if (c->chunks[i].nchunks == 0 || strcmp(f->sha256_hex, fc->sha256) != 0)
            continue;
        if (fc->index >= c->chunks[i].nchunks)
            break;
        if (c->chunks_max && c->chunks_served >= c->chunks_max)
            return;
        size_t off = (size_t)fc->index * c->chunk_bytes;
        Bf__FileChunk ch = BF__FILE_CHUNK__INIT;
        ch.sha256 = (char *)f->sha256_hex;
        ch.index = fc->index;
        ch.content.data = (uint8_t *)f->data + off;
        ch.content.len = f->len - off < c->chunk_bytes ? f->len - off : c->chunk_bytes;
        unsigned char *buf = NULL;
        if (f->data == NULL) { /* a file not read whole: this chunk read now, sent, freed */
            buf = bf_malloc(ch.content.len ? ch.content.len : 1);
            if (file_bytes(f, off, ch.content.len, buf) != 0) {
                bf_error("%s: chunk %u for agent %s cannot be read (%s)", f->local, fc->index,
                         a->id, strerror(errno));
                free(buf);
                return;
            }
            ch.content.data = buf;
        }
        Bf__Envelope env;
        bf_wire_init(&env);
        env.body_case = BF__ENVELOPE__BODY_FILE_CHUNK;
        env.file_chunk = &ch;
        if (bf_fleet_send(c->fleet, a, &env, 0) != BF_OK)
            bf_warn("chunk %u of %s to agent %s not sent now: %s (it asks again)", fc->index,
                    f->path, a->id, strerror(errno));
        free(buf);
        c->last_chunk_us = bf_clock_mono_us();
        c->chunks_served++;
        return;
    }
    bf_warn("agent %s asked for chunk %u of a file with hash %.12s... that this campaign does "
            "not ship; ignored",
            a->id, fc->index, fc->sha256);
}

/* ---- one cell ----------------------------------------------------------------------------- */

static void send_prepares(bf__campaign_t *c, uint32_t repetition, const uint64_t *conc,
                          const uint64_t *rate_milli, const uint64_t *sclients,
                          const uint64_t *srate_milli, const uint32_t *stream_base,
                          uint32_t streams, const uint32_t *conn_base, const uint32_t *search_base)
{
    const bf_run_spec_t *run = bf_scenario_run(c->sc);
    const char *text = bf_scenario_resolved_text(c->sc);
    size_t nfiles = bf_scenario_file_count(c->sc);
    make_chunks(c);
    Bf__FileBlob *blobs = bf_calloc(nfiles + 1, sizeof *blobs);
    char ***chunk_hex = bf_calloc(nfiles + 1, sizeof *chunk_hex);
    Bf__FileBlob **blobp = bf_calloc(nfiles + 1, sizeof *blobp);
    for (size_t i = 0; i < nfiles; i++) {
        const bf_scenario_file_t *f = bf_scenario_file(c->sc, i);
        bf__file_blob__init(&blobs[i]);
        blobs[i].path = (char *)f->path;
        blobs[i].sha256 = (char *)f->sha256_hex;
        blobs[i].content.data = (uint8_t *)f->data;
        blobs[i].content.len = f->len;
        blobs[i].size = f->len;
        if (c->chunks[i].nchunks) { /* in chunks: the agent fetches what it lacks */
            blobs[i].chunk_bytes = (uint32_t)c->chunk_bytes;
            chunk_hex[i] = bf_calloc(c->chunks[i].nchunks, sizeof *chunk_hex[i]);
            for (uint32_t k = 0; k < c->chunks[i].nchunks; k++)
                chunk_hex[i][k] = c->chunks[i].hex[k];
            blobs[i].chunk_sha256 = chunk_hex[i];
            blobs[i].n_chunk_sha256 = c->chunks[i].nchunks;
        }
        blobp[i] = &blobs[i];
    }
    for (uint32_t i = 0; i < c->nmembers; i++) {
        bf_member_t *m = &c->members[i];
        if (m->state != BF_MEMBER_PREPARING)
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
        if (c->base_cell_id != NULL) { /* a find-max step: the base cell with its batch size */
            p.base_cell_id = (char *)c->base_cell_id;
            p.batch_size = c->cell->batch_size;
        }
        p.search_clients = (uint32_t)sclients[i];
        p.search_rate = (double)srate_milli[i] / 1000.0;
        p.stream_base = stream_base[i];
        p.stream_count = streams;
        p.conn_base = conn_base[i];
        p.search_base = search_base[i];
        /* each agent its own seed (streams are disjoint anyway: the RNG mixes in the stream) */
        p.seed = run->seed + c->cell->index * 1000003u + repetition +
                 0x9E3779B97F4A7C15ull * (uint64_t)(i + 1);
        p.warmup_ms = (uint32_t)run->warmup_ms;
        p.duration_ms = (uint32_t)run->duration_ms;
        /* content only for the files this agent has not cached (docs/internals/fleet-protocol.md)
         */
        for (size_t f = 0; f < nfiles; f++) {
            const bf_scenario_file_t *sf = bf_scenario_file(c->sc, f);
            int cached =
                bf_fleet_agent_has_file(m->agent, sf->sha256_hex) || c->chunks[f].nchunks > 0;
            blobs[f].content.data = cached ? NULL : (uint8_t *)sf->data;
            blobs[f].content.len = cached ? 0 : sf->len;
        }
        p.files = blobp;
        p.n_files = nfiles;
        p.agent_index = i;
        p.agent_count = c->nmembers;
        /* target.auth.aws.ship: the coordinator's credentials, as fresh as it has them */
        bf_aws_creds_t creds;
        Bf__AwsCredentials aws = BF__AWS_CREDENTIALS__INIT;
        if (bf_fleet_aws_ship(c->fleet, m->agent, &creds, &aws))
            p.aws = &aws;
        Bf__Envelope env;
        bf_wire_init(&env);
        env.body_case = BF__ENVELOPE__BODY_PREPARE;
        env.prepare = &p;
        if (bf_fleet_send(c->fleet, m->agent, &env, 0) != BF_OK)
            bf_warn("Prepare to agent %s not sent now: %s", m->agent->id, strerror(errno));
        bf_aws_creds_cleanup(&creds);
    }
    for (size_t i = 0; i < nfiles; i++)
        free(chunk_hex[i]);
    free(chunk_hex);
    free(blobp);
    free(blobs);
}

void bf__cell_protocol_publish(bf__campaign_t *c, size_t k, size_t ncells, const char *phase,
                               int32_t second)
{
    if (c->metrics == NULL)
        return;
    bf_live_t l;
    memset(&l, 0, sizeof l);
    l.campaign = c->campaign_id;
    l.scenario = bf_scenario_name(c->sc);
    l.cells_total = (uint32_t)ncells;
    l.cells_done = (uint32_t)k;
    l.cell = c->cell;
    l.cell_name = c->cell_name;
    l.phase = phase;
    l.second = second;
    l.load_s = (uint32_t)c->load_s;
    if (c->agg && second >= 0)
        bf_cellagg_live(c->agg, second, &l.docs_per_s, &l.errors_per_s, &l.rejected_per_s);
    for (size_t i = 0; i < bf_fleet_count(c->fleet); i++)
        l.agents_connected += bf_fleet_agent(c->fleet, i)->session != BF_AS_LOST;
    for (uint32_t i = 0; i < c->nmembers; i++)
        l.agents_lost_cell += bf_member_lost(c->members[i].state);
    bf_metrics_publish(c->metrics, &l);
}

/* the find-max part of a progress line (bf_fm_progress) for the step running now */
static void fm_progress(const bf__campaign_t *c, char *buf, size_t size)
{
    uint64_t now = bf_clock_mono_us();
    uint64_t left_ms = c->fm_deadline_us > now ? (c->fm_deadline_us - now) / 1000u : 0;
    bf_fm_progress(c->fm_step, left_ms, c->fm_max_time_ms, c->fm_combos_after, buf, size);
}

/* Where the running repetition is in the campaign: "cell 3/8 <id>" without rounds; with
 * them "run 11/24 (round 2/3, cell 3/8) <id>-r2" (k of n counts repetitions then). */
static void run_place(const bf__campaign_t *c, size_t k, size_t n, char *buf, size_t size)
{
    if (c->nrounds > 1 && c->open_text[0]) /* run.repeat: auto, past its first test */
        snprintf(buf, size, "run %zu/%zu at most (round %u/%u at most, cell %u; open: %s) %s",
                 k + 1, n, c->round, c->nrounds, c->position, c->open_text, c->cell_name);
    else if (c->nrounds > 1)
        snprintf(buf, size, "run %zu/%zu (round %u/%u, cell %u/%zu) %s", k + 1, n, c->round,
                 c->nrounds, c->position, n / c->nrounds, c->cell_name);
    else
        snprintf(buf, size, "cell %zu/%zu %s", k + 1, n, c->cell_name);
}

static void progress(bf__campaign_t *c, size_t k, size_t ncells, int32_t second,
                     uint64_t elapsed_ms, uint64_t remaining_ms)
{
    if (c->opts->quiet)
        return;
    uint64_t ok = 0, err = 0, rej = 0;
    bf_cellagg_live(c->agg, second, &ok, &err, &rej);
    /* requests that never reached the cluster are no document's error (they are sent again
     * after a back-off, so a second may have none): named with the cell's count so far, or a
     * fleet that cannot connect at all shows "0 docs/s, errors 0" */
    uint64_t connect = 0;
    for (int32_t i = 0; i <= second; i++) {
        const bf_counters_t *sc = bf_cellagg_second(c->agg, (size_t)i);
        connect += sc ? sc->req_connect_error : 0;
    }
    char conn[96] = "", conn_tty[64] = "";
    if (connect) {
        snprintf(conn, sizeof conn, ", connect failures %" PRIu64 " so far (requests not sent)",
                 connect);
        snprintf(conn_tty, sizeof conn_tty, "  connect failed %" PRIu64, connect);
    }
    uint32_t lost = 0;
    for (uint32_t i = 0; i < c->nmembers; i++)
        lost += bf_member_lost(c->members[i].state);
    const bf_run_spec_t *run = bf_scenario_run(c->sc);
    char phase[48]; /* "measure 4/10s": the second within its phase, not since the cell began */
    bf_cellagg_phase(second, (uint32_t)(run->warmup_ms / 1000), (uint32_t)(run->duration_ms / 1000),
                     phase, sizeof phase);
    char el[32], rem[32];
    bf_units_format_duration_ms(elapsed_ms, el, sizeof el);
    bf_units_format_duration_ms(remaining_ms, rem, sizeof rem);
    if (c->fm_step != NULL) {
        /* a find-max step: "cell 3/3, left ~3 s" would count the steps run so far and the
         * step's own seconds; the phase, the step and the search's time bound mean something */
        char fm[300];
        fm_progress(c, fm, sizeof fm);
        if (isatty(STDERR_FILENO)) {
            char line[512];
            snprintf(line, sizeof line,
                     "%s  %s  %" PRIu64 " docs/s  errors %" PRIu64 "%s  429 %" PRIu64
                     "  elapsed %s",
                     fm, phase, ok, err, conn_tty, rej, el);
            fprintf(stderr, "\r\033[K%s", line); /* the live line, rewritten every second */
            fflush(stderr);
        } else if (second % 5 == 4) {
            bf_info("%s; %s: %" PRIu64 " docs/s, errors %" PRIu64 "%s, 429 %" PRIu64
                    ", lost agents %u, elapsed %s",
                    fm, phase, ok, err, conn, rej, lost, el);
        }
        return;
    }
    char where[600];
    run_place(c, k, ncells, where, sizeof where);
    if (isatty(STDERR_FILENO)) {
        char line[840];
        snprintf(line, sizeof line,
                 "%s  %s  %" PRIu64 " docs/s  errors %" PRIu64 "%s  429 %" PRIu64
                 "  lost %u  elapsed %s  left ~%s",
                 where, phase, ok, err, conn_tty, rej, lost, el, rem);
        fprintf(stderr, "\r\033[K%s", line); /* the live line, rewritten every second */
        fflush(stderr);
    } else if (second % 5 == 4) {
        bf_info("%s %s: %" PRIu64 " docs/s, errors %" PRIu64 "%s, 429 %" PRIu64
                ", lost agents %u, elapsed %s, left ~%s",
                where, phase, ok, err, conn, rej, lost, el, rem);
    }
}

/* The start of a cell: the campaign's per-cell fields reset, the cell's name and its first
 * line (a find-max step's says the step and the search's bound). */
static void cell_begin(bf__campaign_t *c, const bf_cell_t *cell, uint32_t repetition,
                       uint32_t nagents, size_t k, size_t ncells)
{
    const bf_run_spec_t *run = bf_scenario_run(c->sc);
    uint32_t repeat = run->repeat ? run->repeat : 1;
    c->cell = cell;
    c->cell_failed = 0;
    c->reason[0] = '\0';
    c->stop_cmd = 0;
    c->end_load_cmd = 0;
    c->end_load_ms = 0;
    c->start_cmd = 0;
    c->gaps = 0;
    c->bad_samples = 0; /* counted per cell (it used to add up over the campaign) */
    c->load_s = (int32_t)((run->warmup_ms + run->duration_ms + 999) / 1000);
    c->load_started_ms = 0;
    bf_results_cell_name(cell, repetition, repeat, c->cell_name, sizeof c->cell_name);
    if (c->fm_step != NULL) {
        char fm[300];
        fm_progress(c, fm, sizeof fm);
        bf_info("%s: cell %s (shards %u, replicas %u) on %u agent%s", fm, c->cell_name,
                cell->shards, cell->replicas, nagents, nagents == 1 ? "" : "s");
    } else {
        char where[600];
        run_place(c, k, ncells, where, sizeof where);
        bf_info("%s (shards %u, replicas %u, batch %u, concurrency %u%s) on %u agent%s", where,
                cell->shards, cell->replicas, cell->batch_size, cell->concurrency,
                cell->target_rate > 0 ? ", target rate" : "", nagents, nagents == 1 ? "" : "s");
    }
}

/* The cell's members (agent i is member i: agents[i]->user = i + 1), each agent's cores and
 * first stream (its threads numbered across the fleet) into cores / stream_base (nagents
 * each); returns the fleet's streams. */
static uint32_t cell_members(bf__campaign_t *c, bf_fleet_agent_t **agents, uint32_t nagents,
                             uint32_t *cores, uint32_t *stream_base)
{
    uint32_t streams = 0;
    c->nmembers = nagents;
    c->members = bf_calloc(nagents, sizeof *c->members);
    for (uint32_t i = 0; i < nagents; i++) {
        c->members[i].agent = agents[i];
        c->members[i].index = i;
        agents[i]->user = (void *)(uintptr_t)(i + 1);
        c->members[i].last_second = -1;
        cores[i] = agents[i]->cores;
        stream_base[i] = streams;
        streams += agents[i]->threads;
    }
    return streams;
}

/* The cell cannot start: its index could not be made ready (a cluster unreachable past
 * --cluster-wait stops the campaign), or an agent would get no bulk request in flight (no
 * search client in a search-only cell). Fails the cell and returns 1, else 0. */
static int cell_cannot_start(bf__campaign_t *c, const bf_cell_t *cell, const bf__cell_index_t *ix,
                             const bf_split_cell_t *sh, uint32_t nagents)
{
    if (ix->rc != BF_OK) {
        if (ix->unreachable) {
            c->cluster_gone = 1;
            fail_cell(
                c, "%s (unreachable for %llu s; the campaign stops)", ix->diag.msg,
                (unsigned long long)((c->opts->cluster_wait_ms ? c->opts->cluster_wait_ms : 60000) /
                                     1000u));
        } else {
            bf_strlcpy(c->setup_error, ix->diag.msg, sizeof c->setup_error);
            fail_cell(c, "%s", ix->diag.msg);
        }
        return 1;
    }
    for (uint32_t i = 0; i < nagents; i++) {
        if (cell->concurrency == 0 && sh->sclients[i] == 0) {
            fail_cell(c,
                      "cell %s: search_clients %u is less than the %u agents of a search-only "
                      "cell (each needs a search client); run fewer agents (--local-agents, "
                      "--agents or run.agents) or raise search_clients",
                      cell->id, cell->search_clients, nagents);
            return 1;
        }
        if (cell->concurrency > 0 && sh->conc[i] == 0) {
            fail_cell(c,
                      "cell %s: concurrency %u is less than the %u agents (each needs at "
                      "least one bulk request in flight); run fewer agents (--local-agents, "
                      "--agents or run.agents in the scenario) or raise concurrency",
                      cell->id, cell->concurrency, nagents);
            return 1;
        }
    }
    return 0;
}

/* Prepare -> all Ready, resending on timeout (a repeated command id is a no-op); the wait
 * goes on while agents still fetch files in chunks. An agent lost here (nothing measured
 * yet) makes the cell run again without it (*retry), unless retries are used up. On a
 * failure, an interruption (*interrupted) or a retry the agents are told to stop. Returns 1
 * when every member is ready. */
static int cell_prepare(bf__campaign_t *c, const bf_cell_t *cell, uint32_t repetition,
                        bf_fleet_agent_t **agents, uint32_t nagents, const bf_split_cell_t *sh,
                        const uint32_t *stream_base, uint32_t streams, int *interrupted, int *retry)
{
    c->prepare_cmd = ++c->next_cmd;
    uint64_t t0 = bf_clock_mono_us(), last_send = 0;
    for (;;) {
        uint64_t now = bf_clock_mono_us();
        if (now - last_send > (c->prepare_soon ? BUSY_RESEND_MS : RESEND_MS) * 1000u) {
            c->prepare_soon = 0;
            send_prepares(c, repetition, sh->conc, sh->rate, sh->sclients, sh->srate, stream_base,
                          streams, sh->conn_base, sh->search_base);
            last_send = now;
        }
        bf_fleet_poll(c->fleet, 100);
        if (bf_campaign_signal) {
            *interrupted = 1;
            break;
        }
        uint32_t ready = 0, lost = 0;
        for (uint32_t i = 0; i < nagents; i++) {
            ready += c->members[i].state != BF_MEMBER_PREPARING &&
                     c->members[i].state != BF_MEMBER_FAILED;
            lost += agents[i]->session == BF_AS_LOST;
        }
        if (c->cell_failed || ready == nagents)
            break;
        if (lost && c->no_retry) {
            fail_cell(c, "cell %s: agents were lost while preparing, %d times", cell->id,
                      BF__MAX_CELL_RETRIES + 1);
            break;
        }
        if (lost) {
            /* nothing measured yet: run the cell again with the agents that are left */
            bf_warn("cell %s: an agent was lost while preparing; preparing again without it",
                    cell->id);
            *retry = 1;
            break;
        }
        /* files in chunks: the wait goes on while agents still fetch them */
        uint64_t since = c->last_chunk_us > t0 ? c->last_chunk_us : t0;
        now = bf_clock_mono_us(); /* a chunk may have been served during the poll */
        if (now > since && now - since > PREPARE_TIMEOUT_MS * 1000u) {
            fail_cell(c, "cell %s: only %u of %u agents were ready after %d s%s", cell->id, ready,
                      nagents, PREPARE_TIMEOUT_MS / 1000,
                      c->last_chunk_us > t0 ? " without asking for another file chunk" : "");
            break;
        }
    }
    if (c->cell_failed || *interrupted || *retry) {
        send_stop(c, c->cell_failed ? "cell failed while preparing"
                     : *interrupted ? "interrupted"
                                    : "preparing again");
        return 0;
    }
    return 1;
}

/* An interruption (SIGINT/SIGTERM) during the load, at now: the row of an interrupted cell
 * covers the seconds measured in full before it (as the standalone agent's), and the
 * cluster's figures the same seconds, not the planned window; the agents are told to stop. */
static void cell_interrupt(bf__campaign_t *c, uint64_t start_us, uint64_t now)
{
    if (now > start_us) {
        int32_t sec = (int32_t)((now - start_us) / 1000000u);
        bf_cellagg_stop_at(c->agg, sec);
        bf_telemetry_stop_at(c->tele, sec);
    } else {
        bf_cellagg_stop_at(c->agg, 0);
        bf_telemetry_stop_at(c->tele, 0);
    }
    send_stop(c, "coordinator interrupted");
}

/* The latest second every live agent has reported (its numbers are complete), shown when it
 * is new: progress line, live metrics, the metrics store. */
static void cell_show_second(bf__campaign_t *c, uint32_t nagents, size_t k, size_t ncells,
                             uint64_t campaign_start_us, uint64_t now, int32_t *shown)
{
    const bf_run_spec_t *run = bf_scenario_run(c->sc);
    uint64_t load_ms = run->warmup_ms + run->duration_ms;
    int32_t sec = INT32_MAX;
    for (uint32_t i = 0; i < nagents; i++)
        if (!bf_member_lost(c->members[i].state) && c->members[i].last_second < sec)
            sec = c->members[i].last_second;
    if (sec == INT32_MAX || sec < 0 || sec <= *shown)
        return;
    *shown = sec;
    uint64_t elapsed_ms = (now - campaign_start_us) / 1000u;
    /* the runs after this one (every repetition of every round counts) take what the runs so
     * far took on average, or before any has finished run.warmup (this one may have had
     * run.first_warmup) + run.duration + setup */
    uint64_t per_cell_ms = c->runs_done ? c->runs_us / c->runs_done / 1000u
                                        : c->warmup_after_ms + run->duration_ms + 5000;
    uint64_t left_ms = (uint64_t)(ncells - k - 1) * per_cell_ms +
                       (load_ms > (uint64_t)sec * 1000u ? load_ms - (uint64_t)sec * 1000u : 0);
    progress(c, k, ncells, sec, elapsed_ms, left_ms);
    bf__cell_protocol_publish(c, k, ncells,
                              (uint64_t)sec * 1000u < run->warmup_ms ? "warmup" : "measure", sec);
    bf__mstore_second(c, sec); /* the metrics store, live (bf_campaign_mstore.c) */
}

/* run.warmup: auto (docs/scenario.md): the merged docs/s of each complete second of the warmup
 * so far, until bf_steady_warmup_over says it is steady or the planned warmup (the bound) is
 * over. Then the window starts at the first second no sample has arrived for yet (so nothing
 * already taken as warmup moves into it), the cluster's window with it, and the agents that can
 * (capability "end_load") are told to end the load run.duration later, in-flight requests
 * finishing as at a planned end; with an agent that cannot, the load runs to its planned end
 * and the seconds after the window are tail. */
typedef struct warm_auto {
    int on;         /* run.warmup: auto and not decided yet */
    uint32_t max_s; /* the bound: the planned warmup */
    double *dps;    /* [max_s + 1] */
    int32_t upto;   /* seconds in dps */
} warm_auto_t;

/* the mean of the k-th last block of BF_WARMUP_BLOCK_S seconds of y[0..n) (k = 1: the last) */
static double block_mean(const double *y, int32_t n, int k)
{
    double s = 0;
    for (int32_t i = n - k * BF_WARMUP_BLOCK_S; i < n - (k - 1) * BF_WARMUP_BLOCK_S; i++)
        s += i >= 0 ? y[i] : 0;
    return s / BF_WARMUP_BLOCK_S;
}

static void warm_auto_step(bf__campaign_t *c, warm_auto_t *wa, int32_t shown)
{
    const bf_run_spec_t *run = bf_scenario_run(c->sc);
    while (wa->on && wa->upto <= shown && wa->upto <= (int32_t)wa->max_s) {
        uint64_t ok = 0, err = 0, rej = 0;
        bf_cellagg_live(c->agg, wa->upto, &ok, &err, &rej);
        wa->dps[wa->upto++] = (double)ok;
        int steady = bf_steady_warmup_over(wa->dps, (size_t)wa->upto);
        if (!steady && wa->upto < (int32_t)wa->max_s)
            continue;
        wa->on = 0;
        uint32_t w = (uint32_t)wa->upto, seen = bf_cellagg_seconds_seen(c->agg);
        if (seen > w)
            w = seen;
        char mx[32];
        bf_units_format_duration_ms((uint64_t)wa->max_s * 1000u, mx, sizeof mx);
        if (steady && w >= wa->max_s) {
            bf_cellagg_set_warmup(c->agg, wa->max_s, wa->max_s);
            return; /* steady only at the bound: the planned window */
        }
        if (!steady) {
            bf_cellagg_set_warmup(c->agg, wa->max_s, wa->max_s);
            bf_warn("cell %s: docs/s was not steady within run.warmup_max %s (run.warmup: auto): "
                    "the window starts there; the row's warmup_s says so",
                    c->cell_name, mx);
            return;
        }
        if (bf_cellagg_set_warmup(c->agg, w, wa->max_s) != BF_OK)
            return;
        uint32_t d_s = (uint32_t)(run->duration_ms / 1000);
        bf_telemetry_set_warmup(c->tele, w);
        bf_scenario_set_warmup(c->sc, (uint64_t)w * 1000u); /* the progress line's phase */
        c->load_s = (int32_t)(w + d_s);
        int all = 1;
        for (uint32_t i = 0; i < c->nmembers; i++)
            all &= c->members[i].agent->can_end_load;
        bf_info("cell %s: docs/s steady after %u s of warmup (run.warmup: auto, at most %s: "
                "%.0f then %.0f docs/s over the last two %d-s blocks); measuring %u s%s",
                c->cell_name, w, mx, block_mean(wa->dps, wa->upto, 2),
                block_mean(wa->dps, wa->upto, 1), BF_WARMUP_BLOCK_S, d_s,
                all ? ""
                    : " (an agent cannot end its load early: the load runs to its planned "
                      "end, the seconds after the window are tail)");
        if (all) {
            /* a Stop with end_load_ms: not an abort (bf_agent.c); resent like any Stop until
             * acknowledged (resend_stops) */
            c->end_load_ms = (w + d_s) * 1000u;
            char why[128];
            snprintf(why, sizeof why, "run.warmup: auto: steady after %u s", w);
            c->end_load_cmd = c->next_cmd + 1; /* the id send_stop takes */
            send_stop(c, why);
        }
    }
}

/* Start and the load: every agent starts START_DELAY_MS after receipt, on its own monotonic
 * clock, Start resent (same id, with the time left or how late) until acknowledged; the
 * cluster's telemetry every second without blocking this loop. The loop ends when every
 * member is finished (its final sample taken, or lost and not back to resend what it
 * holds), at the deadline (load + request timeout + grace; the members still out are
 * marked), or soon after a stop when the results directory takes no more samples. An
 * interruption or a failed cell sends Stop and shortens the deadline. */
static void cell_load(bf__campaign_t *c, const bf_cell_t *cell, bf_fleet_agent_t **agents,
                      uint32_t nagents, size_t k, size_t ncells, uint64_t campaign_start_us,
                      int *interrupted, int32_t *shown)
{
    const bf_run_spec_t *run = bf_scenario_run(c->sc);
    const bf_request_spec_t *rq = bf_scenario_request(c->sc);
    c->start_cmd = ++c->next_cmd;
    uint64_t start_us = bf_clock_mono_us() + START_DELAY_MS * 1000u;
    c->load_started_ms = (int64_t)(bf_clock_wall_us() / 1000u) + START_DELAY_MS;
    for (uint32_t i = 0; i < nagents; i++)
        c->members[i].last_command_us = 0;
    send_starts(c, start_us, bf_clock_mono_us());
    bf_telemetry_start(c->tele, cell, start_us, (uint32_t)(run->warmup_ms / 1000),
                       (uint32_t)(run->duration_ms / 1000));
    uint64_t load_ms = run->warmup_ms + run->duration_ms;
    uint64_t deadline = start_us + (load_ms + rq->timeout_ms + DONE_GRACE_MS) * 1000u;
    warm_auto_t wa = {.on = run->warmup_auto && run->warmup_ms >= 1000,
                      .max_s = (uint32_t)(run->warmup_ms / 1000)};
    if (wa.on)
        wa.dps = bf_calloc((size_t)wa.max_s + 1, sizeof *wa.dps);
    int stop_sent = 0;
    uint64_t stop_sent_us = 0;
    for (;;) {
        bf_fleet_poll(c->fleet, 100);
        samples_ack(c);
        uint64_t now = bf_clock_mono_us();
        if (stop_sent || c->end_load_cmd)
            resend_stops(c, now);
        if (!stop_sent)
            send_starts(c, start_us, now);
        if (bf_campaign_signal && !stop_sent) {
            *interrupted = 1;
            cell_interrupt(c, start_us, now);
            stop_sent = 1;
            stop_sent_us = now;
            deadline = now + 5000000u;
        }
        if (c->cell_failed && !stop_sent) {
            send_stop(c, c->reason);
            stop_sent = 1;
            stop_sent_us = now;
            deadline = now + (rq->timeout_ms + 5000u) * 1000u;
        }
        if (stop_sent && bf_results_error(c->res)) {
            /* the results directory cannot take more samples: waiting for the final ones
             * would only wait for the deadline. Once every member has the Stop (or after
             * STOP_ACK_WAIT_MS) the cell ends with what is on disk. */
            uint32_t acked = 0;
            for (uint32_t i = 0; i < nagents; i++)
                acked += c->members[i].stop_acked || bf_member_done(c->members[i].state);
            if (acked == nagents || now > stop_sent_us + STOP_ACK_WAIT_MS * 1000u)
                break;
        }
        uint32_t finished = 0;
        for (uint32_t i = 0; i < nagents; i++)
            finished += bf_member_done(c->members[i].state);
        if (finished == nagents)
            break;
        if (now > deadline) {
            for (uint32_t i = 0; i < nagents; i++) {
                bf_member_t *m = &c->members[i];
                if (step(c, m, BF_ME_DEADLINE) & BF_MA_WARN)
                    bf_warn("agent %s did not finish cell %s in time", agents[i]->id, cell->id);
            }
            break;
        }
        cell_show_second(c, nagents, k, ncells, campaign_start_us, now, shown);
        if (wa.on && !stop_sent && !c->cell_failed)
            warm_auto_step(c, &wa, *shown);
    }
    free(wa.dps);
    if (!c->opts->quiet && isatty(STDERR_FILENO))
        fputs("\r\033[K", stderr);
}

/* The cluster's side of the cell: telemetry stopped (before _refresh/_count, so those do not
 * show up as indexing; a cell that ended at the end of its corpus over the same window as the
 * row's, to the second after it); its lines for telemetry/<cell>[.aborted].ndjson into *tnd
 * (written with the cell's file: cell_files), its summary into *side. */
static void cell_telemetry(bf__campaign_t *c, const bf_cell_t *cell, int interrupted,
                           bf_cluster_side_t *side, bf_buf_t *tnd)
{
    bf_telemetry_summary_t ts;
    uint64_t corpus_end_ms = c->agg ? bf_cellagg_corpus_end_ms(c->agg) : 0;
    if (corpus_end_ms && !interrupted)
        bf_telemetry_stop_at(c->tele, (int32_t)((corpus_end_ms + 999) / 1000));
    bf_telemetry_stop(c->tele, &ts, tnd);
    if (ts.ticks_failed)
        bf_warn("cell %s: %u of %u telemetry samples got no answer", cell->id, ts.ticks_failed,
                ts.ticks);
    *side = (bf_cluster_side_t){.write_queue_max = ts.write_queue_max,
                                .write_rejected = ts.write_rejected,
                                .hot_spot_ratio = ts.hot_spot_ratio,
                                .cluster_docs_per_s = ts.cluster_docs_per_s,
                                .transport_rx_bytes = ts.transport_rx_bytes,
                                .transport_tx_bytes = ts.transport_tx_bytes};
}

/* The files of a cell's end, written off the fleet's thread (bf__cell_setup_offload) in this
 * order: telemetry/<cell>[.aborted].ndjson, then cells/<cell>[.aborted].ndjson (bf_finish_write:
 * a failure leaves the row unverified and bf_results_error set, so the campaign ends with exit
 * 3 and the resume command as for any other results file). */
typedef struct cell_files {
    bf_results_t *res;
    const char *name;
    int aborted;
    const bf_buf_t *tnd; /* the telemetry's lines (len 0: none) */
    const bf_cellagg_t *agg;
    const char *const *ids;
    uint32_t nagents;
    bf_row_t *row;
} cell_files_t;

static void cell_files(void *arg)
{
    cell_files_t *f = arg;
    if (f->tnd->len) {
        char *rel = bf_asprintf("telemetry/%s%s.ndjson", f->name, f->aborted ? ".aborted" : "");
        bf_results_write_file(f->res, rel, f->tnd->data, f->tnd->len);
        free(rel);
    }
    bf_finish_write(f->res, f->name, f->aborted, f->agg, f->ids, f->nagents, f->row);
}

/* The load is over: the row. From here the fleet runs inside the blocking calls (the
 * telemetry's stop, _refresh, _count, the store size: bf__cell_setup_tick), and nothing it
 * hears may change the aggregate under the row being computed: the members are detached, so
 * a sample that comes now is acknowledged and dropped as one of an earlier cell, as it was
 * when it was read after the cell, and a member's Hello is not taken for the cell. */
static void cell_finish(bf__campaign_t *c, const bf_cell_t *cell, const bf__cell_index_t *ix,
                        bf_fleet_agent_t **agents, uint32_t nagents, int interrupted,
                        int64_t search_before, size_t k, size_t ncells, int32_t shown,
                        bf_row_t *row)
{
    for (uint32_t i = 0; i < nagents; i++)
        agents[i]->user = NULL;
    bf_cluster_side_t side;
    bf_buf_t tnd;
    bf_buf_init(&tnd, 0);
    cell_telemetry(c, cell, interrupted, &side, &tnd);
    if (c->bad_samples)
        bf_warn("cell %s: %llu samples had invalid histograms (counted, histograms dropped)",
                cell->id, (unsigned long long)c->bad_samples);
    bf_cell_end_t end = {.yellow = ix->yellow,
                         .aborted = interrupted,
                         .failure = c->cell_failed ? c->reason : NULL,
                         .baseline = ix->baseline,
                         .mismatch = ix->mismatch,
                         .index_shards = ix->index_shards,
                         .index_replicas = ix->index_replicas,
                         .cluster = &side,
                         .search_total_before = search_before,
                         .round = c->round,
                         .position = c->position,
                         .started_at_ms = c->load_started_ms,
                         .force_merge = bf_scenario_index(c->sc)->force_merge,
                         .force_merge_timeout_ms =
                             (long)bf_scenario_index(c->sc)->force_merge_timeout_ms};
    const char **ids = bf_calloc(nagents + 1, sizeof *ids);
    for (uint32_t i = 0; i < nagents; i++)
        ids[i] = agents[i]->id;
    bf_finish_cell(NULL, c->es, cell, c->cell_name, c->agg, ids, nagents, &end, row);
    /* a slow results disk holds up neither the agents' Pings nor their Hellos */
    cell_files_t files = {.res = c->res,
                          .name = c->cell_name,
                          .aborted = interrupted,
                          .tnd = &tnd,
                          .agg = c->agg,
                          .ids = ids,
                          .nagents = nagents,
                          .row = row};
    bf__cell_setup_offload(c, cell_files, &files);
    bf_buf_cleanup(&tnd);
    free(ids);
    bf__cell_protocol_publish(c, k + 1, ncells, "finish", shown);
    if (c->gaps)
        bf_info("cell %s: %llu samples arrived ahead of a missing one and were taken when resent",
                cell->id, (unsigned long long)c->gaps);
}

int bf__cell_protocol_run(bf__campaign_t *c, const bf_cell_t *cell, uint32_t repetition,
                          bf_fleet_agent_t **agents, uint32_t nagents, size_t k, size_t ncells,
                          uint64_t campaign_start_us, bf_row_t *row)
{
    const bf_run_spec_t *run = bf_scenario_run(c->sc);
    const bf_request_spec_t *rq = bf_scenario_request(c->sc);
    int retry = 0, interrupted = 0;
    int32_t shown = -1;         /* the latest second shown (progress, live metrics) */
    int64_t search_before = -1; /* the cluster's query phases before the load (verification) */
    cell_begin(c, cell, repetition, nagents, k, ncells);
    c->setup_error[0] = '\0';
    /* agents still draining a cell of the coordinator before us (killed under it) may have
     * bulk requests in flight: the index is recreated only once they are done */
    wait_drained(c, agents, nagents, rq->timeout_ms + DRAIN_GRACE_MS);
    bf__cell_index_t ix;
    bf__cell_setup_index(c, cell, &ix);
    uint32_t *cores = bf_calloc(nagents, sizeof *cores);
    uint32_t *stream_base = bf_calloc(nagents, sizeof *stream_base);
    uint32_t streams = cell_members(c, agents, nagents, cores, stream_base);
    bf_split_cell_t sh; /* shares weighted by cores (docs/internals/fleet-protocol.md) */
    bf_split_cell_init(&sh, cell->concurrency, cell->target_rate, cell->search_clients,
                       cell->search_rate, cores, nagents);
    c->agg = bf_cellagg_new(cell, repetition, nagents, cores, (uint32_t)(run->warmup_ms / 1000),
                            (uint32_t)(run->duration_ms / 1000));
    bf_cellagg_set_queries(c->agg, bf_scenario_search(c->sc));
    if (c->track_p99)
        bf_cellagg_track_p99(c->agg);
    c->samples = bf_results_samples_open(c->res, c->cell_name);
    c->slog = bf_samplelog_new(c->samples, nagents, 0);
    c->held_back = 0;
    bf_metrics_cell_start(c->metrics);
    bf__cell_protocol_publish(c, k, ncells, "prepare", -1);
    if (!cell_cannot_start(c, cell, &ix, &sh, nagents) &&
        cell_prepare(c, cell, repetition, agents, nagents, &sh, stream_base, streams, &interrupted,
                     &retry)) {
        if (cell->search_clients > 0)
            search_before = bf_cluster_search_total(c->es, cell);
        cell_load(c, cell, agents, nagents, k, ncells, campaign_start_us, &interrupted, &shown);
    }
    samples_drain(c); /* before the members are detached: their last samples acknowledged */
    if (!retry)
        cell_finish(c, cell, &ix, agents, nagents, interrupted, search_before, k, ncells, shown,
                    row);
    for (uint32_t i = 0; i < nagents; i++) {
        bf_fleet_agent_cell(agents[i], BF_FC_RELEASED);
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
    bf_split_cell_cleanup(&sh);
    return retry ? BF__CELL_RETRY : interrupted ? BF_E_INTR : BF_OK;
}

void bf__cell_protocol_attach(bf__campaign_t *c)
{
    bf_fleet_set_handler(c->fleet, on_message, on_event, c);
    bf_fleet_set_resend(c->fleet, want_resend);
}
