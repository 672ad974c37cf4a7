/* SPDX-License-Identifier: MIT */
/* bf_campaign_int.h — what the campaign loop (bf_campaign.c), cell setup (bf_cell_setup.c) and
 * the per-cell run (bf_cell_protocol.c), the cell runner (bf_cell_attempt.c) and find-max's search
 * (bf_findmax_run.c) share; directory-internal (bf__ names), not for other code.
 *
 * One campaign per process, on the coordinator's main thread: nothing here is thread-safe.
 */
#ifndef BF_CAMPAIGN_INT_H
#define BF_CAMPAIGN_INT_H

#include "bf_aggregate.h"
#include "bf_campaign.h"
#include "bf_cell_protocol.h"
#include "bf_cluster.h"
#include "bf_es.h"
#include "bf_fleet.h"
#include "bf_metrics.h"
#include "bf_mstore.h"
#include "bf_results.h"
#include "bf_samplelog.h"
#include "bf_scenario.h"
#include "bf_strmap.h"
#include "bf_telemetry.h"

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define BF__CELL_RETRY 1 /* bf__cell_protocol_run: an agent was lost before Start; run again */
#define BF__MAX_CELL_RETRIES 3  /* preparing again this often; then a loss fails the cell */

typedef struct bf__campaign {
    const bf_campaign_opts_t *opts; /* borrowed from the caller of bf_campaign_run */
    bf_scenario_t *sc;
    bf_fleet_t *fleet;
    bf_results_t *res;
    bf_es_t *es;
    bf_telemetry_t *tele;  /* cluster telemetry: a thread with its own curl handle per cell */
    bf_cluster_info_t cluster;
    uint64_t next_cmd;     /* command ids: from the wall clock, unique across coordinator runs */
    int no_retry;          /* the cell was prepared again too often: a loss fails it */
    bf_owner_t owner;      /* what index.recreate may delete; the mark's scenario/campaign */
    char campaign_id[256]; /* the results directory's name, in the mark */
    int cluster_gone;      /* a cell could not be prepared: the cluster stayed unreachable */
    char setup_error[BF_DIAG_MAX]; /* why the last cell's indices could not be prepared (the
                                      cluster answered), "" when they were: the campaign asks
                                      bf_cfgerr_repeats whether the cells after it would fail
                                      the same way */
    char config_stop[BF_DIAG_MAX]; /* the key every remaining cell would repeat the refusal of
                                      (the campaign stops, exit 2), or "" */
    char *not_run;                 /* owned: with config_stop, the cells (and repetitions) that
                                      do not run, comma-separated */
    int first_cell_done;      /* a cell has run: run.first_warmup is spent (bf__cell_attempt_run) */
    uint64_t warmup_after_ms; /* run.warmup, also while the first cell has first_warmup (the
                                 progress line's estimate of the cells after it) */
    int prepare_soon;      /* an agent answered busy: resend the Prepare in BUSY_RESEND_MS */
    bf_metrics_t *metrics; /* --metrics-listen / --statsd, or NULL (bf_metrics.h) */
    bf_mstore_t *mstore;   /* --metrics-store / metrics_store:, or NULL (bf_mstore.h) */
    bf_target_t
        mstore_target; /* the store's connection (hosts point into mstore_host or the scenario) */
    char *mstore_host; /* owned: --metrics-store URL without a trailing slash */
    char *mstore_hosts[1];

    /* the current cell (bf_cell_protocol.c); members[i] is agents[i]'s part, NULL between cells */
    const bf_cell_t *cell;
    char cell_name[256];
    uint64_t prepare_cmd, start_cmd;
    bf_member_t *members;
    uint32_t nmembers;
    bf_cellagg_t *agg;
    FILE *samples;
    bf_samplelog_t *slog; /* the samples' writer thread on `samples` (NULL between cells) */
    uint64_t held_back;   /* samples refused while its queue was full (the agents resend) */
    int cell_failed;
    char reason[1024];
    uint64_t bad_samples;
    uint64_t stop_cmd;      /* the Stop of the current cell, once sent */
    uint64_t end_load_cmd;  /* run.warmup: auto: the Stop that ends the load (not an abort),
                               with end_load_ms after the start; 0 = none */
    uint32_t end_load_ms;
    char stop_reason[256];
    int32_t load_s;         /* warmup + duration of the current cell, in seconds */
    uint64_t gaps;          /* samples that arrived ahead of a missing one (resent later) */
    uint64_t wrong_channel; /* messages that came on the other socket (bf_wire_channel_ok) */

    /* find-max (bf_findmax_run.c): the current cell is a search step when base_cell_id is
     * set (the scenario cell it derives from; agents get it in Prepare); track_p99 keeps the
     * per-second latency p99 for the sustain phase's slope test */
    const char *base_cell_id;
    int track_p99;
    /* find-max's progress: the step running (NULL outside find-max), when
     * its combination's find_max.max_time ends (monotonic us), the bound, and how many
     * combinations follow; the progress line and the cell's first line say these instead of
     * "cell k/n ... left ~" */
    const struct bf_fm_step *fm_step;
    uint64_t fm_deadline_us, fm_max_time_ms;
    size_t fm_combos_after;
    /* the run order (bf_rounds.h): the round running (1-based) of nrounds (1: no rounds, or
     * find-max), the repetition's 1-based position in it, and when its load started (Unix ms,
     * 0 = not yet), for the row; the repetitions run so far and the time they took (us), for
     * the progress line's estimate of the time left */
    uint32_t round, nrounds, position;
    /* run.repeat: auto (bf_until.h): the comparisons still open after the last test, named
     * in the progress lines ("" = none or not auto) */
    char open_text[320];
    int64_t load_started_ms;
    uint64_t runs_done, runs_us;
    uint32_t min_agents; /* a cell may start with this many agents */
    uint64_t wait_ms;    /* how long to wait for them */

    /* files shipped in chunks (bf_cell_protocol.c): per scenario file, its chunk hashes (hex), made
     * at the first Prepare; nchunks 0 = the file goes whole in the Prepare */
    struct bf__file_chunks {
        uint32_t nchunks;
        char (*hex)[65];
    } * chunks;
    size_t nchunk_files;
    uint64_t chunk_bytes;   /* opts->file_chunk_bytes or the default */
    uint64_t last_chunk_us; /* a chunk was served then: the prepare wait goes on from there */
    uint64_t chunks_served;
    uint64_t chunks_max; /* BF_TEST_CHUNKS_SERVED_MAX (tests only: a transfer cut off), 0 */
    /* what an agent's Hello said about a cell of an earlier coordinator, already logged (an
     * agent says hello more than once: each line once per agent, cell and state) */
    bf_strmap_t said_held;
} bf__campaign_t;

/* ---- bf_cell_protocol.c ---- */

/* bf__cell_protocol_attach — install the per-cell message, liveness and resend handlers on
 * c->fleet. */
void bf__cell_protocol_attach(bf__campaign_t *c);

/* bf__cell_protocol_run — one repetition of one cell on agents[0..nagents) (borrowed): prepare the
 * index (bf__cell_setup_index), Prepare → Ready → Start → samples → final samples, then the row
 * through bf_finish_cell. k/ncells are for the progress line. Returns 0, BF__CELL_RETRY (an
 * agent was lost before Start: nothing measured, row untouched) or BF_E_INTR (interrupted;
 * the row is kept as aborted). */
int bf__cell_protocol_run(bf__campaign_t *c, const bf_cell_t *cell, uint32_t repetition,
                          bf_fleet_agent_t **agents, uint32_t nagents, size_t k, size_t ncells,
                          uint64_t campaign_start_us, bf_row_t *row);

/* bf__cell_protocol_free_chunks — free the chunk hashes of the files shipped in chunks (campaign
 * end). */
void bf__cell_protocol_free_chunks(bf__campaign_t *c);
/* bf__cell_protocol_publish — hand the live metrics (c->metrics, NULL = none) what is true now:
 * k of ncells cells done, the current cell (c->cell, NULL between cells) in phase (NULL =
 * idle) at its latest complete second (-1 = none yet), the fleet's agents. */
void bf__cell_protocol_publish(bf__campaign_t *c, size_t k, size_t ncells, const char *phase,
                               int32_t second);

/* ---- bf_cell_attempt.c: the cell runner the campaign loop and find-max both use ---- */

/* bf__cell_attempt_run — one repetition of one cell on the agents connected now (the first one a
 * coordinator runs warms up for run.first_warmup when that is longer than run.warmup): waits for
 * c->min_agents (up to c->wait_ms) and prepares again when an agent is lost before Start
 * (at most BF__MAX_CELL_RETRIES). name is the cell's results name, for messages; pos/n for
 * the progress line. Returns 0 (row filled), BF_E_INTR (row kept as aborted) or an exit code
 * > 0 (3: too few agents; 128 + signal) with nothing measured. */
int bf__cell_attempt_run(bf__campaign_t *c, const bf_cell_t *cell, uint32_t rep, const char *name,
                         size_t pos, size_t n, uint64_t campaign_start_us, bf_row_t *row);

/* bf__cell_attempt_wait_agents — poll the fleet until want agents are ready, noting every 10 s how
 * many are. Returns BF_OK, BF_E_INTR (bf_campaign_signal) or BF_E_TIMEOUT after wait_ms. */
int bf__cell_attempt_wait_agents(bf__campaign_t *c, uint32_t want, uint64_t wait_ms);

/* bf__cell_attempt_agents_is_axis — 1 when the cell's agent count is an axis value (matrix.agents),
 * not only run.agents; 0 otherwise. */
int bf__cell_attempt_agents_is_axis(const bf_cell_t *cell);

/* ---- bf_findmax_run.c ---- */

/* bf__findmax_run — `find-max`: search every combination of the axes other than batch_size
 * and concurrency (bf_findmax.h), each step an ordinary cell (resumable: a step already in
 * the results directory is read back, not run), rows appended to *rows (grown as needed,
 * caller frees), DIR/findmax.json rewritten after every step, and one line per combination:
 * "max sustainable: N docs/s at batch B, concurrency C (p99 X ms)". Returns the exit code. */
int bf__findmax_run(bf__campaign_t *c, bf_row_t **rows, size_t *nrows);

/* bf__findmax_combinations — how many searches find-max runs on sc: the distinct value sets
 * of the axes other than batch_size, concurrency and target_rate (at most 4096). For `plan`.
 * Thread-safe if sc is not changed meanwhile. */
size_t bf__findmax_combinations(const bf_scenario_t *sc);

/* ---- bf_campaign_mstore.c: the metrics store's part of a campaign ---- */

/* bf__mstore_open — when --metrics-store or metrics_store: asks for one: refuse a store that is
 * the target cluster (same cluster_uuid, or a host in both lists while the store does not
 * answer) unless allowed, warn when it does not answer yet, and start the writer
 * (c->mstore). Call after c->es is connected. Returns BF_EXIT_OK or BF_EXIT_INPUT after
 * saying why. */
int bf__mstore_open(bf__campaign_t *c);
/* bf__mstore_cell — queue the documents of the finished cell `name` (its files in the results
 * directory; nothing when the store is off or the cell file is missing). Never blocks. */
void bf__mstore_cell(bf__campaign_t *c, const char *name);
/* bf__mstore_second — queue the merged second `second` of the running cell (c->cell, c->agg) as
 * it stands now; the cell's end replaces it with the final value (same id). Never blocks. */
void bf__mstore_second(bf__campaign_t *c, int32_t second);
/* bf__mstore_close — flush (metrics_store.flush_wait), print what was indexed and dropped, put it
 * in matrix.json ("metrics_store") and rewrite the matrix from rows. NULL-safe. */
void bf__mstore_close(bf__campaign_t *c, const bf_row_t *rows, size_t nrows);

/* ---- bf_cell_setup.c ---- */

/* What preparing a cell's indices found. */
typedef struct bf__cell_index {
    int rc;               /* 0, or the error of preparing (diag says why) */
    bf_diag_t diag;
    int yellow;           /* health reached yellow, not green */
    int64_t baseline;     /* documents before the load (recreate: false) */
    char mismatch[400];   /* recreate: false and the index differs from the cell; "" if not */
    uint32_t index_shards, index_replicas; /* with mismatch: the index's real ones; 0 = unknown */
    int unreachable;      /* rc is BF_E_TRANSPORT after retrying for opts->cluster_wait_ms */
} bf__cell_index_t;

/* bf__cell_setup_index — delete/create the cell's indices and wait for health (keeping the
 * fleet answered meanwhile), then read the baseline count and compare an existing index.
 * While the cluster is unreachable (BF_E_TRANSPORT) preparing is retried with back-off (1, 2,
 * 4, 8 s ...) for opts->cluster_wait_ms (default 60 s), with a progress line; then
 * out->unreachable is set. Interrupted by bf_campaign_signal. */
void bf__cell_setup_index(bf__campaign_t *c, const bf_cell_t *cell, bf__cell_index_t *out);

/* The fleet side of a campaign: binds, CURVE keys, local agents. Owned strings are freed by
 * bf__cell_setup_cleanup. */
typedef struct bf__fleet_setup {
    char *data_bind;    /* owned */
    char *allow;        /* owned: allow-list directories, ':'-separated */
    char *local_keys;   /* owned: ephemeral key directory of local agents, or NULL */
    pid_t *pids;        /* owned: local agent processes */
    uint32_t npids;
} bf__fleet_setup_t;

/* bf__cell_setup_fleet — bind the fleet's sockets (c->fleet) with the keys the options ask for,
 * and make every request of c->es run the fleet (bf__cell_setup_tick every BF__FLEET_TICK_MS)
 * from then on. Returns BF_EXIT_OK, or BF_EXIT_INPUT / BF_EXIT_ENV (enum bf_exit) after
 * printing why. */
int bf__cell_setup_fleet(bf__campaign_t *c, bf__fleet_setup_t *fs);
/* How often a blocking cluster call of the campaign's loop lets the fleet run: far below the
 * agents' 3 s suspicion and the 1 s heartbeat, so their Pings are answered about on time. */
#define BF__FLEET_TICK_MS 250
/* bf__cell_setup_tick — one non-blocking round of the fleet (ctx is the bf__campaign_t): Hellos,
 * Pings and the current cell's messages (bf__cell_protocol_attach's handlers) while a cluster call
 * of c->es or the end of the cell's telemetry blocks the loop. Never uses c->es. */
void bf__cell_setup_tick(void *ctx);
/* How often bf__cell_setup_offload's wait looks whether its thread is done (ms): the delay it
 * adds to a cell's end. */
#define BF__OFFLOAD_WAKE_MS 10
/* bf__cell_setup_offload — run fn(arg) on a thread of its own while this thread keeps the
 * fleet (bf_fleet_poll: Hellos, Pings, Pongs, the handlers' messages), and return once fn has
 * returned: what fn writes is in place, in its order, when this returns, and a slow results
 * disk delays no heartbeat. fn must touch neither the fleet nor c->es, and nothing the fleet's
 * handlers use meanwhile (a cell's files once its members are detached). When no thread can
 * start, fn runs here. Not thread-safe (the campaign's loop). */
void bf__cell_setup_offload(bf__campaign_t *c, void (*fn)(void *), void *arg);
/* bf__cell_setup_write_matrix — bf_results_write_matrix(c->res, c->sc, rows, nrows) through
 * bf__cell_setup_offload: matrix.csv, .md and .json rewritten after a cell while the fleet is
 * answered. Returns as bf_results_write_matrix (a failure is in bf_results_error). Not
 * thread-safe (the campaign's loop). */
int bf__cell_setup_write_matrix(bf__campaign_t *c, const bf_row_t *rows, size_t nrows);
/* bf__cell_setup_local_agents — start opts->local_agents agent processes connecting to the
 * control bind. Returns BF_EXIT_OK, or BF_EXIT_ENV after printing why. */
int bf__cell_setup_local_agents(bf__campaign_t *c, bf__fleet_setup_t *fs);
/* bf__cell_setup_forget_secrets — remove the local agents' ephemeral secret keys (agent.key,
 * coordinator.key) from fs->local_keys once every local agent has joined: each agent read its
 * key at start and the coordinator holds its own in memory, so a kill -9 of the coordinator later
 * leaves only public keys behind. No-op without local keys; a failed unlink is warned about.
 * Campaign thread only. */
void bf__cell_setup_forget_secrets(bf__fleet_setup_t *fs);
/* bf__cell_setup_cleanup — stop local agents, remove ephemeral keys, free fs's strings. */
void bf__cell_setup_cleanup(bf__fleet_setup_t *fs);

#endif
