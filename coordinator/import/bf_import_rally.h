/* SPDX-License-Identifier: MIT */
/* bf_import_rally.h — `import-rally`: a Rally track (or OpenSearch Benchmark workload) as a
 * scenario.
 *
 *   bulkfleet-coordinator import-rally TRACK_DIR_OR_JSON [--challenge NAME] [--name NAME]
 *                                      [-o OUT.yaml]
 *
 * Reads the track in Rally's documented JSON format (track.json in the folder, or the file
 * given; OpenSearch Benchmark's workload.json is the same format): `indices` (name, body file
 * with settings and mappings), `corpora` (documents: source-file, target-index,
 * includes-action-and-meta-data), `operations` and the `schedule` of the chosen challenge (or
 * the track's top-level schedule). Every task whose operation has operation-type "bulk"
 * gives its bulk-size, clients and target-throughput (bulk requests/s in Rally; docs/s here =
 * target-throughput x bulk-size) as matrix values; warmup-time-period and time-period become
 * run.warmup / run.duration, and a bulk task without time-period reads its corpus once as
 * Rally does (document.corpus.passes: 1). The index body's settings become index.settings
 * (number_of_shards / number_of_replicas the shards / replicas axes) and its mappings
 * index.mappings. The corpus is every documents file of the corpora the first bulk
 * operation names ("corpora"; all when none), filtered by its "indices", as one
 * document.corpus list in track order; files are named by absolute path (the .bz2 as listed,
 * or the decompressed file Rally leaves beside it), shipped to agents up to 1 GiB together
 * and read from each agent host (corpus.local_path) above that. The bulk task's targets (the
 * files' target-index) are the index: one is index.name; several are index.count of them
 * named after the first, with its body, the documents round-robin over all (no per-file
 * target in bulkfleet; the scenario's header notes say so).
 *
 * Every file is rendered with Jinja2 first, as Rally and OpenSearch Benchmark do
 * (bf_import_render.h: the rally.helpers / benchmark.helpers macros, the tools' globals and
 * filters, the track parameters), when the file holds a Jinja construct or parameters are given.
 */
#ifndef BF_IMPORT_RALLY_H
#define BF_IMPORT_RALLY_H

#include "bf_error.h"

/* What import-rally is asked for (all optional: zero / NULL is the tools' default). */
typedef struct bf_rally_opts {
    const char *challenge;            /* NULL: the one marked "default": true, else the first */
    const char *name;                 /* the scenario name; NULL: the folder's name */
    const char *track_params;         /* Rally's --track-params: "k:v,k2:v2" or FILE.json */
    const char *build_flavor;         /* Rally's build_flavor global; NULL: "default" */
    int serverless_operator;          /* Rally's serverless_operator global */
    const char *distribution_version; /* OpenSearch Benchmark's distribution_version */
    const char *corpus_dir;   /* --corpus-dir: looked in after the track's and the tools' dirs */
    int allow_partial_corpus; /* --allow-partial-corpus: a corpus file with fewer documents than
                                 the track's document-count (a prefix made on purpose) is a
                                 warning naming both numbers, not an error; more is an error */
    size_t *corpus_missing;   /* out (may be NULL): corpus files not found (warned, noted) */
    int list; /* --list: *yaml is "NAME\tN tasks[\tdefault][\tdescription]\n" per challenge */
} bf_rally_opts_t;

/* bf_import_rally — convert the track at `path` (folder holding track.json or workload.json, or
 * a JSON file). opts may be NULL. Returns 0 and *yaml (caller frees), or BF_E_NOTFOUND /
 * BF_E_IO (a file missing or unreadable, python3-jinja2 missing), BF_E_PARSE (not JSON, a Jinja
 * error) or BF_E_INVAL (no bulk task, unknown challenge, an operation that is not defined, a
 * track parameter no template reads) with diag "file:line:column: what; what to do" where a
 * position is known (of the rendered text for a rendered file: "FILE (rendered):L:C").
 * Thread-safe. */
int bf_import_rally(const char *path, const bf_rally_opts_t *opts, char **yaml, bf_diag_t *diag);

/* bf_cmd_import_rally — the command: prints the scenario (or writes -o), checks that it loads.
 * Returns an enum bf_exit code (2 for bad input). */
int bf_cmd_import_rally(int argc, char **argv);

#endif
