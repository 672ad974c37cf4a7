/* SPDX-License-Identifier: MIT */
/* bf_import_loadgen.h — turn an INFINI loadgen config (loadgen.yml) into a bulkfleet scenario.
 *
 * Mapping (docs/internals/loadgen-compat.md §1.2-§1.6):
 *   - the first request whose URL ends in /_bulk is the workload; its body template must hold an
 *     action line and a source line. batch_size = body_repeat_times x (action lines in the body);
 *     only the first document of a multi-document body is kept (a note says so);
 *   - url "scheme://host:port[/index]/_bulk" -> target.hosts [scheme://host:port] (and the
 *     index); an empty url uses runner.default_endpoint, else ${BF_TARGET:-http://127.0.0.1:9200};
 *   - the action line's _index -> index.name (a placeholder of a range variable becomes
 *     {i+from}, so test-$[[suffix]] over 10..13 names test-10..test-13 as loadgen did; of a list
 *     variable {i}, numbered from 0; count = number of values), _id -> document.id, routing ->
 *     document.routing,
 *     pipeline -> document.pipeline; _type is dropped (removed from OpenSearch);
 *   - the index is the user's: recreate: false (a note explains how to let bulkfleet create it);
 *   - basic_auth (or runner.default_basic_auth) -> auth {username, password: ${ES_PASSWORD}};
 *     a literal password is never copied; $[[env.X]] anywhere becomes ${X} (with the env:
 *     section's value as the default: ${X:-value});
 *   - variables: referenced ones only (others listed in a note). sequence/sequence64 ->
 *     sequence with from+1 (loadgen's first value); uuid (an xid in loadgen) -> sortable_id;
 *     now_unix_in_ms/_in_micro/_in_nano -> now_unix_ms/_us/_ns; now_with_format's Go layout ->
 *     strftime; runtime_variables -> a copy with scope: request; runtime_body_line_variables ->
 *     a copy with scope: document; replace: is dropped (bulkfleet escapes values itself);
 *     int_array_bitmap is not supported (an error);
 *   - -compress -> request.compression: gzip; -c -> matrix.concurrency; -d -> run.duration
 *     (loadgen's defaults: 1 and 5 s); -r (requests/s) -> run.target_rate = r x batch_size.
 * loadgen's DSL (loadgen.dsl, "METHOD URL" lines, body lines, "# key: {JSON5}" comment blocks;
 * detected by a .dsl name or a first request line) is converted to this YAML form first
 * ("# request:" merges into its request, "# assert:"/"# register:" and "# 200" expected answers
 * go beside it as notes), then imported the same way; messages name "FILE (in its YAML form)".
 * The output starts with comment lines (origin and notes) and loads with bf_scenario_load_text
 * once ES_PASSWORD (if used) is set and the dictionary files are next to it.
 */
#ifndef BF_IMPORT_LOADGEN_H
#define BF_IMPORT_LOADGEN_H

#include "bf_error.h"

#include <stddef.h>
#include <stdint.h>

typedef struct bf_import_opts {
    uint32_t concurrency;      /* loadgen -c; 0 = loadgen's default 1 */
    uint32_t duration_s;       /* loadgen -d; 0 = loadgen's default 5 */
    double qps;                /* loadgen -r (requests/s); 0 = unlimited */
    int compress;              /* loadgen -compress */
    const char *name;          /* scenario name; NULL = from the origin's file name */
    const char *config_text;   /* loadgen -config: the loadgen.yml whose env:, variables: and
                                  runner: a DSL file uses when it has none itself; NULL = none */
    const char *config_origin; /* its file name for messages */
} bf_import_opts_t;

/* bf_import_loadgen — convert loadgen YAML text. Returns 0 and *yaml_out (caller frees)
 * or BF_E_PARSE / BF_E_INVAL with diag "origin:line:col: message". On success diag->msg may
 * still be set (diag->code BF_E_INVAL): a problem the output carries over from the config and
 * that the user must fix before it runs, listed in full (every duplicate key of the body's
 * action and source lines, with its path and the characters of both occurrences; the loader
 * would stop at the first). The same list is in the output's notes. opts may be NULL.
 * Thread-safe. */
int bf_import_loadgen(const char *text, size_t len, const char *origin,
                      const bf_import_opts_t *opts, char **yaml_out, bf_diag_t *diag);

#endif
