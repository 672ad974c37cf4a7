/* SPDX-License-Identifier: MIT */
/* bf_modcheck.h — before a run (validate, plan): whether the target has the server modules a
 * scenario needs (mapper-extras for scaled_float, lang-painless for a painless script,
 * analysis-common for an analyzer...), asked of the target itself (GET /, GET /_nodes/plugins)
 * and, for a dev cluster of scripts/devcluster.sh, looked up in deploy/devcluster-modules.tsv
 * (built into the program), which names the way out. */
#ifndef BF_MODCHECK_H
#define BF_MODCHECK_H

#include "bf_scenario.h"

#include <stddef.h>

/* One module a scenario needs: the module's name as the server lists it ("mapper-extras",
 * "lang-painless", "analysis-common"), what needs it ("the mappings' scaled_float",
 * "search query 'expression'"), what happens without it, and whether only the full module will
 * do (a component the dev cluster's partial stand-in lacks: synonym, hunspell...). */
typedef struct bf_modneed {
    const char *module; /* borrowed, static */
    char what[256];
    const char *consequence; /* borrowed, static: "the index is refused at creation" */
    int full_only;           /* 1: a partial stand-in (bulkfleet-<module>) does not have it */
} bf_modneed_t;

/* bf_modcheck_target — asks target t's first host (connections bounded by 2 s, requests by
 * 5 s) who it is (GET /) and which modules and plugins each node has (GET /_nodes/plugins), and
 * says (bf_warn, one line per module, prefixed with path) each of needs[0..n) the target
 * lacks: the module, what needs it and its consequence, the target (the engine of its dev
 * cluster when its cluster_name is bulkfleet-dev) and the way out (the TSV's "instead" for a
 * dev cluster: the OpenSearch dev cluster that has the module, or a real cluster). A target
 * that cannot be asked is said once (bf_info) and nothing more. Returns the number of modules
 * said to be lacking. Blocking; not thread-safe (logs). */
size_t bf_modcheck_target(const char *path, const bf_target_t *t, const bf_modneed_t *needs,
                          size_t n);

/* bf_modcheck_devcluster — the row of deploy/devcluster-modules.tsv for engine (the --engine
 * value: "elasticsearch8") and module: *loaded ("yes", "no", "partial", "opt-in") and *instead
 * (what to do instead, "-" when loaded), both pointing into a static copy. Returns 1, or 0 when
 * the table has no such row. Thread-safe after the first call returns (the table is parsed
 * once). */
int bf_modcheck_devcluster(const char *engine, const char *module, const char **loaded,
                           const char **instead);

#endif
