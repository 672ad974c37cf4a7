/* SPDX-License-Identifier: MIT */
/* bf_sizing.h — `bulkfleet-coordinator size`: how many data nodes, by storage and by ingest.
 *
 * Storage follows seed 004 (Elastic's blog post "Benchmarking and sizing your Elasticsearch
 * cluster for logs and metrics", Yacine Younes; docs/find-max.md) exactly, per tier:
 *   total data (GB)    = daily raw GB x retention days x (replicas + 1) [x raw-to-disk factor]
 *   total storage (GB) = total data x (1 + watermark 0.15 + margin 0.1)
 *   data nodes         = ROUNDUP(total storage / RAM per node (GB) / RAM:data ratio) [+ 1]
 * The seed takes raw GB as disk GB (factor 1); bulkfleet can take the factor a results directory
 * measured (store_bytes_per_payload_byte: primary store bytes per raw payload byte). Ingest: the
 * nodes needed for a peak docs/s at the docs/s one data node of a tested cluster sustained
 * (a find-max result ÷ that cluster's data nodes), ROUNDUP, + 1 for failover where asked.
 * A measured rate is scaled by the copies of each document the sized cluster writes against
 * the copies a node of the measured cluster wrote per document:
 *   copies factor      = (replicas + 1) / min(measured replicas + 1, measured data nodes)
 *   ingest nodes       = ROUNDUP(peak docs/s x copies factor / measured docs/s per node)
 * (a replica on a 1-node cluster is never allocated: one copy per document was written there).
 * A rate measured with documents of one size is scaled to the sized documents by bytes, on the
 * assumption that indexing cost grows in proportion to a document's bytes (docs/find-max.md
 * "Documents of another size"); beyond BF_SIZE_BYTES_MAX_RATIO either way it is refused:
 *   bytes factor       = sized bytes per document / measured bytes per document
 *   ingest nodes       = ROUNDUP(peak x copies factor x bytes factor / measured docs/s per node)
 * The hot tier takes the larger of the two, and the output says which decided. Where the
 * measurement has an interval (the held step's docs/s interval, the raw-to-disk factor's median
 * interval) the node counts are also given as a range: fewest at the interval's favourable end,
 * most at its other end.
 * Shard plan (Elastic, "Size your shards": shards of 10-50 GB; ILM rollover on
 * max_primary_shard_size, 50gb in its default policies), with P = daily GB x raw-to-disk (the
 * primary data a day) and S the target shard size:
 *   primaries per index = max(1, ROUNDUP(P / S)); the index rolls over at S per primary, after
 *   primaries x S / P days, holding primaries x S x (replicas + 1) GB with its replicas.
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
#define BF_SIZE_SHARD_GB 50.0    /* target primary shard size: ILM's default rollover, 50gb */
#define BF_SIZE_SHARD_GB_MIN 10.0 /* Elastic's advised shard sizes: 10-50 GB */
#define BF_SIZE_SHARD_GB_MAX 50.0
#define BF_SIZE_SHARD_DOCS 200e6 /* Elastic's advised most documents per shard */
/* the most the sized and measured bytes per document may differ (either way) for the rate to
 * be scaled by bytes; beyond, the fixed per-document cost and the per-byte cost no longer
 * extrapolate (the blog post's two data sets: 1.17 KB at 62,000 docs/s and 0.8 KB at 220,000 docs/s
 * on the same 3 nodes, 2.4x apart per byte) */
#define BF_SIZE_BYTES_MAX_RATIO 4.0

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
    int32_t measured_replicas;    /* replicas of the index docs_s_per_node was measured on; -1 =
                                   * not known: the figure is taken as measured at `replicas` */
    uint32_t measured_data_nodes; /* data nodes of the measured cluster; 0 = not known (every
                                   * copy taken as allocated) */
    double docs_s_per_node_lo, docs_s_per_node_hi; /* the interval of docs_s_per_node; 0 =
                                                      none (one number) */
    double doc_bytes;          /* bytes per document sized (action + source line); 0 = as
                                  measured */
    double measured_doc_bytes; /* bytes per document the rate was measured with; 0 = unknown */
    double raw_to_disk_lo, raw_to_disk_hi; /* the interval of raw_to_disk; 0 = none */
    double shard_gb;                       /* target primary shard size, GB (BF_SIZE_SHARD_GB) */
} bf_size_in_t;

typedef struct bf_size_tier_out {
    double data_gb;          /* total data, GB */
    double storage_gb;       /* total storage, GB */
    double nodes_exact;      /* storage / RAM / ratio before ROUNDUP */
    uint32_t nodes;          /* ROUNDUP (+ 1 with failover); 0 when the tier is absent */
} bf_size_tier_out_t;

typedef struct bf_size_out {
    bf_size_tier_out_t hot, warm;
    double copies_factor;    /* (replicas + 1) / measured copies per document; 1 unscaled */
    double measured_copies;  /* copies per document the measured cluster wrote; 0 unscaled */
    double ingest_exact;     /* peak x copies_factor / docs_s_per_node */
    uint32_t ingest_nodes;   /* ROUNDUP (+ 1 with failover); 0 when not asked */
    uint32_t hot_nodes;      /* max(hot storage nodes, ingest nodes) */
    const char *decides;     /* "storage", "ingest" or "storage and ingest alike" */
    double bytes_factor;     /* doc_bytes / measured_doc_bytes; 1 unscaled */
    /* the range from the measurement's intervals; lo == hi when it has none */
    uint32_t storage_nodes_lo, storage_nodes_hi; /* hot tier, raw-to-disk interval */
    uint32_t ingest_nodes_lo, ingest_nodes_hi;   /* docs/s per node interval */
    uint32_t hot_nodes_lo, hot_nodes_hi;
    /* shard plan */
    double primary_gb_day; /* daily_gb x raw_to_disk */
    uint32_t primaries;    /* primaries per index */
    double rollover_days;  /* days an index takes to reach shard_gb per primary */
    double index_gb;       /* primaries x shard_gb x (replicas + 1) */
    double shard_docs;     /* documents per primary at shard_gb; 0 = doc bytes unknown */
    uint32_t hot_shards;   /* shard copies in the hot tier (indices x primaries x copies) */
} bf_size_out_t;

/* bf_size_defaults — watermark, margin, ratios and factor 1 as in seed 004, one replica, the
 * measured replicas not known (no copies scaling). */
void bf_size_defaults(bf_size_in_t *in);

/* bf_size_compute — the formulas above. Returns 0, or BF_E_INVAL with diag naming the input
 * that is missing or out of range (daily_gb, hot days and ram_gb > 0; ratios > 0; a peak needs
 * docs_s_per_node > 0; shard_gb > 0; an interval that does not hold its figure), or that
 * cannot be scaled: doc_bytes with a peak but measured_doc_bytes unknown, or the two more than
 * BF_SIZE_BYTES_MAX_RATIO apart (the message gives both, the ratio and the bound). ROUNDUP
 * tolerates 1e-9 of rounding error in the division. */
int bf_size_compute(const bf_size_in_t *in, bf_size_out_t *out, bf_diag_t *diag);

/* bf_size_copies — the copies of a document an index with `replicas` writes on a cluster of
 * `data_nodes` (0 = not known): min(replicas + 1, data_nodes). Thread-safe. */
double bf_size_copies(uint32_t replicas, uint32_t data_nodes);

/* What `size --find-max DIR` takes from DIR/findmax.json (and DIR/matrix.json). */
typedef struct bf_size_measured {
    double docs_s;         /* max sustainable docs/s of the chosen combination */
    int64_t data_nodes;    /* data nodes of the tested cluster */
    int32_t replicas;      /* replicas of the index it was measured on */
    char combination[256]; /* its label ("replicas=0", "all") */
    size_t ncombinations;  /* combinations with a sustained rate */
    char held_cell[128];   /* the cell of its held step ("" = not named) */
    double ci_low, ci_high; /* the interval of docs_s, scaled from the held step's row's docs/s
                               interval in matrix.json; 0 = none */
    double bytes_per_doc;   /* median over matrix.json's rows of bytes_payload_ok_all /
                               docs_ok_all (action + source line); 0 = not measured */
    size_t bytes_rows;      /* the rows that median is of */
} bf_size_measured_t;

/* bf_size_read_findmax — the best sustained combination of DIR/findmax.json and the replicas it
 * was measured at: its "replicas" (find-max writes it), or for an older file the replicas (the
 * index's real ones with index_mismatch) of its held step's row in DIR/matrix.json.
 * Also the docs/s interval of the held step's row and the bytes per document of the rows
 * (every cell of a find-max sends the same documents), from DIR/matrix.json when it has them.
 * want_replicas >= 0 (`--measured-replicas`) picks the combinations measured at that count;
 * otherwise, when combinations were measured at several replica counts, those at
 * sized_replicas are taken (no scaling needed). Returns 0; BF_E_NOTFOUND (a file cannot be
 * read) or BF_E_INVAL (nothing sustained, no data node count, the replicas not known, several
 * replica counts none of which is sized_replicas, or want_replicas not among those measured)
 * with diag saying what to change. Not thread-safe only in that it reads files. */
int bf_size_read_findmax(const char *dir, int32_t want_replicas, uint32_t sized_replicas,
                         bf_size_measured_t *m, bf_diag_t *diag);

/* bf_size_print — the worked calculation, in the seed's order and words, to f. */
void bf_size_print(FILE *f, const bf_size_in_t *in, const bf_size_out_t *out);

/* bf_size_cmd — `size` command line (see usage in the .c); returns the exit code: 0, 2 bad
 * input (also: a find-max directory whose replicas cannot be reconciled with --replicas /
 * --measured-replicas), 3 a results directory that cannot be read. */
int bf_size_cmd(int argc, char **argv);

#endif
