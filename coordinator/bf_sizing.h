/* SPDX-License-Identifier: MIT */
/* bf_sizing.h — `bulkfleet-coordinator size`: how many data nodes, by storage and by ingest.
 *
 * Storage follows seed 004 (Elastic, "Benchmarking and sizing your Elasticsearch cluster for
 * logs and metrics"; /work/shared/seeds/004_*) exactly, per tier:
 *   total data (GB)    = daily raw GB x retention days x (replicas + 1) [x raw-to-disk factor]
 *   total storage (GB) = total data x (1 + watermark 0.15 + margin 0.1)
 *   data nodes         = ROUNDUP(total storage / RAM per node (GB) / RAM:data ratio) [+ 1]
 * The seed takes raw GB as disk GB (factor 1); bulkfleet can take the factor a results directory
 * measured (store_bytes_per_payload_byte: primary store bytes per raw payload byte). Ingest: the
 * nodes needed for a peak docs/s at the docs/s one data node of a tested cluster sustained
 * (a find-max result ÷ that cluster's data nodes), ROUNDUP, + 1 for failover where asked.
 * The hot tier takes the larger of the two, and the output says which decided.
 *
 * Pure functions over plain values; thread-safe; no allocation.
 */
#ifndef BF_SIZING_H
#define BF_SIZING_H

#include "bf_error.h"

#include <stdint.h>
#include <stdio.h>

#define BF_SIZE_WATERMARK 0.15  /* stay under the disk watermarks (seed 004) */
#define BF_SIZE_MARGIN 0.10     /* margin of error (seed 004: "5 % or 10 %") */
#define BF_SIZE_HOT_RATIO 30.0  /* RAM:data 1:30 for hot nodes (seed 004) */
#define BF_SIZE_WARM_RATIO 160.0 /* RAM:data 1:160 for warm nodes (seed 004) */

typedef struct bf_size_tier_in {
    double days;             /* retention in this tier, days; 0 = no such tier */
    double ram_data_ratio;   /* GB of data per GB of RAM (30 means 1:30) */
} bf_size_tier_in_t;

typedef struct bf_size_in {
    double daily_gb;         /* raw data indexed per day, GB */
    uint32_t replicas;       /* replica shards per primary */
    double ram_gb;           /* RAM per data node, GB */
    double watermark;        /* fraction, 0.15 */
    double margin;           /* fraction, 0.10 */
    int failover;            /* 1: + 1 node per tier for hardware failure */
    double raw_to_disk;      /* disk bytes per raw byte; 1 = the seed's assumption */
    bf_size_tier_in_t hot;   /* hot (or the only) tier */
    bf_size_tier_in_t warm;  /* days 0 = no warm tier */
    double peak_docs_s;      /* required peak ingest, docs/s; 0 = do not size for ingest */
    double docs_s_per_node;  /* sustained docs/s per data node measured; needed with peak */
} bf_size_in_t;

typedef struct bf_size_tier_out {
    double data_gb;          /* total data, GB */
    double storage_gb;       /* total storage, GB */
    double nodes_exact;      /* storage / RAM / ratio before ROUNDUP */
    uint32_t nodes;          /* ROUNDUP (+ 1 with failover); 0 when the tier is absent */
} bf_size_tier_out_t;

typedef struct bf_size_out {
    bf_size_tier_out_t hot, warm;
    double ingest_exact;     /* peak / docs_s_per_node */
    uint32_t ingest_nodes;   /* ROUNDUP (+ 1 with failover); 0 when not asked */
    uint32_t hot_nodes;      /* max(hot storage nodes, ingest nodes) */
    const char *decides;     /* "storage", "ingest" or "storage and ingest alike" */
} bf_size_out_t;

/* bf_size_defaults — watermark, margin, ratios and factor 1 as in seed 004, one replica. */
void bf_size_defaults(bf_size_in_t *in);

/* bf_size_compute — the formulas above. Returns 0, or BF_E_INVAL with diag naming the input
 * that is missing or out of range (daily_gb, hot days and ram_gb > 0; ratios > 0; a peak needs
 * docs_s_per_node > 0). ROUNDUP tolerates 1e-9 of rounding error in the division. */
int bf_size_compute(const bf_size_in_t *in, bf_size_out_t *out, bf_diag_t *diag);

/* bf_size_print — the worked calculation, in the seed's order and words, to f. */
void bf_size_print(FILE *f, const bf_size_in_t *in, const bf_size_out_t *out);

/* bf_size_cmd — `size` command line (see usage in the .c); returns the exit code: 0, 2 bad
 * input, 3 a results directory that cannot be read. */
int bf_size_cmd(int argc, char **argv);

#endif
