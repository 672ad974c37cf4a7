/* SPDX-License-Identifier: MIT */
/* bf_import_render.h — a Rally track / OpenSearch Benchmark workload rendered with Jinja2.
 *
 * Rally and OpenSearch Benchmark render every track file with Jinja2 before reading it as JSON
 * (esrally/track/loader.py, osbenchmark/workload/loader.py). import-rally does the same with
 * a real Jinja2 engine: coordinator/render_track.py (Debian's python3-jinja2, installed by
 * scripts/install-deps.sh) is run once per import, renders the track file and every body /
 * template file its JSON names, and answers one JSON object (see render_track.py). Import is an
 * offline step: nothing here is used by the agents or by `run`.
 *
 * The renderer is found at $BF_TRACK_RENDERER, else in the source tree the program was built
 * from, else at <prefix>/share/bulkfleet/render_track.py (cmake --install / the .deb).
 */
#ifndef BF_IMPORT_RENDER_H
#define BF_IMPORT_RENDER_H

#include "bf_error.h"

#include <jansson.h>

/* What the tools give a template besides the track parameters. */
typedef struct bf_render_opts {
    const char *params;               /* "k:v,k2:v2" or FILE.json (Rally's --track-params); NULL */
    const char *build_flavor;         /* Rally's build_flavor; NULL = "default" */
    int serverless_operator;          /* Rally's serverless_operator */
    const char *distribution_version; /* OpenSearch Benchmark's; NULL = not defined */
} bf_render_opts_t;

/* bf_import_render — render the track file `track_file` (absolute path) with Jinja2.
 * Returns 0 and *out (caller json_decref's): {"track": text, "files": {name: text},
 * "params": [names read], "unused": [given but not read]}; BF_E_PARSE / BF_E_INVAL with diag
 * "file:line: what (construct)" (a Jinja error, the rendered text not JSON, a bad
 * --track-params); BF_E_NOTFOUND when python3 or python3-jinja2 is missing (the diag says to
 * run scripts/install-deps.sh); BF_E_TIMEOUT after 120 s (a template that loops); BF_E_IO when
 * the renderer cannot be started. Blocks until the renderer ends. Thread-safe (one child per
 * call, no global state; SIGCHLD must not be ignored). */
int bf_import_render(const char *track_file, const bf_render_opts_t *opts, json_t **out,
                     bf_diag_t *diag);

/* bf_import_render_path — the renderer that bf_import_render runs (static storage), or NULL
 * when none is there. Thread-safe. */
const char *bf_import_render_path(void);

#endif
