/* SPDX-License-Identifier: MIT */
/* bf_cell_setup.c — what a campaign sets up before cells run (binds, CURVE keys, local agents)
 * and before each cell (its indices). */
#include "bf_campaign_int.h"

#include "bf_clock.h"
#include "bf_keys.h"
#include "bf_local.h"
#include "bf_log.h"
#include "bf_mem.h"
#include "bf_prefill.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* bf_campaign.h: set by the coordinator's signal handler. Defined here, in the file every other
 * file of the campaign (bf_cell_protocol.c, bf_cell_attempt.c, bf_findmax_run.c, bf_campaign.c)
 * stands on, so that reading the flag adds no arrow back up (scripts/deps.py). */
volatile int bf_campaign_signal = 0;

void bf__cell_setup_tick(void *ctx)
{
    bf__campaign_t *c = ctx;
    bf_fleet_poll(c->fleet, 0);
}

typedef struct offload {
    void (*fn)(void *);
    void *arg;
    atomic_int done;
} offload_t;

static void *offload_run(void *p)
{
    offload_t *o = p;
    o->fn(o->arg);
    atomic_store(&o->done, 1);
    return NULL;
}

void bf__cell_setup_offload(bf__campaign_t *c, void (*fn)(void *), void *arg)
{
    offload_t o = {.fn = fn, .arg = arg};
    atomic_init(&o.done, 0);
    pthread_t th;
    if (c->fleet == NULL || pthread_create(&th, NULL, offload_run, &o) != 0) {
        fn(arg);
        return;
    }
    while (!atomic_load(&o.done))
        bf_fleet_poll(c->fleet, BF__OFFLOAD_WAKE_MS);
    pthread_join(th, NULL);
}

typedef struct matrix_job {
    bf_results_t *res;
    const bf_scenario_t *sc;
    const bf_row_t *rows;
    size_t nrows;
    int rc;
} matrix_job_t;

static void matrix_job_run(void *p)
{
    matrix_job_t *j = p;
    j->rc = bf_results_write_matrix(j->res, j->sc, j->rows, j->nrows);
}

int bf__cell_setup_write_matrix(bf__campaign_t *c, const bf_row_t *rows, size_t nrows)
{
    matrix_job_t j = {.res = c->res, .sc = c->sc, .rows = rows, .nrows = nrows, .rc = BF_OK};
    bf__cell_setup_offload(c, matrix_job_run, &j);
    return j.rc;
}

#define CLUSTER_WAIT_DEFAULT_MS 60000
#define CLUSTER_BACKOFF_MAX_MS 8000

static void prepare_once(bf__campaign_t *c, const bf_cell_t *cell, bf__cell_index_t *out)
{
    memset(out, 0, sizeof *out);
    /* every cluster call keeps the fleet answered (c->es ticks it: bf__cell_setup_fleet) */
    /* with a search section: a search-only cell may keep its index and an empty one is
     * prefilled (bf_prefill.h); without one this is bf_cluster_prepare_cell_tick */
    out->rc = bf_prefill_prepare_cell(c->es, c->sc, cell, &c->owner, c->cluster.data_nodes, 120000,
                                      &out->yellow, bf__cell_setup_tick, c, &out->diag);
    if (out->rc != BF_OK)
        return;
    out->baseline = bf_cluster_baseline(c->es, c->sc, cell);
    if (bf_cluster_existing_mismatch(c->es, c->sc, cell, out->mismatch, sizeof out->mismatch,
                                     &out->index_shards, &out->index_replicas))
        bf_warn("cell %s: %s", cell->id, out->mismatch);
}

void bf__cell_setup_index(bf__campaign_t *c, const bf_cell_t *cell, bf__cell_index_t *out)
{
    uint64_t limit_ms =
        c->opts->cluster_wait_ms ? c->opts->cluster_wait_ms : CLUSTER_WAIT_DEFAULT_MS;
    uint64_t t0 = bf_clock_mono_us();
    uint64_t backoff_ms = 1000;
    for (;;) {
        prepare_once(c, cell, out);
        if (out->rc != BF_E_TRANSPORT)
            return;
        uint64_t waited_ms = (bf_clock_mono_us() - t0) / 1000u;
        if (waited_ms >= limit_ms || bf_campaign_signal) {
            out->unreachable = waited_ms >= limit_ms;
            return;
        }
        uint64_t pause_ms = backoff_ms < limit_ms - waited_ms ? backoff_ms : limit_ms - waited_ms;
        bf_warn("cell %s: the cluster is not reachable (%s); trying again in %.1f s (waited "
                "%llu of %llu s, --cluster-wait)",
                cell->id, out->diag.msg, (double)pause_ms / 1e3,
                (unsigned long long)(waited_ms / 1000u), (unsigned long long)(limit_ms / 1000u));
        /* the fleet stays answered while we wait */
        uint64_t until = bf_clock_mono_us() + pause_ms * 1000u;
        while (bf_clock_mono_us() < until && !bf_campaign_signal)
            bf_fleet_poll(c->fleet, 100);
        backoff_ms =
            backoff_ms * 2 < CLUSTER_BACKOFF_MAX_MS ? backoff_ms * 2 : CLUSTER_BACKOFF_MAX_MS;
    }
}

static char *data_bind_for(const char *control)
{
    const char *colon = strrchr(control, ':');
    long port = colon ? strtol(colon + 1, NULL, 10) : 0;
    if (colon == NULL || port <= 0 || port >= 65535)
        return NULL;
    return bf_asprintf("%.*s:%ld", (int)(colon - control), control, port + 1);
}

static const char *control_of(const bf_campaign_opts_t *opts)
{
    return opts->control_bind ? opts->control_bind : "tcp://127.0.0.1:7100";
}

int bf__cell_setup_fleet(bf__campaign_t *c, bf__fleet_setup_t *fs)
{
    const bf_campaign_opts_t *opts = c->opts;
    const bf_target_t *target = bf_scenario_target(c->sc);
    const char *control = control_of(opts);
    fs->data_bind = opts->data_bind ? bf_strdup(opts->data_bind) : data_bind_for(control);
    if (fs->data_bind == NULL) {
        bf_error("--bind %s: expected tcp://HOST:PORT", control);
        return BF_EXIT_INPUT;
    }
    bf_fleet_opts_t fo = {
        .control_bind = control,
        .data_bind = fs->data_bind,
        .lost_ms = opts->lost_ms,
        .expected_agents = opts->agents > opts->local_agents ? opts->agents : opts->local_agents};
    char secret[41] = "", public_key[41] = "";
    if (opts->insecure) {
        bf_warn("--insecure: fleet traffic is plain TCP and any agent may join");
        if (target->auth != BF_AUTH_NONE)
            bf_warn("--insecure: the cluster credentials of the scenario travel to the agents in "
                    "plain text; use CURVE keys (--keys DIR) on any network you do not own");
    } else {
        bf_diag_t kd = {0};
        if (opts->keys_dir) {
            if (bf_keys_load_secret(opts->keys_dir, "coordinator", secret, public_key, &kd) !=
                BF_OK) {
                bf_error("%s", kd.msg);
                return BF_EXIT_ENV;
            }
            fs->allow = opts->allow_dir ? bf_strdup(opts->allow_dir)
                                        : bf_asprintf("%s/agents", opts->keys_dir);
        } else if (!opts->local_agents) {
            bf_error("CURVE keys are required: give --keys DIR "
                     "(create it with `bulkfleet-coordinator keygen DIR`, then put each agent's "
                     "agent.pub into DIR/agents/), or --insecure on a trusted network");
            return BF_EXIT_ENV;
        }
        if (opts->local_agents) {
            /* local agents get ephemeral keys in a private temporary directory */
            const char *tmpdir = getenv("TMPDIR");
            char *tmpl =
                bf_asprintf("%s/bulkfleet-keys.XXXXXX", tmpdir && tmpdir[0] ? tmpdir : "/tmp");
            if (mkdtemp(tmpl) == NULL) {
                bf_error("cannot create a key directory %s: %s (set TMPDIR to a writable "
                         "directory)",
                         tmpl, strerror(errno));
                free(tmpl);
                return BF_EXIT_ENV;
            }
            fs->local_keys = tmpl;
            char agent_sec[41], agent_pub[41];
            int krc = bf_keys_generate(fs->local_keys, "agent", &kd);
            if (krc == BF_OK && !opts->keys_dir) {
                krc = bf_keys_generate(fs->local_keys, "coordinator", &kd);
                if (krc == BF_OK)
                    krc =
                        bf_keys_load_secret(fs->local_keys, "coordinator", secret, public_key, &kd);
            } else if (krc == BF_OK) {
                char *pubpath = bf_asprintf("%s/coordinator.pub", fs->local_keys);
                FILE *pf = fopen(pubpath, "w");
                krc = pf && fprintf(pf, "%s\n", public_key) > 0 ? BF_OK : BF_E_IO;
                if (pf)
                    fclose(pf);
                free(pubpath);
            }
            if (krc == BF_OK)
                krc = bf_keys_load_secret(fs->local_keys, "agent", agent_sec, agent_pub, &kd);
            explicit_bzero(agent_sec, sizeof agent_sec);
            if (krc != BF_OK) {
                bf_error("local agent keys: %s", kd.msg);
                return BF_EXIT_ENV;
            }
            char *both = fs->allow ? bf_asprintf("%s:%s", fs->allow, fs->local_keys)
                                   : bf_strdup(fs->local_keys);
            free(fs->allow);
            fs->allow = both;
        }
        fo.curve_secret_z85 = secret;
        fo.allow_dir = fs->allow;
    }
    bf_diag_t fd = {0};
    c->fleet = bf_fleet_new(&fo, &fd);
    explicit_bzero(secret, sizeof secret);
    if (c->fleet == NULL) {
        bf_error("%s", fd.msg);
        return BF_EXIT_ENV;
    }
    if (target->auth == BF_AUTH_AWS && target->aws_ship)
        bf_fleet_set_aws_ship(c->fleet, target); /* the agents sign with ours, kept fresh */
    /* from now on every cluster call of the campaign's loop keeps the fleet answered, not
     * only the index preparation: creating an index of many shards,
     * waiting for its health, _refresh and _count after a cell, the store size, a stalled
     * node. Agents that hear nothing for 3 s say Hello again, and after 10 s reopen their
     * sockets (fleet churn, seen on 60 shards x 1 replica on 3 nodes). */
    bf_es_set_tick(c->es, bf__cell_setup_tick, c, BF__FLEET_TICK_MS);
    bf_telemetry_set_tick(c->tele, bf__cell_setup_tick, c, BF__FLEET_TICK_MS);
    if (c->mstore)
        bf_mstore_set_tick(c->mstore, bf__cell_setup_tick, c, BF__FLEET_TICK_MS);
    return BF_EXIT_OK;
}

int bf__cell_setup_local_agents(bf__campaign_t *c, bf__fleet_setup_t *fs)
{
    const bf_campaign_opts_t *opts = c->opts;
    if (!opts->local_agents)
        return BF_EXIT_OK;
    char *agent = bf_local_agent_path();
    if (agent == NULL) {
        bf_error("bulkfleet-agent not found next to this "
                 "program; build it (make) or install both programs");
        return BF_EXIT_ENV;
    }
    /* local agents connect to loopback on the control port we bound */
    const char *colon = strrchr(control_of(opts), ':');
    char *ep = bf_asprintf("tcp://127.0.0.1%s", colon);
    fs->pids = bf_calloc(opts->local_agents, sizeof *fs->pids);
    fs->npids = opts->local_agents;
    int rc = bf_local_spawn(agent, ep, fs->npids, opts->local_threads, fs->local_keys, fs->pids);
    free(ep);
    free(agent);
    return rc == BF_OK ? BF_EXIT_OK : BF_EXIT_ENV;
}

void bf__cell_setup_forget_secrets(bf__fleet_setup_t *fs)
{
    if (fs->local_keys == NULL)
        return;
    static const char *const secrets[] = {"agent.key", "coordinator.key"};
    for (size_t i = 0; i < sizeof secrets / sizeof secrets[0]; i++) {
        char *p = bf_asprintf("%s/%s", fs->local_keys, secrets[i]);
        if (unlink(p) != 0 && errno != ENOENT)
            bf_warn("cannot remove the local agents' key %s: %s", p, strerror(errno));
        free(p);
    }
}

void bf__cell_setup_cleanup(bf__fleet_setup_t *fs)
{
    if (fs->npids)
        bf_local_stop(fs->pids, fs->npids);
    free(fs->pids);
    free(fs->data_bind);
    free(fs->allow);
    if (fs->local_keys) {
        /* ephemeral keys die with the campaign */
        static const char *const names[] = {"agent.key", "agent.pub", "coordinator.key",
                                            "coordinator.pub"};
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
            char *p = bf_asprintf("%s/%s", fs->local_keys, names[i]);
            unlink(p);
            free(p);
        }
        rmdir(fs->local_keys);
        free(fs->local_keys);
    }
    memset(fs, 0, sizeof *fs);
}
