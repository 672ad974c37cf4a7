/* SPDX-License-Identifier: MIT */
/* bf_campaign.h — `bulkfleet-coordinator run`: every cell of the matrix, in order, across the
 * fleet, into the results directory.
 *
 * Per cell: prepare the indices (coordinator only, once), Prepare → all Ready → Start with a
 * barrier → samples (written, then acknowledged) → Done from every agent (or lost) → _refresh
 * + _count → the row, written atomically. Not thread-safe; one per process.
 */
#ifndef BF_CAMPAIGN_H
#define BF_CAMPAIGN_H

#include <stddef.h>
#include <stdint.h>

typedef struct bf_campaign_opts {
    const char *scenario_path;
    const char *results_base;    /* default "results" */
    const char *resume_dir;      /* --resume DIR or NULL */
    const char *control_bind;    /* default tcp://127.0.0.1:7100 */
    const char *data_bind;       /* default control port + 1 */
    uint32_t agents;             /* agents to wait for (default: local_agents or 1) */
    uint32_t min_agents;         /* a cell may start with this many (default: agents) */
    uint32_t local_agents;       /* start this many agent processes here */
    uint32_t local_threads;      /* --threads for local agents (0 = agent default) */
    uint64_t agent_wait_ms;      /* how long to wait for agents (default 60 s) */
    uint32_t lost_ms;            /* liveness threshold (default 10 s) */
    int insecure;                /* plain TCP, no CURVE */
    const char *keys_dir;        /* CURVE: DIR/coordinator.key; allow-list DIR/agents/ */
    const char *allow_dir;       /* allow-list directory of agent *.pub (overrides DIR/agents) */
    int quiet;                   /* no progress line */
    const char *cells;           /* --cells: comma-separated cell ids or 1-based numbers; NULL = all */
    const uint64_t *warmup_ms;   /* --warmup override of run.warmup, NULL = the scenario's */
    const uint64_t *first_warmup_ms; /* --first-warmup override of run.first_warmup, NULL =
                                        the scenario's */
    const uint64_t *duration_ms; /* --duration override, NULL = the scenario's */
    uint64_t cluster_wait_ms;    /* --cluster-wait: preparing a cell retries this long while
                                    the cluster is unreachable (0 = 60 s) */
    int keep_failed;             /* --keep-failed: --resume keeps failed cells (default: rerun) */
    const char *resume_record;   /* what `run --resume DIR` alone repeats (main.c's JSON: the
                                    scenario's absolute path, the options given), written as
                                    DIR/resume.json by a new campaign; NULL = none */
    int keep_going;              /* --keep-going: a cell whose indices the cluster refuses does
                                    not stop the campaign even when every cell left would be
                                    refused the same way (default: stop, exit 2) */
    const char *rerun;           /* --rerun: with --resume, cells (as --cells) run again although
                                    finished; NULL = none */
    int find_max;                /* `find-max`: search for the max sustainable docs/s instead
                                  * of running the matrix (find_max: section) */
    const uint64_t *sustain_ms;  /* --sustain override of find_max.sustain, NULL = the scenario's */
    const char *const *replace_existing; /* --replace-existing NAMEs (borrowed), or NULL */
    size_t nreplace_existing;
    const char *metrics_listen; /* --metrics-listen IPV4:PORT: GET /metrics there, or NULL */
    const char *statsd;         /* --statsd IPV4:PORT: statsd gauges/counters over UDP, or NULL */
    const char *metrics_store;  /* --metrics-store URL: the store's host (overrides
                                   metrics_store.hosts; auth/TLS from the section), or NULL */
    int metrics_store_allow_target; /* --metrics-store-allow-target (metrics_store.allow_target) */
    uint64_t file_chunk_bytes;      /* --file-chunk-size: files larger than this go to agents in
                                       chunks of it (FetchChunk); 0 = BF_FILE_CHUNK_BYTES */
} bf_campaign_opts_t;

#define BF_MAX_REPLACE_EXISTING 64 /* --replace-existing names per run */

/* bf_campaign_run — run the whole campaign. Returns the exit code (enum bf_exit,
 * docs/internals/measurement.md): 0 all cells ok, 1 some failed/degraded/unverified, 2 bad input, 3
 * environment, 130/143 interrupted. */
int bf_campaign_run(const bf_campaign_opts_t *opts);

/* Set by SIGINT/SIGTERM handlers (signal number); the campaign stops every agent, writes what
 * was measured and returns 128 + signal. */
extern volatile int bf_campaign_signal;

#endif
